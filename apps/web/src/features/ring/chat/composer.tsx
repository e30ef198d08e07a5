import { Lock, Paperclip, SendHorizontal } from 'lucide-react';
import {
  lazy,
  Suspense,
  useId,
  useRef,
  useState,
  type ClipboardEvent,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/utils';
import type { KeyringStatus } from '../e2ee/keyring-policy';
import { canSend } from './chat-policy';
import { messageLengthProblem } from './message-text-policy';
import type { MentionKeyHandler } from './mention-suggestions';

const MentionSuggestions = lazy(() =>
  import('./mention-suggestions').then((m) => ({ default: m.MentionSuggestions })),
);

const NOTES: Record<KeyringStatus, string> = {
  active: 'Les messages sont chiffrés de bout en bout\u202f: seuls leurs destinataires peuvent les lire.',
  waiting_keys:
    'Envoi impossible pour l’instant\u202f: en attente de la clé du Ring, qu’un membre en ligne vous transmet automatiquement.',
  locked: 'Envoi impossible\u202f: saisissez votre phrase secrète pour déverrouiller le chiffrement.',
  failed: 'Envoi impossible\u202f: le déverrouillage a échoué, saisissez de nouveau votre phrase secrète.',
};
const DM_NOTE = 'Message privé chiffré de bout en bout\u202f: seuls vous deux pouvez le lire.';
/** Waiting for keys because no member admitted this one yet (issue 24): nobody sends it keys before. */
const ADMISSION_NOTE = 'Envoi impossible pour l’instant\u202f: un membre du Ring doit d’abord vous admettre.';

/** Why sending stops when a member this person verified has other keys now (issue 24). */
export function verifiedKeyChangedNote(names: readonly string[]): string {
  const who =
    names.length === 1 ? `de ${names[0]}` : `de ${names.slice(0, -1).join(', ')} et ${names.at(-1)}`;
  return `Envoi bloqué\u202f: le numéro de sécurité ${who}, que vous aviez vérifié, a changé. Comparez le nouveau numéro avec la personne puis marquez-la de nouveau comme vérifiée dans «\u202fUtilisateurs du Ring\u202f».`;
}

/**
 * The message box: a textbox named "Message" and "Envoyer". Enter sends, Shift+Enter adds a line;
 * blank text and a send while one is in progress are ignored (spec 2 §5). The footer note claims
 * end-to-end encryption only when this tab holds the Ring's key, and says why sending waits
 * otherwise.
 */
export function Composer({
  keysState,
  waitingForAdmission = false,
  keyPendingNote,
  verifiedKeyChanged = [],
  sending,
  privateConversation,
  onSend,
  onAttach,
  attachNote,
  banner,
  prefill,
  members = [],
}: {
  keysState: KeyringStatus;
  /** The member is not admitted yet (or its new keys not confirmed): its keys wait for that. */
  waitingForAdmission?: boolean;
  /** Its new keys wait for confirmation: the note says by whom (replaces the admission note). */
  keyPendingNote?: string | undefined;
  /** Names of verified members whose keys changed: sending waits until they are compared again. */
  verifiedKeyChanged?: readonly string[];
  sending: boolean;
  privateConversation: boolean;
  /** Returns true when the message was taken (the box then empties). */
  onSend: (text: string) => boolean;
  /** Files chosen with the paperclip or pasted in the box (issue 29); none: no paperclip. */
  onAttach?: ((files: File[]) => void) | undefined;
  /** Who can read the files attached here (the paperclip's title). */
  attachNote?: string | undefined;
  /** Above the box: the reply or edit being prepared, with « Annuler » (issue 29). */
  banner?: ReactNode;
  /** Text the box starts from (an edit), applied once per key. */
  prefill?: { key: string; text: string } | undefined;
  /** Ring members the « @ » autocomplete offers (issue 29). */
  members?: ReadonlyArray<{ id: string; username: string }>;
}) {
  const fileInput = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const box = useRef<HTMLTextAreaElement>(null);
  // The « @ » list, loaded once an « @ » is typed, sees the keys first while it is open.
  const mentionKeys = useRef<MentionKeyHandler | null>(null);
  // An edit starts from the message's text (once per message edited).
  const [prefilled, setPrefilled] = useState<string | undefined>(undefined);
  if (prefill && prefill.key !== prefilled) {
    setPrefilled(prefill.key);
    setText(prefill.text);
  } else if (!prefill && prefilled !== undefined) {
    setPrefilled(undefined);
  }
  const blocked = verifiedKeyChanged.length > 0;
  const ready = keysState === 'active' && !blocked;
  // The keys are in force but a verified member's key changed: the note says why sending stops.
  const blockedNote = blocked && keysState === 'active';
  // Too long: said plainly, never cut silently.
  const tooLong = messageLengthProblem(text);
  const tooLongId = useId();
  const mentionListId = useId();

  const submit = () => {
    if (!ready || tooLong || !canSend(text, sending)) return;
    if (onSend(text)) setText('');
  };

  // A pasted image or file becomes an attachment; pasted text stays text.
  const handlePaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = [...event.clipboardData.files];
    if (!onAttach || !ready || files.length === 0) return;
    event.preventDefault();
    onAttach(files);
  };

  const pickMention = (next: string, at: number) => {
    setText(next);
    setCaret(at);
    requestAnimationFrame(() => {
      box.current?.focus();
      box.current?.setSelectionRange(at, at);
    });
  };

  const handleKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mentionKeys.current?.(event)) return;
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    submit();
  };

  return (
    <div className="relative border-t border-slate-100 bg-white px-3 pb-[max(0.5rem,env(safe-area-inset-bottom))] pt-3 sm:px-4">
      {banner}
      {members.length > 0 && text.includes('@') ? (
        <Suspense fallback={null}>
          <MentionSuggestions
            id={mentionListId}
            text={text}
            caret={caret}
            members={members}
            box={box}
            keysRef={mentionKeys}
            onPick={pickMention}
          />
        </Suspense>
      ) : null}
      <form
        className="flex items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        {onAttach ? (
          <>
            <input
              ref={fileInput}
              type="file"
              multiple
              className="sr-only"
              tabIndex={-1}
              aria-label="Fichiers à joindre"
              onChange={(event) => {
                const files = [...(event.target.files ?? [])];
                event.target.value = '';
                if (files.length > 0) onAttach(files);
              }}
            />
            <Button
              type="button"
              variant="ghost"
              size="icon"
              disabled={!ready}
              aria-label="Joindre un fichier"
              title={attachNote}
              onClick={() => fileInput.current?.click()}
            >
              <Paperclip aria-hidden />
            </Button>
          </>
        ) : null}
        <textarea
          aria-label="Message"
          name="message"
          rows={1}
          value={text}
          disabled={!ready}
          placeholder={
            ready ? 'Écrire un message chiffré…' : blocked ? 'Envoi bloqué' : 'Chiffrement pas encore prêt'
          }
          ref={box}
          onChange={(event) => {
            setText(event.target.value);
            setCaret(event.target.selectionStart);
          }}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          aria-autocomplete={members.length > 0 ? 'list' : undefined}
          onKeyDown={handleKeyDown}
          onPaste={handlePaste}
          aria-invalid={tooLong ? true : undefined}
          aria-describedby={tooLong ? tooLongId : undefined}
          className={cn(
            'max-h-40 min-h-10 flex-1 resize-none select-text rounded-md border border-slate-300 bg-white px-3 py-2 text-sm',
            'focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-primary/30 disabled:bg-slate-50',
            'field-sizing-content',
          )}
        />
        <Button type="submit" disabled={!ready || sending || tooLong !== null || text.trim() === ''}>
          <SendHorizontal aria-hidden /> Envoyer
        </Button>
      </form>
      {tooLong ? (
        <p id={tooLongId} role="alert" className="mt-2 text-xs text-red-700">
          {tooLong}
        </p>
      ) : null}
      <p
        className={cn(
          'mt-2 flex items-start gap-1.5 text-xs',
          blockedNote ? 'text-amber-800' : 'text-slate-500',
        )}
        data-testid="chat-footer-note"
        role={blockedNote ? 'alert' : undefined}
      >
        <Lock className="mt-0.5 size-3 shrink-0" aria-hidden />
        {blockedNote
          ? verifiedKeyChangedNote(verifiedKeyChanged)
          : ready && privateConversation
            ? DM_NOTE
            : keysState === 'waiting_keys' && waitingForAdmission
              ? (keyPendingNote ?? ADMISSION_NOTE)
              : NOTES[keysState]}
      </p>
    </div>
  );
}
