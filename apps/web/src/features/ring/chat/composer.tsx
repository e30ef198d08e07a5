import { Lock, SendHorizontal } from 'lucide-react';
import { useId, useState, type KeyboardEvent } from 'react';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/utils';
import type { KeyringStatus } from '../e2ee/keyring-policy';
import { canSend } from './chat-policy';
import { messageLengthProblem } from './message-text-policy';

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
}) {
  const [text, setText] = useState('');
  const blocked = verifiedKeyChanged.length > 0;
  const ready = keysState === 'active' && !blocked;
  // The keys are in force but a verified member's key changed: the note says why sending stops.
  const blockedNote = blocked && keysState === 'active';
  // Too long: said plainly, never cut silently.
  const tooLong = messageLengthProblem(text);
  const tooLongId = useId();

  const submit = () => {
    if (!ready || tooLong || !canSend(text, sending)) return;
    if (onSend(text)) setText('');
  };

  const handleKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    submit();
  };

  return (
    <div className="border-t border-slate-100 bg-white px-3 pb-[max(0.5rem,env(safe-area-inset-bottom))] pt-3 sm:px-4">
      <form
        className="flex items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <textarea
          aria-label="Message"
          name="message"
          rows={1}
          value={text}
          disabled={!ready}
          placeholder={
            ready ? 'Écrire un message chiffré…' : blocked ? 'Envoi bloqué' : 'Chiffrement pas encore prêt'
          }
          onChange={(event) => setText(event.target.value)}
          onKeyDown={handleKeyDown}
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
