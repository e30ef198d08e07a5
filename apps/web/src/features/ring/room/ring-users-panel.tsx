import { dmConversationId, type TRingRoomUser } from '@securering/contract';
import { AlertTriangle, BadgeCheck, KeyRound, MessageCircle } from 'lucide-react';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { formatRelative } from '@/lib/dates';
import { cn } from '@/lib/utils';
import { CallButtons } from '../calls/room-calls';
import { useChat } from '../chat/chat-provider';
import type { MemberSafety } from '../e2ee/keyring';
import { useRingKeys } from '../e2ee/use-ring-keys';
import { shownPresence, type ShownPresence } from '../realtime/presence-policy';
import { useRingSocket } from '../realtime/ring-socket';
import { MembershipLogNotices } from './admission';

// Loaded when first opened.
const VerifyMemberDialog = lazy(() =>
  import('./verify-member-dialog').then((m) => ({ default: m.VerifyMemberDialog })),
);
// Only owners and Ring admins see these, and only for a newcomer waiting or a member deactivated.
const AdmissionControls = lazy(() =>
  import('./admission-controls').then((m) => ({ default: m.AdmissionControls })),
);
const ReactivationControls = lazy(() =>
  import('./admission-controls').then((m) => ({ default: m.ReactivationControls })),
);
const MyQrDialog = lazy(() => import('./verify-member-dialog').then((m) => ({ default: m.MyQrDialog })));

const DOT: Record<ShownPresence, string> = {
  online: 'bg-emerald-500',
  in_call: 'bg-blue-500',
  offline: 'bg-slate-300',
  unknown: 'bg-amber-300',
};
const STATUS_TEXT: Record<ShownPresence, string> = {
  online: 'En ligne',
  in_call: 'En appel',
  offline: 'Hors ligne',
  unknown: 'Statut inconnu',
};

/**
 * "Utilisateurs du Ring": who is online, the owner badge, last seen, each member's safety number
 * ("Numéro de sécurité") as this browser computed it from the published keys (with a warning when a
 * known member's key changed), and for every other online member "Message privé à …" (the DM popup)
 * with the unread count of that conversation, and the call buttons (calls/room-calls.tsx).
 */
