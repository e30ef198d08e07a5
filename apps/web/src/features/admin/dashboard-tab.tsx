/** Replaced by the dashboard tab's implementation. */
export function DashboardTab() {
  return <section aria-label="dashboard" />;
}
