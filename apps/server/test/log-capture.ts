/** A log destination for buildTestApp({ logStream }) that keeps every line, for asserting on the log. */
export function captureLog(): { stream: { write(line: string): void }; text(): string } {
  const lines: string[] = [];
  return {
    stream: { write: (line: string) => void lines.push(line) },
    text: () => lines.join(''),
  };
}
