/**
 * Query parameters that carry a secret somewhere in the product: verification and reset tokens,
 * invite codes, stream tokens, and anything named like a password or key.
 */
export const SECRET_QUERY_PARAMS: ReadonlySet<string> = new Set([
  'token',
  'stream_token',
  'verification_token',
  'reset_token',
  // A Ring member's reset link: /ring-access?reset=… (issue 28).
  'reset',
  'access_token',
  'invite',
  'invite_code',
  'code',
  'password',
  'secret',
  'key',
  'api_key',
]);

export const REDACTED = '[redacted]';

/**
 * A request URL safe for the log: the values of secret-bearing query parameters are replaced, the
 * path and every other parameter stay as they were (the logged line still shows what was asked).
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const hashStart = url.indexOf('#', queryStart);
  const query = url.slice(queryStart + 1, hashStart < 0 ? undefined : hashStart);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        name = rawName;
      }
      return SECRET_QUERY_PARAMS.has(name.trim().toLowerCase()) && eq >= 0 ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryStart)}?${redacted}${hashStart < 0 ? '' : url.slice(hashStart)}`;
}
