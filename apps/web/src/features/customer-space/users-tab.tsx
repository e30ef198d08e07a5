import { isInvitationExpired, type TDashboardData, type TRingUser } from '@securering/contract';
import { Copy, Plus, Send, Trash2, UserCheck, UserMinus, UserPlus } from 'lucide-react';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Input, Textarea } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { TableScroll } from '@/components/ui/table-scroll';
import { useToast } from '@/components/ui/toast';
import { useCopyToClipboard } from '@/components/ui/use-copy-to-clipboard';
import { formatRelative } from '@/lib/dates';
import {
  useCreateRing,
  useInviteUser,
  useRemoveUser,
  useResendInvitation,
  useRingUsers,
  useSetUserStatus,
} from './dashboard-api';
import { MEMBER_STATUS_LABELS } from '@/lib/ring-labels';
import { membersSummary } from './seat-counts';

const STATUS_VARIANT = { active: 'success', invited: 'warning', inactive: 'neutral' } as const;

/**
 * "Mes Utilisateurs" of the Ring chosen at the top of /client: Ring creation within the plan,
 * invitations and the users table.
 */
export function UsersTab({
  data,
  ringId,
  ringName,
  onSelectRing,
}: {
  data: TDashboardData;
  ringId: string | undefined;
  ringName: string | undefined;
  onSelectRing: (id: string) => void;
}) {
  const plan = data.subscription!;
  const canCreate = plan.maxRings < 0 || plan.maxRings > data.rings.length;
  return (
    <div className="space-y-6">
      {canCreate ? <CreateRingForm first={data.rings.length === 0} onCreated={onSelectRing} /> : null}
      {ringId ? (
        <>
          <InviteForm
            key={ringId}
            ringId={ringId}
            full={plan.maxUsers > 0 && plan.currentUsers >= plan.maxUsers}
            maxUsers={plan.maxUsers}
          />
          <UsersTable ringId={ringId} ringName={ringName} />
        </>
      ) : null}
    </div>
  );
}