export function RingUsersPanel({ users }: { users: TRingRoomUser[] }) {
  const keys = useRingKeys();
  const chat = useChat();
  const selfId = chat.info.user.id;
  const online = users.filter((u) => u.isOnline).length;
  // Redis down: the server sees only its own sockets, so presence is unknown (issue 26).
  const { realtimeMode } = useRingSocket();
  const outOfLog = (id: string) => keys.waiting.includes(id) || keys.reactivatable.includes(id);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Utilisateurs du Ring</CardTitle>
        <p className="text-sm text-slate-500">
          {realtimeMode === 'polling'
            ? `Présence momentanément inconnue / ${users.length} au total`
            : `${online} en ligne / ${users.length} au total`}
        </p>
      </CardHeader>
      <CardContent className="space-y-3">
        <MembershipLogNotices />
        <ul className="space-y-3" aria-label="Membres du Ring">
          {users.map((user) => {
            const presence = shownPresence(user, realtimeMode);
            return (
              <li key={user.id} className="flex items-start gap-3" aria-label={user.username}>
                <span
                  className="relative flex size-9 shrink-0 items-center justify-center rounded-full bg-primary/10 font-semibold uppercase text-primary"
                  aria-hidden
                >
                  {user.username.charAt(0)}
                  <span
                    className={cn(
                      'absolute -bottom-0.5 -right-0.5 size-3 rounded-full border-2 border-white',
                      DOT[presence],
                    )}
                  />
                </span>
                <div className="min-w-0 flex-1">
                  <p className="flex flex-wrap items-center gap-1 truncate text-sm font-medium">
                    {user.username}
                    {user.isCurrentUser ? <span className="text-slate-500">(vous)</span> : null}
                    {user.role === 'owner' ? <Badge variant="neutral">Propriétaire</Badge> : null}
                    {user.role === 'admin' ? <Badge variant="neutral">Admin</Badge> : null}
                    {keys.safety.get(user.id)?.verification === 'verified' ? (
                      <Badge variant="success" data-testid="verified-badge">
                        <BadgeCheck className="size-3" aria-hidden /> Vérifié
                      </Badge>
                    ) : null}
                  </p>
                  <p className="text-xs text-slate-500">
                    <span className="sr-only">{STATUS_TEXT[presence]}. </span>
                    {presence === 'unknown'
                      ? STATUS_TEXT.unknown
                      : user.status === 'in_call'
                        ? 'En appel'
                        : user.isOnline
                          ? 'En ligne'
                          : user.lastSeen
                            ? `Vu ${formatRelative(user.lastSeen)}`
                            : 'Jamais connecté'}
                  </p>
                  {user.isCurrentUser || user.id === selfId ? null : outOfLog(user.id) ? null : (
                    <DirectMessage
                      user={user}
                      unread={chat.unreadOf(dmConversationId(selfId, user.id))}
                      onOpen={() => chat.openDm(user)}
                    />
                  )}
                  {/* Nothing can be encrypted for a member the log does not count in (yet). */}
                  {outOfLog(user.id) ? null : <CallButtons user={user} />}
                  {keys.waiting.includes(user.id) && !user.isCurrentUser ? (
                    <Suspense fallback={null}>
                      <AdmissionControls user={user} safety={keys.safety.get(user.id)} />
                    </Suspense>
                  ) : keys.reactivatable.includes(user.id) && !user.isCurrentUser ? (
                    <Suspense fallback={null}>
                      <ReactivationControls user={user} />
                    </Suspense>
                  ) : (
                    <SafetyNumber
                      user={user}
                      safety={keys.safety.get(user.id)}
                      mayConfirm={keys.mayAdmit}
                      onConfirm={(fingerprint) => keys.confirmKey(user.id, fingerprint)}
                      onReset={keys.resetKeys}
                    />
                  )}
                  {keys.isLogOwner &&
                  !user.isCurrentUser &&
                  user.role !== 'owner' &&
                  keys.safety.get(user.id)?.trust === 'trusted' ? (
                    <RoleButton user={user} />
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      </CardContent>
    </Card>
  );
}

/**
 * The DM button (online members only, spec 2 §2/§6) and the conversation's unread count (shown even
 * when the member went offline).
 */
function DirectMessage({
  user,
  unread,
  onOpen,
}: {
  user: TRingRoomUser;
  unread: number;
  onOpen: () => void;
}) {
  if (!user.isOnline && unread === 0) return null;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-2">
      {user.isOnline ? (
        <Button variant="outline" size="sm" className="h-7 px-2 text-xs" onClick={onOpen}>
          <MessageCircle aria-hidden /> Message privé à {user.username}
        </Button>
      ) : null}
      {unread > 0 ? (
        <Badge variant="solid" data-testid="dm-unread">
          {unread} non lu{unread > 1 ? 's' : ''}
        </Badge>
      ) : null}
    </div>
  );
}

/**
 * A member's safety number, or the warning that it changed: the owner and Ring admins confirm the
 * new key (signed in the membership log, bound to the number shown), others wait for them.
 */
function SafetyNumber({
  user,
  safety,
  mayConfirm,
  onConfirm,
  onReset,
}: {
  user: TRingRoomUser;
  safety: MemberSafety | undefined;
  mayConfirm: boolean;
  onConfirm: (fingerprint: string) => Promise<boolean>;
  onReset: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [showQr, setShowQr] = useState(false);
  if (!safety) {
    return <p className="mt-1 text-xs text-slate-400">Clés de chiffrement pas encore créées</p>;
  }
  return (
    <div className="mt-1 space-y-1">
      <p className="text-xs text-slate-500">
        <KeyRound className="mr-1 inline size-3" aria-hidden />
        Numéro de sécurité&#8239;:
        <span className="block font-mono tracking-tight text-slate-700" data-testid="safety-number">
          {safety.fingerprint}
        </span>
      </p>
      {safety.trust === 'changed' ? (
        <KeyWarning
          title={
            user.isCurrentUser
              ? 'Vos nouvelles clés attendent d’être confirmées dans le journal des membres.'
              : `Le numéro de sécurité de ${user.username} a changé`
          }
        >
          {user.isCurrentUser ? null : mayConfirm ? (
            <>
              <p>
                Vérifiez-le avec {user.username} par un autre moyen avant de confirmer&#8239;: rien ne lui est
                partagé d’ici là.
              </p>
              <Button
                size="sm"
                variant="outline"
                className="h-auto whitespace-normal py-1.5 text-left"
                disabled={confirming}
                onClick={() => {
                  setConfirming(true);
                  void onConfirm(safety.fingerprint).finally(() => setConfirming(false));
                }}
              >
                Confirmer la nouvelle clé de {user.username}
              </Button>
            </>
          ) : (
            <p>
              Le propriétaire ou un admin du Ring doit confirmer sa nouvelle clé&#8239;: rien ne lui est
              partagé d’ici là.
            </p>
          )}
        </KeyWarning>
      ) : null}
      {user.isCurrentUser ? (
        <div className="flex flex-wrap gap-x-3">
          <Button size="sm" variant="link" className="h-auto px-0 text-xs" onClick={() => setShowQr(true)}>
            Afficher mon code QR
          </Button>
          <Button size="sm" variant="link" className="h-auto px-0 text-xs" onClick={onReset}>
            Réinitialiser mes clés
          </Button>
          <Suspense fallback={null}>
            {showQr ? (
              <MyQrDialog fingerprint={safety.fingerprint} open={showQr} onOpenChange={setShowQr} />
            ) : null}
          </Suspense>
        </div>
      ) : safety.trust === 'trusted' && safety.logFingerprint ? (
        <Verification user={user} safety={safety} fingerprint={safety.logFingerprint} />
      ) : null}
    </div>
  );
}

/** A member's key changed (in the log, or since this person verified it): what to do about it. */
function KeyWarning({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div
      role="alert"
      className="space-y-1 rounded-md border border-amber-200 bg-amber-50 p-2 text-xs text-amber-900"
    >
      <p className="flex items-start gap-1 font-medium">
        <AlertTriangle className="mt-0.5 size-3 shrink-0" aria-hidden />
        {title}
      </p>
      {children}
    </div>
  );
}

/**
 * « Vérifié » (issue 24): this person compares a member's safety number with the member and marks
 * it; if the log later names other keys for the member, sending stops until compared again.
 */
function Verification({
  user,
  safety,
  fingerprint,
}: {
  user: TRingRoomUser;
  safety: MemberSafety;
  fingerprint: string;
}) {
  const keys = useRingKeys();
  const [open, setOpen] = useState(false);
  const mark = (
    <Button size="sm" variant="link" className="h-auto px-0 text-xs" onClick={() => setOpen(true)}>
      Marquer {user.username} comme vérifié
    </Button>
  );
  return (
    <>
      {safety.verification === 'changed' ? (
        <KeyWarning title={`Le numéro de sécurité de ${user.username}, que vous aviez vérifié, a changé.`}>
          <p>Vos messages ne partent plus tant que vous ne l’avez pas comparé de nouveau avec lui.</p>
          {mark}
        </KeyWarning>
      ) : safety.verification === 'verified' ? (
        <Button
          size="sm"
          variant="link"
          className="h-auto px-0 text-xs text-slate-500"
          onClick={() => void keys.unmarkVerified(user.id)}
        >
          Retirer la vérification de {user.username}
        </Button>
      ) : (
        mark
      )}
      <Suspense fallback={null}>
        {open ? (
          <VerifyMemberDialog user={user} fingerprint={fingerprint} open={open} onOpenChange={setOpen} />
        ) : null}
      </Suspense>
    </>
  );
}

/**
 * The owner names a member Ring admin (who may then admit newcomers and confirm key changes) or
 * takes the role back: a link of the Ring's signed membership log.
 */
function RoleButton({ user }: { user: TRingRoomUser }) {
  const keys = useRingKeys();
  const [busy, setBusy] = useState(false);
  const next = user.role === 'admin' ? 'member' : 'admin';
  return (
    <Button
      size="sm"
      variant="link"
      className="h-auto px-0 text-xs"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        void keys.setRole(user.id, next).finally(() => setBusy(false));
      }}
    >
      {next === 'admin'
        ? `Nommer ${user.username} admin du Ring`
        : `Retirer le rôle d’admin à ${user.username}`}
    </Button>
  );
}
