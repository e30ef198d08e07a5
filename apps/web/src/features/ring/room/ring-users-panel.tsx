import { dmConversationId, type TRingRoomUser } from '@securering/contract';
import {
  AlertTriangle,
  BadgeCheck,
  KeyRound,
  MessageCircle,
  Phone,
  QrCode,
  UserCog,
  Video,
} from 'lucide-react';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { formatRelative } from '@/lib/relative-time';
import { cn } from '@/lib/utils';
import { callTitle } from '../calls/call-policy';
import { useCallActions } from '../calls/room-calls';
import { useChat } from '../chat/chat-provider';
import type { MemberSafety } from '../e2ee/keyring';
import { useRingKeys } from '../e2ee/use-ring-keys';
import { shownPresence, type ShownPresence } from '../realtime/presence-policy';
import { useRingSocket } from '../realtime/ring-socket';
import { MembershipLogNotices } from './admission';
import { MemberMenu, MemberMenuItem } from './member-menu';

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
 * "Utilisateurs du Ring": who is online, the owner badge, last seen, one line per member (issue 28:
 * avatar, name, status) with a « ⋯ » menu holding the member's safety number ("Numéro de sécurité",
 * as this browser computed it from the published keys), "Message privé à …" (any member), the
 * call actions (calls/room-calls.tsx), « Marquer … comme vérifié » and the owner's role changes.
 * What needs someone's decision (a newcomer to admit, a changed key to confirm, a member to
 * reactivate) stays visible under the row. The list scrolls within its panel (50 members).
 */
