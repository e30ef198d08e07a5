/** Cache-Control values of what the server sends as files. */
export const CACHE_CONTROL = {
  /** Content-hashed build assets: a new build gives new names, so they never change. */
  immutable: 'public, max-age=31536000, immutable',
  /** Files under a fixed name (favicon, uploaded logo): kept an hour, then checked with the ETag. */
  shortRevalidate: 'public, max-age=3600, must-revalidate',
  /** The HTML page: always checked with the server (its ETag answers 304 when nothing changed). */
  revalidate: 'no-cache',
} as const;

/**
 * A conditional GET the cached copy still answers: If-None-Match naming the ETag (weak
 * comparison), or, without If-None-Match, If-Modified-Since not older than the last change.
 */
export function isNotModified(
  headers: { 'if-none-match'?: string | undefined; 'if-modified-since'?: string | undefined },
  etag: string,
  modifiedAt?: Date,
): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const noneMatch = headers['if-none-match'];
  if (noneMatch !== undefined) {
    return noneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
  }
  const since = headers['if-modified-since'];
  if (since === undefined || modifiedAt === undefined) return false;
  const sinceMs = Date.parse(since);
  // HTTP dates have whole seconds.
  return Number.isFinite(sinceMs) && Math.floor(modifiedAt.getTime() / 1000) * 1000 <= sinceMs;
}
