import type { ProtectionLevel } from '@securering/contract';

/** A piece of message text: plain text, or a link detected in it. */
export type TextSegment = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

// http(s):// or www. followed by anything but spaces and angle brackets/quotes.
const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"]+/gi;
// Punctuation that ends a sentence rather than a URL.
const TRAILING = /[.,;:!?'»)\]}]+$/;

/** Drops the sentence punctuation after a URL, keeping closing brackets the URL opened itself. */
function trimTrailing(raw: string): string {
  let url = raw;
  for (;;) {
    const match = TRAILING.exec(url);
    if (!match) return url;
    const last = url.at(-1) as string;
    const open = last === ')' ? '(' : last === ']' ? '[' : last === '}' ? '{' : null;
    if (open && url.split(open).length > url.split(last).length - 1) return url;
    url = url.slice(0, -1);
  }
}

/**
 * Splits message text into text and links (http, https and www. addresses only: never
 * `javascript:` or any other scheme), with the sentence punctuation after a URL left as text.
 * Nothing is fetched: a link is only shown, and opened when the reader asks.
 */
export function linkify(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const url = trimTrailing(match[0]);
    const start = match.index;
    const href = /^www\./i.test(url) ? `https://${url}` : url;
    let parsed: URL;
    try {
      parsed = new URL(href);
    } catch {
      continue;
    }
    if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || !parsed.hostname.includes('.'))
      continue;
    if (start > last) segments.push({ kind: 'text', text: text.slice(last, start) });
    segments.push({ kind: 'link', text: url, href: parsed.href });
    last = start + url.length;
  }
  if (last < text.length) segments.push({ kind: 'text', text: text.slice(last) });
  return segments;
}

/** The host a link leads to when it leaves this site (null when it stays on `origin`). */
export function externalHost(href: string, origin: string): string | null {
  try {
    const url = new URL(href);
    return url.origin === origin ? null : url.hostname;
  } catch {
    return null;
  }
}

/** Past this many characters, a message shows its start and « Afficher plus ». */
export const COLLAPSE_AFTER_CHARS = 1500;

/**
 * The start of a long message, as segments: at most `max` characters of text (cut on code points,
 * so an emoji is never split), a link that starts before the cut kept whole; null when short.
 */
export function collapseSegments(
  segments: readonly TextSegment[],
  max = COLLAPSE_AFTER_CHARS,
): TextSegment[] | null {
  if (segments.reduce((n, s) => n + s.text.length, 0) <= max) return null;
  const shown: TextSegment[] = [];
  let left = max;
  for (const segment of segments) {
    if (left <= 0) break;
    if (segment.kind === 'link' || segment.text.length <= left) {
      shown.push(segment);
      left -= segment.text.length;
      continue;
    }
    shown.push({ kind: 'text', text: `${Array.from(segment.text).slice(0, left).join('').trimEnd()}…` });
    left = 0;
  }
  return shown;
}

/**
 * What the Ring's protection level lets a reader do with message text: select and copy it freely,
 * except at the strict level (maximum), where selection is blocked and a « Copier » action on each
 * message is the one way to copy (a deliberate act rather than a stray selection).
 */
export function messageTextAccess(level: ProtectionLevel): { selectable: boolean; copyAction: boolean } {
  const strict = level === 'maximum';
  return { selectable: !strict, copyAction: strict };
}

/**
 * Longest message the box takes, in UTF-16 units: at most 60,000 UTF-8 bytes, so it always fits
 * the encrypted envelope (MAX_MESSAGE_BYTES in @securering/e2ee).
 */
export const MESSAGE_MAX_CHARS = 20_000;

/** The French message shown instead of silently cutting a text that is too long (null: fine). */
export function messageLengthProblem(text: string, max = MESSAGE_MAX_CHARS): string | null {
  if (text.length <= max) return null;
  const n = (value: number) => value.toLocaleString('fr-FR');
  return `Message trop long\u202f: ${n(text.length)} caractères pour ${n(max)} au maximum. Raccourcissez-le ou envoyez-le en plusieurs fois.`;
}
