import type { TRingRoomUser } from '@securering/contract';
import { Badge } from '@/components/ui/badge';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { formatRelative } from '@/lib/dates';
import { cn } from '@/lib/utils';

const DOT: Record<TRingRoomUser['status'], string> = {
  online: 'bg-emerald-500',
  in_call: 'bg-blue-500',
  offline: 'bg-slate-300',
};
const STATUS_TEXT: Record<TRingRoomUser['status'], string> = {
  online: 'En ligne',
  in_call: 'En appel',
  offline: 'Hors ligne',
};

/** "Utilisateurs du Ring": who is online, the owner badge, last seen. */
export function RingUsersPanel({ users }: { users: TRingRoomUser[] }) {
  const online = users.filter((u) => u.isOnline).length;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Utilisateurs du Ring</CardTitle>
        <p className="text-sm text-slate-500">
          {online} en ligne / {users.length} au total
        </p>
      </CardHeader>
      <CardContent>
        <ul className="space-y-3" aria-label="Membres du Ring">
          {users.map((user) => (
            <li key={user.id} className="flex items-center gap-3" aria-label={user.username}>
              <span
                className="relative flex size-9 shrink-0 items-center justify-center rounded-full bg-primary/10 font-semibold uppercase text-primary"
                aria-hidden
              >
                {user.username.charAt(0)}
                <span
                  className={cn(
                    'absolute -bottom-0.5 -right-0.5 size-3 rounded-full border-2 border-white',
                    DOT[user.status],
                  )}
                />
              </span>
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-1 truncate text-sm font-medium">
                  {user.username}
                  {user.isCurrentUser ? <span className="text-slate-500">(vous)</span> : null}
                  {user.role === 'owner' ? <Badge variant="neutral">Propriétaire</Badge> : null}
                  {user.role === 'admin' ? <Badge variant="neutral">Admin</Badge> : null}
                </p>
                <p className="text-xs text-slate-500">
                  <span className="sr-only">{STATUS_TEXT[user.status]}. </span>
                  {user.status === 'in_call'
                    ? 'En appel'
                    : user.isOnline
                      ? 'En ligne'
                      : user.lastSeen
                        ? `Vu ${formatRelative(user.lastSeen)}`
                        : 'Jamais connecté'}
                </p>
              </div>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}
