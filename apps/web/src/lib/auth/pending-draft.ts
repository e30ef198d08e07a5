/**
 * The message a member was sending when its Ring session expired (issue 28): kept in this tab's
 * memory only — never in storage, where it would sit in clear — and sent once the member signed
 * in again to the same Ring and conversation and its keys are unlocked. Lost if the tab closes.
 */
export interface PendingDraft {
  ringId: string;
  memberId: string;
  conversationId: string;
  text: string;
}

let draft: PendingDraft | null = null;

export function keepPendingDraft(next: PendingDraft): void {
  draft = next;
}

/** The draft for this member's conversation, handed out once. */
export function takePendingDraft(ringId: string, memberId: string, conversationId: string): string | null {
  if (!draft || draft.ringId !== ringId || draft.memberId !== memberId || draft.conversationId !== conversationId)
    return null;
  const { text } = draft;
  draft = null;
  return text;
}

export function hasPendingDraft(): boolean {
  return draft !== null;
}

export function dropPendingDraft(): void {
  draft = null;
}
