/**
 * The absolute form of `candidate` when it points at the site's own origin (scheme, host and
 * port of `siteUrl`), otherwise undefined. URLs are parsed, not compared as text: with a site at
 * `https://site.fr`, `https://site.fr.evil.com` and `https://site.fr@evil.com` are refused. A path
 * such as `/client` is read relative to the site; credentials and non-http(s) schemes are refused.
 */
export function sameOriginUrl(candidate: string | undefined | null, siteUrl: string): string | undefined {
  if (!candidate) return undefined;
  let site: URL;
  let url: URL;
  try {
    site = new URL(siteUrl);
    url = new URL(candidate, site);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  return url.origin === site.origin ? url.href : undefined;
}
