/** Replaced by the plans tab's implementation. */
export function PlansTab() {
  return <section aria-label="plans" />;
}
