import {
  ADMIN_ROLE_LABELS,
  ZAdminsListResponse,
  type AdminModule,
  type AdminRole,
  type PermissionType,
  type TAdminPublic,
  type TPermissionEntry,
} from '@securering/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { KeyRound, Pencil, Plus, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import {
  ConfirmDialog,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input, NativeSelect } from '@/components/ui/input';
import { Field, Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { Spinner } from '@/components/ui/spinner';
import { TableScroll } from '@/components/ui/table-scroll';
import { Switch } from '@/components/ui/switch';
import { useToast } from '@/components/ui/toast';
import { ApiError, apiRequest } from '@/lib/api-client';
import { apiErrorMessage } from '@/lib/api-error-message';
import { adminPermissionsQueryOptions, useAdminSession } from '@/lib/auth/admin-session';
import { formatDateTimeShort } from '@/lib/dates';

const adminsKey = ['admin', 'admins'] as const;

/** "Admins": accounts table, create and edit dialogs, per-admin permissions. */
export function AdminsTab() {
  const session = useAdminSession();
  const notify = useToast();
  const client = useQueryClient();
  const admins = useQuery({
    queryKey: adminsKey,
    queryFn: async ({ signal }) =>
      (await apiRequest('/api/admin/users.php', { auth: 'admin', schema: ZAdminsListResponse, signal }))
        .admins,
  });
  const [editing, setEditing] = useState<TAdminPublic | 'new' | null>(null);
  const [permissionsOf, setPermissionsOf] = useState<TAdminPublic | null>(null);
  const [deleting, setDeleting] = useState<TAdminPublic | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) =>
      apiRequest('/api/admin/users.php', { method: 'DELETE', auth: 'admin', body: { id } }),
    onSuccess: () => {
      notify({ title: 'Administrateur supprimé', variant: 'success' });
      void client.invalidateQueries({ queryKey: adminsKey });
    },
    onError: (error) =>
      notify({
        title: 'Erreur',
        description: apiErrorMessage(error, 'Erreur lors de la suppression.'),
        variant: 'error',
      }),
    onSettled: () => setDeleting(null),
  });

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <CardTitle>Administrateurs</CardTitle>
        {session.can('admin_management', 'create') ? (
          <Button onClick={() => setEditing('new')}>
            <Plus aria-hidden /> Nouvel administrateur
          </Button>
        ) : null}
      </CardHeader>
      <CardContent>
        {admins.isPending ? <Spinner /> : null}
        {admins.isError ? <Alert variant="error">Impossible de charger les données.</Alert> : null}
        {admins.data ? (
          <TableScroll label="Liste des administrateurs">
            <table className="w-full text-left text-sm">
              <thead className="border-b border-slate-200 text-slate-500">
                <tr>
                  <th className="py-2 pr-4 font-medium">Nom d’utilisateur</th>
                  <th className="py-2 pr-4 font-medium">Email</th>
                  <th className="py-2 pr-4 font-medium">Rôle</th>
                  <th className="py-2 pr-4 font-medium">Statut</th>
                  <th className="py-2 pr-4 font-medium">Dernière connexion</th>
                  <th className="py-2 font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {admins.data.map((admin) => (
                  <tr key={admin.id} className="border-b border-slate-100">
                    <td className="py-2 pr-4 font-medium">{admin.username}</td>
                    <td className="py-2 pr-4">{admin.email}</td>
                    <td className="py-2 pr-4">{ADMIN_ROLE_LABELS[admin.role]}</td>
                    <td className="py-2 pr-4">
                      {admin.is_active ? (
                        <Badge variant="success">Actif</Badge>
                      ) : (
                        <Badge variant="neutral">Inactif</Badge>
                      )}
                    </td>
                    <td className="py-2 pr-4">
                      {admin.last_login ? formatDateTimeShort(admin.last_login) : 'Jamais'}
                    </td>
                    <td className="py-2 text-right whitespace-nowrap">
                      {session.can('admin_management', 'edit') ? (
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Modifier ${admin.username}`}
                          onClick={() => setEditing(admin)}
                        >
                          <Pencil aria-hidden />
                        </Button>
                      ) : null}
                      {admin.role !== 'super_admin' &&
                      session.can('admin_management', 'edit') &&
                      admin.id !== session.admin?.id ? (
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Permissions de ${admin.username}`}
                          onClick={() => setPermissionsOf(admin)}
                        >
                          <KeyRound aria-hidden />
                        </Button>
                      ) : null}
                      {admin.id !== session.admin?.id && session.can('admin_management', 'delete') ? (
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Supprimer ${admin.username}`}
                          onClick={() => setDeleting(admin)}
                        >
                          <Trash2 aria-hidden />
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : null}
      </CardContent>
      <Dialog open={editing !== null} onOpenChange={(open) => !open && setEditing(null)}>
        {editing ? (
          <AdminForm
            key={editing === 'new' ? 'new' : editing.id}
            admin={editing === 'new' ? null : editing}
            onDone={() => setEditing(null)}
          />
        ) : null}
      </Dialog>
      <Dialog open={permissionsOf !== null} onOpenChange={(open) => !open && setPermissionsOf(null)}>
        {permissionsOf ? (
          <PermissionsDialog
            key={permissionsOf.id}
            admin={permissionsOf}
            onDone={() => setPermissionsOf(null)}
          />
        ) : null}
      </Dialog>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title="Supprimer l’administrateur&#8239;?"
        description={
          deleting ? `Le compte «\u202f${deleting.username}\u202f» sera supprimé et ses sessions fermées.` : ''
        }
        confirmLabel="Supprimer"
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
      />
    </Card>
  );
}

function AdminForm({ admin, onDone }: { admin: TAdminPublic | null; onDone: () => void }) {
  const session = useAdminSession();
  const notify = useToast();
  const client = useQueryClient();
  const [values, setValues] = useState({
    username: admin?.username ?? '',
    email: admin?.email ?? '',
    password: '',
    role: (admin?.role ?? 'admin') as AdminRole,
    is_active: admin?.is_active ?? true,
  });
  const save = useMutation({
    mutationFn: () =>
      apiRequest('/api/admin/users.php', {
        method: admin ? 'PUT' : 'POST',
        auth: 'admin',
        body: admin ? { id: admin.id, ...values, password: values.password || null } : values,
      }),
    onSuccess: () => {
      notify({ title: admin ? 'Administrateur modifié' : 'Administrateur créé', variant: 'success' });
      void client.invalidateQueries({ queryKey: adminsKey });
      onDone();
    },
    onError: (error) =>
      notify({
        title: 'Erreur',
        description: apiErrorMessage(
          error,
          admin ? 'Erreur lors de la modification.' : 'Erreur lors de la création.',
        ),
        variant: 'error',
      }),
  });
  const set = (key: keyof typeof values) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setValues((v) => ({ ...v, [key]: e.target.value }));
  return (
    <DialogContent>
      <DialogHeader>
        <DialogTitle>{admin ? `Modifier ${admin.username}` : 'Nouvel administrateur'}</DialogTitle>
        <DialogDescription>
          {admin
            ? 'Laissez le mot de passe vide pour le conserver.'
            : 'Le compte pourra se connecter à /admin.'}
        </DialogDescription>
      </DialogHeader>
      <form
        className="space-y-4"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Field id="admin-form-username" label="Nom d’utilisateur">
          <Input id="admin-form-username" required value={values.username} onChange={set('username')} />
        </Field>
        <Field id="admin-form-email" label="Email">
          <Input id="admin-form-email" type="email" required value={values.email} onChange={set('email')} />
        </Field>
        <Field
          id="admin-form-password"
          label="Mot de passe"
          hint={
            admin
              ? admin.id === session.admin?.id
                ? 'Vide = inchangé. Un nouveau mot de passe ferme vos autres sessions.'
                : 'Vide = inchangé'
              : '8 caractères minimum'
          }
        >
          <PasswordInput
            id="admin-form-password"
            autoComplete="new-password"
            required={!admin}
            value={values.password}
            onChange={set('password')}
          />
        </Field>
        <Field id="admin-form-role" label="Rôle">
          <NativeSelect id="admin-form-role" value={values.role} onChange={set('role')}>
            <option value="admin">{ADMIN_ROLE_LABELS.admin}</option>
            {session.admin?.role === 'super_admin' ? (
              <option value="super_admin">{ADMIN_ROLE_LABELS.super_admin}</option>
            ) : null}
          </NativeSelect>
        </Field>
        {admin && admin.id !== session.admin?.id ? (
          <div className="flex items-center justify-between">
            <Label htmlFor="admin-form-active">Compte actif</Label>
            <Switch
              id="admin-form-active"
              checked={values.is_active}
              onCheckedChange={(v) => setValues((s) => ({ ...s, is_active: v }))}
            />
          </div>
        ) : null}
        <DialogFooter>
          <Button variant="outline" onClick={onDone}>
            Annuler
          </Button>
          <Button type="submit" disabled={save.isPending}>
            Enregistrer
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  );
}

function PermissionsDialog({ admin, onDone }: { admin: TAdminPublic; onDone: () => void }) {
  const notify = useToast();
  // The editor copies the grid once, so it must start from the server's current grid, never from
  // a cached one that another admin may have changed since.
  const loaded = useQuery({ ...adminPermissionsQueryOptions(admin.id), refetchOnMount: 'always' });
  const fresh = loaded.isFetchedAfterMount && !loaded.isFetching;
  return (
    <DialogContent className="max-w-2xl">
      <DialogHeader>
        <DialogTitle>Permissions de {admin.username}</DialogTitle>
        <DialogDescription>
          Les modifications s’appliquent immédiatement aux sessions ouvertes de cet administrateur.
        </DialogDescription>
      </DialogHeader>
      {!fresh && !loaded.isError ? <Spinner /> : null}
      {loaded.isError ? (
        <Alert variant="error" title="Erreur">
          {loaded.error instanceof ApiError && loaded.error.kind === 'network'
            ? 'Erreur de communication avec le serveur.'
            : 'Impossible de charger les permissions.'}
        </Alert>
      ) : null}
      {fresh && loaded.data ? (
        <PermissionsEditor
          admin={admin}
          initial={loaded.data}
          onSaved={() => {
            notify({ title: 'Permissions mises à jour', variant: 'success' });
            onDone();
          }}
        />
      ) : null}
    </DialogContent>
  );
}

function PermissionsEditor({
  admin,
  initial,
  onSaved,
}: {
  admin: TAdminPublic;
  initial: TPermissionEntry[];
  onSaved: () => void;
}) {
  const notify = useToast();
  const client = useQueryClient();
  const session = useAdminSession();
  const isSuper = session.admin?.role === 'super_admin';
  // An admin grants or withdraws only permissions it holds (the server refuses the others).
  const mayChange = (module: string, type: string) =>
    session.can(module as AdminModule, type as PermissionType);
  const [grid, setGrid] = useState(initial);
  const toggle = (module: string, type: string, granted: boolean) =>
    setGrid((g) =>
      g.map((m) =>
        m.module_name === module
          ? {
              ...m,
              permissions: m.permissions.map((p) => (p.permission_type === type ? { ...p, granted } : p)),
            }
          : m,
      ),
    );
  const toggleModule = (module: string, granted: boolean) =>
    setGrid((g) =>
      g.map((m) =>
        m.module_name === module
          ? {
              ...m,
              permissions: m.permissions.map((p) =>
                mayChange(m.module_name, p.permission_type) ? { ...p, granted } : p,
              ),
            }
          : m,
      ),
    );
  const save = useMutation({
    mutationFn: () =>
      apiRequest('/api/admin/permissions.php', {
        method: 'PUT',
        auth: 'admin',
        body: {
          admin_id: admin.id,
          permissions: grid.flatMap((m) =>
            m.permissions.map((p) => ({
              module_name: m.module_name,
              permission_type: p.permission_type,
              granted: p.granted,
            })),
          ),
        },
      }),
    onSuccess: () => {
      client.setQueryData(adminPermissionsQueryOptions(admin.id).queryKey, grid);
      onSaved();
    },
    onError: (error) =>
      notify({
        title: 'Erreur',
        description: apiErrorMessage(error, 'Erreur lors de la sauvegarde.'),
        variant: 'error',
      }),
  });
  return (
    <>
      {isSuper ? null : (
        <p className="text-sm text-slate-500">
          Vous ne pouvez accorder ou retirer que les permissions que vous détenez vous-même.
        </p>
      )}
      <div className="max-h-[60vh] space-y-3 overflow-y-auto pr-1">
        {grid.map((module) => {
          const all = module.permissions.every((p) => p.granted);
          const noneChangeable = module.permissions.every(
            (p) => !mayChange(module.module_name, p.permission_type),
          );
          return (
            <fieldset key={module.module_name} className="rounded-lg border border-slate-200 p-3">
              <legend className="sr-only">{module.module_label}</legend>
              <div className="flex items-center justify-between">
                <span className="font-medium">{module.module_label}</span>
                <Switch
                  aria-label={`Tout le module ${module.module_label}`}
                  checked={all}
                  disabled={noneChangeable}
                  onCheckedChange={(v) => toggleModule(module.module_name, v)}
                />
              </div>
              <div className="mt-2 flex flex-wrap gap-4">
                {module.permissions.map((p) => {
                  const id = `perm-${module.module_name}-${p.permission_type}`;
                  return (
                    <div key={p.permission_type} className="flex items-center gap-2" title={p.description}>
                      <Checkbox
                        id={id}
                        checked={p.granted}
                        disabled={!mayChange(module.module_name, p.permission_type)}
                        onCheckedChange={(v) => toggle(module.module_name, p.permission_type, v === true)}
                      />
                      <Label htmlFor={id} className="font-normal">
                        {p.permission_label}
                        <span className="sr-only"> — {module.module_label}</span>
                      </Label>
                    </div>
                  );
                })}
              </div>
            </fieldset>
          );
        })}
      </div>
      <DialogFooter>
        <Button onClick={() => save.mutate()} disabled={save.isPending}>
          Enregistrer les permissions
        </Button>
      </DialogFooter>
    </>
  );
}
