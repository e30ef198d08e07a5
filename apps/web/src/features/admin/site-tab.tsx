/** Replaced by the site tab's implementation. */
export function SiteTab() {
  return <section aria-label="site" />;
}