export function RingUsersPanel({ users, className }: { users: TRingRoomUser[]; className?: string }) {
  const keys = useRingKeys();
  const chat = useChat();
  const selfId = chat.info.user.id;
  const online = users.filter((u) => u.isOnline).length;
  // Redis down: the server sees only its own sockets, so presence is unknown (issue 26).
  const { realtimeMode } = useRingSocket();
  const outOfLog = (id: string) => keys.waiting.includes(id) || keys.reactivatable.includes(id);
  return (
    <Card className={className}>
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
        <ul
          className="relative -mx-2 divide-y divide-slate-100 lg:max-h-[min(60vh,36rem)] lg:overflow-y-auto"
          aria-label="Membres du Ring"
          data-testid="member-list"
        >
          {users.map((user) => (
            <MemberRow
              key={user.id}
              user={user}
              presence={shownPresence(user, realtimeMode)}
              self={user.isCurrentUser || user.id === selfId}
              outOfLog={outOfLog(user.id)}
            />
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

/** One member: a single line (avatar, name and badges, status, unread count, « ⋯ »). */
function MemberRow({
  user,
  presence,
  self,
  outOfLog,
}: {
  user: TRingRoomUser;
  presence: ShownPresence;
  self: boolean;
  outOfLog: boolean;
}) {
  const keys = useRingKeys();
  const chat = useChat();
  const calls = useCallActions(user);
  const [menuOpen, setMenuOpen] = useState(false);
  const [dialog, setDialog] = useState<'verify' | 'qr' | null>(null);
  const closeMenu = () => setMenuOpen(false);
  const safety = keys.safety.get(user.id);
  const unread = self ? 0 : chat.unreadOf(dmConversationId(chat.info.user.id, user.id));
  const trusted = safety?.trust === 'trusted' && safety.logFingerprint ? safety.logFingerprint : null;
  const waiting = keys.waiting.includes(user.id) && !user.isCurrentUser;
  const reactivatable = keys.reactivatable.includes(user.id) && !user.isCurrentUser;

  const items: ReactNode[] = [];
  const item = (key: string, icon: ReactNode, label: string, onSelect: () => void) =>
    items.push(
      <MemberMenuItem key={key} icon={icon} onSelect={onSelect} onClose={closeMenu}>
        {label}
      </MemberMenuItem>,
    );
  // Nothing can be encrypted for a member the log does not count in (yet). Online or not (issue 29):
  // the message is stored and reaches the member when it comes back.
  if (!self && !outOfLog)
    item('dm', <MessageCircle aria-hidden />, `Message privé à ${user.username}`, () => chat.openDm(user));
  if (!outOfLog && calls?.voice)
    item('voice', <Phone aria-hidden />, callTitle(true, user.username), () => calls.handleCall(true));
  if (!outOfLog && calls?.video)
    item('video', <Video aria-hidden />, callTitle(false, user.username), () => calls.handleCall(false));
  if (!self && trusted && safety?.verification === 'verified')
    item(
      'unverify',
      <BadgeCheck aria-hidden />,
      `Retirer la vérification de ${user.username}`,
      () => void keys.unmarkVerified(user.id),
    );
  else if (!self && trusted)
    item('verify', <BadgeCheck aria-hidden />, `Marquer ${user.username} comme vérifié`, () =>
      setDialog('verify'),
    );
  if (keys.isLogOwner && !user.isCurrentUser && user.role !== 'owner' && safety?.trust === 'trusted')
    item(
      'role',
      <UserCog aria-hidden />,
      user.role === 'admin'
        ? `Retirer le rôle d’admin à ${user.username}`
        : `Nommer ${user.username} admin du Ring`,
      () => void keys.setRole(user.id, user.role === 'admin' ? 'member' : 'admin'),
    );
  if (user.isCurrentUser && safety) {
    item('qr', <QrCode aria-hidden />, 'Afficher mon code QR', () => setDialog('qr'));
    item('reset', <KeyRound aria-hidden />, 'Réinitialiser mes clés', keys.resetKeys);
  }

  return (
    <li
      className="flex flex-wrap items-center gap-x-3 gap-y-1 px-2 py-2"
      aria-label={user.username}
      data-member-row
    >
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
        <p className="flex min-w-0 items-center gap-1 text-sm font-medium">
          <span className="truncate">{user.username}</span>
          {user.isCurrentUser ? <span className="shrink-0 text-slate-500">(vous)</span> : null}
        </p>
        {/* The status, then the role and « Vérifié »: the name keeps the first line to itself. */}
        <div className="flex min-w-0 items-center gap-1.5">
          <p className="truncate text-xs text-slate-500">
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
          {user.role === 'owner' ? (
            <Badge variant="neutral" className="shrink-0 px-1.5 py-0 text-[11px]">
              Propriétaire
            </Badge>
          ) : null}
          {user.role === 'admin' ? (
            <Badge variant="neutral" className="shrink-0 px-1.5 py-0 text-[11px]">
              Admin
            </Badge>
          ) : null}
          {safety?.verification === 'verified' ? (
            <Badge
              variant="success"
              className="shrink-0 px-1.5 py-0 text-[11px]"
              data-testid="verified-badge"
            >
              <BadgeCheck className="size-3" aria-hidden /> Vérifié
            </Badge>
          ) : null}
        </div>
      </div>
      {unread > 0 ? (
        <Badge variant="solid" className="shrink-0" data-testid="dm-unread">
          {unread} non lu{unread > 1 ? 's' : ''}
        </Badge>
      ) : null}
      <MemberMenu
        username={user.username}
        open={menuOpen}
        onOpenChange={setMenuOpen}
        header={
          safety ? (
            <p>
              <KeyRound className="mr-1 inline size-3" aria-hidden />
              Numéro de sécurité&#8239;:
              <span className="block font-mono tracking-tight text-slate-700" data-testid="safety-number">
                {safety.fingerprint}
              </span>
            </p>
          ) : (
            <p className="text-slate-400">Clés de chiffrement pas encore créées</p>
          )
        }
      >
        {items.length > 0 ? items : <p className="px-2 py-1.5 text-xs text-slate-400">Aucune action</p>}
      </MemberMenu>
      {waiting ||
      reactivatable ||
      (safety && (safety.trust === 'changed' || safety.verification === 'changed')) ? (
        <div className="ml-12 basis-full">
          {waiting ? (
            <Suspense fallback={null}>
              <AdmissionControls user={user} safety={safety} />
            </Suspense>
          ) : reactivatable ? (
            <Suspense fallback={null}>
              <ReactivationControls user={user} />
            </Suspense>
          ) : safety ? (
            <KeyAttention user={user} safety={safety} onCompare={() => setDialog('verify')} />
          ) : null}
        </div>
      ) : null}
      <Suspense fallback={null}>
        {dialog === 'verify' && trusted ? (
          <VerifyMemberDialog
            user={user}
            fingerprint={trusted}
            open
            onOpenChange={(open) => setDialog(open ? 'verify' : null)}
          />
        ) : null}
        {dialog === 'qr' && safety ? (
          <MyQrDialog
            fingerprint={safety.fingerprint}
            open
            onOpenChange={(open) => setDialog(open ? 'qr' : null)}
          />
        ) : null}
      </Suspense>
    </li>
  );
}

/**
 * What a changed key asks of this person, under the member's row: the owner and Ring admins confirm
 * a new key (signed in the membership log, bound to the number shown), others wait for them; a key
 * this person had verified that changed since is compared again.
 */
function KeyAttention({
  user,
  safety,
  onCompare,
}: {
  user: TRingRoomUser;
  safety: MemberSafety;
  onCompare: () => void;
}) {
  const keys = useRingKeys();
  const [confirming, setConfirming] = useState(false);
  if (safety.trust === 'changed') {
    return (
      <KeyWarning
        title={
          user.isCurrentUser
            ? 'Vos nouvelles clés attendent d’être confirmées dans le journal des membres.'
            : `Le numéro de sécurité de ${user.username} a changé`
        }
      >
        {user.isCurrentUser ? null : keys.mayAdmit ? (
          <>
            <p>
              Vérifiez-le avec {user.username} par un autre moyen avant de confirmer&#8239;: rien ne lui est
              partagé d’ici là.
            </p>
            <p className="font-mono tracking-tight">{safety.fingerprint}</p>
            <Button
              size="sm"
              variant="outline"
              className="h-auto whitespace-normal py-1.5 text-left"
              disabled={confirming}
              onClick={() => {
                setConfirming(true);
                void keys.confirmKey(user.id, safety.fingerprint).finally(() => setConfirming(false));
              }}
            >
              Confirmer la nouvelle clé de {user.username}
            </Button>
          </>
        ) : (
          <p>
            Le propriétaire ou un admin du Ring doit confirmer sa nouvelle clé&#8239;: rien ne lui est partagé
            d’ici là.
          </p>
        )}
      </KeyWarning>
    );
  }
  if (user.isCurrentUser || safety.verification !== 'changed' || !safety.logFingerprint) return null;
  return (
    <KeyWarning title={`Le numéro de sécurité de ${user.username}, que vous aviez vérifié, a changé.`}>
      <p>Vos messages ne partent plus tant que vous ne l’avez pas comparé de nouveau avec lui.</p>
      <Button size="sm" variant="link" className="h-auto px-0 text-xs" onClick={onCompare}>
        Marquer {user.username} comme vérifié
      </Button>
    </KeyWarning>
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