function CreateRingForm({ first, onCreated }: { first: boolean; onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const create = useCreateRing(onCreated);
  const notify = useToast();
  return (
    <Card>
      <CardHeader>
        <CardTitle>{first ? 'Créez votre premier Ring' : 'Créer un nouveau Ring'}</CardTitle>
      </CardHeader>
      <CardContent>
        <form
          noValidate
          className="flex flex-col gap-3 sm:flex-row sm:items-end"
          onSubmit={(event) => {
            event.preventDefault();
            if (!name.trim()) return setProblem('Nom du ring requis');
            setProblem(null);
            create.mutate(name.trim(), {
              onSuccess: (res) => {
                notify({ title: res.message, variant: 'success' });
                setName('');
              },
            });
          }}
        >
          <Field id="ring-name" label="Nom du Ring" error={problem ?? undefined} className="flex-1">
            <Input
              id="ring-name"
              value={name}
              maxLength={80}
              onChange={(e) => setName(e.target.value)}
              placeholder="Équipe produit"
            />
          </Field>
          <Button type="submit" disabled={create.isPending}>
            <Plus aria-hidden /> Créer le Ring
          </Button>
        </form>
        {create.isError ? (
          <Alert variant="error" className="mt-3">
            {create.error.message}
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}

function InviteForm({ ringId, full, maxUsers }: { ringId: string; full: boolean; maxUsers: number }) {
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [lastLink, setLastLink] = useState<string | null>(null);
  const invite = useInviteUser();
  const notify = useToast();
  return (
    <Card>
      <CardHeader>
        <CardTitle>Inviter un utilisateur</CardTitle>
      </CardHeader>
      <CardContent className="space-y-4">
        {full ? (
          <Alert variant="info">
            Votre plan limite à {maxUsers} utilisateurs&#8239;: passez à un plan supérieur pour en inviter
            davantage.
          </Alert>
        ) : null}
        <form
          noValidate
          className="grid gap-4 md:grid-cols-2"
          onSubmit={(event) => {
            event.preventDefault();
            if (!ringId) return setProblem('Aucun ring sélectionné');
            if (!username.trim()) return setProblem('Veuillez entrer un nom d’utilisateur');
            setProblem(null);
            invite.mutate(
              {
                ring_id: ringId,
                username: username.trim(),
                email: email.trim() || null,
                message: message.trim() || null,
              },
              {
                onSuccess: (res) => {
                  notify({ title: res.message, variant: 'success' });
                  setLastLink(res.invite_url);
                  setUsername('');
                  setEmail('');
                  setMessage('');
                },
              },
            );
          }}
        >
          <Field id="invite-username" label="Nom d’utilisateur">
            <Input
              id="invite-username"
              value={username}
              maxLength={40}
              onChange={(e) => setUsername(e.target.value)}
            />
          </Field>
          <Field
            id="invite-email"
            label="Email (facultatif)"
            hint="Un email d’invitation avec le lien sera envoyé."
          >
            <Input id="invite-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
          <Field id="invite-message" label="Message (facultatif)" className="md:col-span-2">
            <Textarea
              id="invite-message"
              rows={2}
              value={message}
              maxLength={1000}
              onChange={(e) => setMessage(e.target.value)}
            />
          </Field>
          <div className="md:col-span-2">
            <Button type="submit" disabled={invite.isPending || full}>
              <UserPlus aria-hidden /> Inviter
            </Button>
          </div>
        </form>
        {problem ? <Alert variant="error">{problem}</Alert> : null}
        {invite.isError ? <Alert variant="error">{invite.error.message}</Alert> : null}
        {lastLink ? (
          <div className="flex flex-wrap items-center gap-2 rounded-lg bg-slate-50 p-3 text-sm">
            <span className="text-slate-600">Lien d’invitation&#8239;:</span>
            <code className="break-all">{lastLink}</code>
            <CopyButton value={lastLink} label="Copier le lien" />
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}

function CopyButton({ value, label }: { value: string; label: string }) {
  const copy = useCopyToClipboard({ title: 'Copié', duration: 2000 }, { title: 'Copie impossible' });
  return (
    <Button variant="ghost" size="sm" aria-label={label} onClick={() => void copy(value)}>
      <Copy aria-hidden />
    </Button>
  );
}

function UsersTable({ ringId, ringName }: { ringId: string; ringName: string | undefined }) {
  const users = useRingUsers(ringId);
  const remove = useRemoveUser();
  const setStatus = useSetUserStatus();
  const resend = useResendInvitation();
  const notify = useToast();
  const handleResend = (user: TRingUser) =>
    resend.mutate(user.id, {
      onSuccess: (res) => notify({ title: res.message, variant: 'success' }),
      onError: (error) =>
        notify({
          title: 'Erreur lors du renvoi de l’invitation',
          description: error.message,
          variant: 'error',
        }),
    });
  const [pending, setPending] = useState<TRingUser | null>(null);
  const [deactivating, setDeactivating] = useState<TRingUser | null>(null);
  const changeStatus = (user: TRingUser, status: 'active' | 'inactive') =>
    setStatus.mutate(
      { user_id: user.id, status },
      {
        onSuccess: (res) => notify({ title: res.message, variant: 'success' }),
        onError: (error) =>
          notify({
            title:
              status === 'inactive' ? 'Erreur lors de la désactivation' : 'Erreur lors de la réactivation',
            description: error.message,
            variant: 'error',
          }),
        onSettled: () => setDeactivating(null),
      },
    );
  return (
    <Card>
      <CardHeader>
        <CardTitle>Utilisateurs du Ring</CardTitle>
        {users.data ? (
          <CardDescription>
            {ringName ? `«\u202f${ringName}\u202f»\u202f: ` : ''}
            {membersSummary(users.data)}
          </CardDescription>
        ) : null}
      </CardHeader>
      <CardContent>
        {users.isPending ? <Spinner /> : null}
        {users.isError ? <Alert variant="error">Erreur lors du chargement des données</Alert> : null}
        {users.data ? (
          <TableScroll label="Tableau des utilisateurs" className="-mx-2 px-2">
            <table className="w-full min-w-[44rem] text-left text-sm">
              <thead className="border-b border-slate-200 text-slate-500">
                <tr>
                  <th className="py-2 pr-4 font-medium">Nom d’utilisateur</th>
                  <th className="py-2 pr-4 font-medium">Email</th>
                  <th className="py-2 pr-4 font-medium">Statut</th>
                  <th className="py-2 pr-4 font-medium">Code d’invitation</th>
                  <th className="py-2 pr-4 font-medium">Utilisé</th>
                  <th className="py-2 pr-4 font-medium">Dernière connexion</th>
                  <th className="py-2 font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {users.data.map((user) => (
                  <tr key={user.id} className="border-b border-slate-100">
                    <td className="py-2 pr-4 font-medium">
                      {user.username}{' '}
                      {user.role === 'owner' ? <Badge variant="neutral">Propriétaire</Badge> : null}
                    </td>
                    <td className="py-2 pr-4">{user.email ?? '—'}</td>
                    <td className="py-2 pr-4">
                      <Badge variant={STATUS_VARIANT[user.status]}>{MEMBER_STATUS_LABELS[user.status]}</Badge>
                      {user.admission === 'waiting' && user.status === 'active' ? (
                        <Badge
                          variant="warning"
                          className="ml-1"
                          title="Un membre doit l’admettre dans le Ring"
                        >
                          En attente d’admission
                        </Badge>
                      ) : null}
                      {user.admission === 'refused' ? (
                        <Badge variant="neutral" className="ml-1">
                          Admission refusée
                        </Badge>
                      ) : null}
                      {isInvitationExpired(user, users.dataUpdatedAt) ? (
                        <Badge
                          variant="danger"
                          className="ml-1"
                          title={'Ce code n’ouvre plus le Ring\u202f: renvoyez l’invitation'}
                        >
                          Invitation expirée
                        </Badge>
                      ) : null}
                    </td>
                    <td className="py-2 pr-4">
                      <span className="font-mono text-xs">{user.inviteCode}</span>
                      <CopyButton value={user.inviteCode} label={`Copier le code de ${user.username}`} />
                    </td>
                    <td className="py-2 pr-4">{user.isUsed ? 'Oui' : 'Non'}</td>
                    <td className="py-2 pr-4">
                      {user.online ? (
                        <Badge variant="success">En ligne</Badge>
                      ) : user.lastSeen ? (
                        formatRelative(user.lastSeen)
                      ) : (
                        'Jamais'
                      )}
                    </td>
                    <td className="py-2 text-right">
                      {!user.isUsed && user.role !== 'owner' ? (
                        <Button
                          variant="outline"
                          size="sm"
                          disabled={resend.isPending}
                          aria-label={`Renvoyer l’invitation de ${user.username}`}
                          onClick={() => handleResend(user)}
                        >
                          <Send aria-hidden /> Renvoyer
                        </Button>
                      ) : null}
                      {!user.isUsed && user.role !== 'owner' ? (
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Supprimer ${user.username}`}
                          onClick={() => setPending(user)}
                        >
                          <Trash2 aria-hidden />
                        </Button>
                      ) : null}
                      {user.isUsed && user.role !== 'owner' && user.status === 'active' ? (
                        <Button variant="outline" size="sm" onClick={() => setDeactivating(user)}>
                          <UserMinus aria-hidden /> Désactiver
                        </Button>
                      ) : null}
                      {user.isUsed && user.role !== 'owner' && user.status === 'inactive' ? (
                        <Button
                          variant="outline"
                          size="sm"
                          disabled={setStatus.isPending}
                          onClick={() => changeStatus(user, 'active')}
                        >
                          <UserCheck aria-hidden /> Réactiver
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : null}
        <ConfirmDialog
          open={deactivating !== null}
          onOpenChange={(open) => !open && setDeactivating(null)}
          title="Désactiver l’utilisateur&#8239;?"
          description={
            deactivating
              ? `«\u202f${deactivating.username}\u202f» perd l’accès au Ring immédiatement\u202f: ses sessions sont fermées et la clé du Ring change avant le prochain message. Vous pourrez le réactiver plus tard.`
              : ''
          }
          confirmLabel="Désactiver"
          pending={setStatus.isPending}
          onConfirm={() => deactivating && changeStatus(deactivating, 'inactive')}
        />
        <ConfirmDialog
          open={pending !== null}
          onOpenChange={(open) => !open && setPending(null)}
          title="Supprimer l’invitation&#8239;?"
          description={
            pending
              ? `L’invitation de «\u202f${pending.username}\u202f» sera supprimée et son code ne fonctionnera plus.`
              : ''
          }
          confirmLabel="Supprimer"
          pending={remove.isPending}
          onConfirm={() => {
            if (!pending) return;
            remove.mutate(pending.id, {
              onSuccess: () => notify({ title: 'Utilisateur supprimé', variant: 'success' }),
              onError: (error) =>
                notify({
                  title: 'Erreur lors de la suppression',
                  description: error.message,
                  variant: 'error',
                }),
              onSettled: () => setPending(null),
            });
          }}
        />
      </CardContent>
    </Card>
  );
}
