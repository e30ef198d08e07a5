/** Replaced by the transactions tab's implementation. */
export function TransactionsTab() {
  return <section aria-label="transactions" />;
}
