/** Replaced by the payments tab's implementation. */
export function PaymentsTab() {
  return <section aria-label="payments" />;
}
