/**
 * Plan features arrive as an array, a JSON string of an array, or text split on new lines or '|'
 * (spec 1 §3). All of them become a clean list of lines.
 */
export function parseFeatures(features: unknown): string[] {
  if (Array.isArray(features)) return features.map((f) => String(f).trim()).filter(Boolean);
  if (typeof features !== 'string') return [];
  const text = features.trim();
  if (!text) return [];
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parseFeatures(parsed);
    } catch {
      // Not JSON after all: fall through to line splitting.
    }
  }
  return text
    .split(/\r?\n|\|/)
    .map((line) => line.trim())
    .filter(Boolean);
}
