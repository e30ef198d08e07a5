/** The encodings the server writes: brotli, else gzip. */
export type ContentEncoding = 'br' | 'gzip';

/** Accept-Encoding values already parsed: browsers send a handful (bounded: any client may send any). */
const PICKED = new Map<string, ContentEncoding | undefined>();
const PICKED_MAX = 64;

/** The encoding to answer with for an Accept-Encoding header: br, else gzip, else none. */
export function pickEncoding(header: string | string[] | undefined): ContentEncoding | undefined {
  if (Array.isArray(header)) header = header.join(',');
  if (!header) return undefined;
  if (PICKED.has(header)) return PICKED.get(header);
  const picked = parseAcceptEncoding(header);
  if (PICKED.size < PICKED_MAX) PICKED.set(header, picked);
  return picked;
}

function parseAcceptEncoding(header: string): ContentEncoding | undefined {
  const quality = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    quality.set(name, Number.isFinite(value) ? value : 0);
  }
  const of = (name: string) => quality.get(name) ?? quality.get('*') ?? 0;
  const br = of('br');
  const gzip = of('gzip');
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return undefined;
}
