/** Replaced by the admins tab's implementation. */
export function AdminsTab() {
  return <section aria-label="admins" />;
}
