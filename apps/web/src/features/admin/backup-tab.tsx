/** Replaced by the backup tab's implementation. */
export function BackupTab() {
  return <section aria-label="backup" />;
}
