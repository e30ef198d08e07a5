import { Suspense, lazy } from 'react';

// Their own chunks (the file space's upload and download paths come with them): fetched with the
// first attachment shown or sent.
const AttachmentCard = lazy(() => import('./attachment-card'));
const AttachmentUploads = lazy(() => import('./attachment-uploads'));

/** An attachment message's card (issue 29), loaded on first display. */
export function LazyAttachmentCard({ text }: { text: string }) {
  return (
    <Suspense fallback={<span className="italic opacity-70">Pièce jointe…</span>}>
      <AttachmentCard text={text} />
    </Suspense>
  );
}

let attachmentsStarted = false;

/**
 * Whether this tab sent an attachment (then its progress list is shown, and stays shown when the
 * conversation's panel mounts again); `start` notes that it did.
 */
export function attachmentsUsed(start = false): boolean {
  if (start) attachmentsStarted = true;
  return attachmentsStarted;
}

/** The conversation's attachments on their way, once one was sent from this tab. */
export function LazyAttachmentUploads({ conversationId, note }: { conversationId: string; note?: string }) {
  return (
    <Suspense fallback={null}>
      <AttachmentUploads conversationId={conversationId} {...(note ? { note } : {})} />
    </Suspense>
  );
}
