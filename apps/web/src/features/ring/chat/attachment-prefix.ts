/**
 * The one piece of attachment messages (issue 29) the room needs before any attachment is shown:
 * the reserved prefix that marks one, and the line a notice or preview shows for it. The codec
 * (attachment-message.ts) and the card load lazily with the first attachment.
 */

/** The first characters of an attachment message's plaintext (a control character nobody types). */
export const ATTACHMENT_PREFIX = '\u0001file\u0001';

/** Whether a decrypted text is an attachment message (the card checks the rest). */
export function isAttachmentText(text: string): boolean {
  return text.startsWith(ATTACHMENT_PREFIX);
}

/** « Pièce jointe : rapport.pdf » for a notice or a preview; null for any other text. */
export function attachmentSummary(text: string): string | null {
  if (!isAttachmentText(text)) return null;
  let name = '';
  try {
    const body = JSON.parse(text.slice(ATTACHMENT_PREFIX.length)) as { name?: unknown };
    if (typeof body.name === 'string') name = body.name.slice(0, 255);
  } catch {
    // A malformed entry: the generic line.
  }
  return name === '' ? 'Pièce jointe' : `Pièce jointe\u202f: ${name}`;
}
