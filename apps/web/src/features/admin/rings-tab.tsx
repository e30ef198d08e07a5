/** Replaced by the rings tab's implementation. */
export function RingsTab() {
  return <section aria-label="rings" />;
}
