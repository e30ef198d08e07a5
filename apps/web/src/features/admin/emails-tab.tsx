/** Replaced by the emails tab's implementation. */
export function EmailsTab() {
  return <section aria-label="emails" />;
}
