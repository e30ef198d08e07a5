/** Replaced by the logs tab's implementation. */
export function LogsTab() {
  return <section aria-label="logs" />;
}
