/** Saves a blob in the browser through a temporary download link. */
export function saveBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.style.display = 'none';
  document.body.appendChild(link);
  try {
    link.click();
  } finally {
    link.remove();
    // Revoking at once can cancel the save in some browsers; give it time to start.
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
