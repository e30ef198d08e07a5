/** Replaced by the clients tab's implementation. */
export function ClientsTab() {
  return <section aria-label="clients" />;
}
