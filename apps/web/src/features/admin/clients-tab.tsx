import { ADMIN_CUSTOMER_MESSAGES, formatMoney, type TAdminCustomer } from '@securering/contract';
import { ChevronLeft, ChevronRight, Eye, Pencil, Radio, Search, Trash2, UserPlus, X } from 'lucide-react';
import { useState } from 'react';
import { LoadError } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { TableScroll } from '@/components/ui/table-scroll';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api-error-message';
import { useAdminSession } from '@/lib/auth/admin-session';
import { formatDateLong } from '@/lib/dates';
import { useAdminCustomers, useDeleteCustomer } from './clients-api';
import { CustomerEditor, type EditorTarget } from './clients-editor';
import { customerName, statusBadge } from './clients-labels';

const M = ADMIN_CUSTOMER_MESSAGES;

/** Back office "Clients" tab (spec 3 §2.4): the customers list, the edit card and deletion. */
export function ClientsTab() {
  const session = useAdminSession();
  const notify = useToast();
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<EditorTarget | null>(null);
  const [toDelete, setToDelete] = useState<TAdminCustomer | null>(null);
  const customers = useAdminCustomers(search, page);
  const remove = useDeleteCustomer();

  const canCreate = session.can('client_users', 'create');
  const canEdit = session.can('client_users', 'edit');
  const canDelete = session.can('client_users', 'delete');

  const total = customers.data?.meta.total ?? 0;
  const perPage = customers.data?.meta.per_page ?? 25;
  const pages = Math.max(1, Math.ceil(total / perPage));

  const comingSoon = (what: string) =>
    notify({ title: M.comingSoon, description: `${what} sera bientôt disponible.`, variant: 'info' });

  const applySearch = (value: string) => {
    setSearch(value.trim());
    setPage(1);
  };

  return (
    <div className="space-y-6">
      {editing ? (
        <CustomerEditor
          key={editing.kind === 'edit' ? editing.customer.id : 'new'}
          target={editing}
          onClose={() => setEditing(null)}
          onSaved={(customer) => setEditing({ kind: 'edit', customer })}
        />
      ) : null}

      <Card>
        <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
          <div className="space-y-1.5">
            <CardTitle>Gestion des clients</CardTitle>
            <CardDescription>
              {customers.data
                ? `${total} client${total > 1 ? 's' : ''}`
                : 'Comptes clients, abonnements et paiements'}
            </CardDescription>
          </div>
          {canCreate ? (
            <Button onClick={() => setEditing({ kind: 'create' })}>
              <UserPlus aria-hidden /> Nouveau client
            </Button>
          ) : null}
        </CardHeader>
        <CardContent className="space-y-4">
          <form
            role="search"
            className="flex flex-wrap items-end gap-2"
            onSubmit={(event) => {
              event.preventDefault();
              applySearch(draft);
            }}
          >
            <div className="min-w-64 flex-1 space-y-1.5">
              <Label htmlFor="clients-search">Rechercher</Label>
              <Input
                id="clients-search"
                type="search"
                value={draft}
                maxLength={200}
                placeholder="Email, nom, prénom ou entreprise"
                onChange={(e) => setDraft(e.target.value)}
              />
            </div>
            <Button type="submit" variant="secondary">
              <Search aria-hidden /> Rechercher
            </Button>
            {search ? (
              <Button
                type="button"
                variant="ghost"
                onClick={() => {
                  setDraft('');
                  applySearch('');
                }}
              >
                <X aria-hidden /> Effacer
              </Button>
            ) : null}
          </form>

          {customers.isPending ? <Spinner label="Chargement des clients…" /> : null}
          {customers.isError ? (
            <LoadError
              message={apiErrorMessage(
                customers.error,
                'Impossible de charger les données.',
                M.connectionError,
              )}
              onRetry={() => void customers.refetch()}
              refreshIcon
            />
          ) : null}

          {customers.data ? (
            customers.data.data.length === 0 ? (
              <p className="py-6 text-center text-sm text-slate-500">
                {search ? `Aucun client ne correspond à «\u202f${search}\u202f».` : 'Aucun client pour le moment.'}
              </p>
            ) : (
              <TableScroll label="Liste des clients">
                <table className="w-full text-left text-sm" aria-busy={customers.isFetching}>
                  <thead className="border-b border-slate-200 text-slate-500">
                    <tr>
                      <th className="py-2 pr-4 font-medium">Client</th>
                      <th className="py-2 pr-4 font-medium">Entreprise</th>
                      <th className="py-2 pr-4 font-medium">Plan</th>
                      <th className="py-2 pr-4 font-medium">Statut</th>
                      <th className="py-2 pr-4 text-right font-medium">Rings</th>
                      <th className="py-2 pr-4 text-right font-medium">Total dépensé</th>
                      <th className="py-2 pr-4 font-medium">Inscription</th>
                      <th className="py-2 text-right font-medium">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {customers.data.data.map((customer) => {
                      const badge = statusBadge(customer.status);
                      const name = customerName(customer);
                      return (
                        <tr key={customer.id} className="border-b border-slate-100 align-top">
                          <td className="py-2 pr-4">
                            <p className="font-medium">{name}</p>
                            <p className="text-slate-500">{customer.email}</p>
                          </td>
                          <td className="py-2 pr-4">{customer.company || '—'}</td>
                          <td className="py-2 pr-4">{customer.current_plan ?? '—'}</td>
                          <td className="py-2 pr-4">
                            <div className="flex flex-wrap gap-1">
                              <Badge variant={badge.tone}>{badge.label}</Badge>
                              {!customer.is_active ? <Badge variant="danger">Compte désactivé</Badge> : null}
                              {!customer.email_verified ? (
                                <Badge variant="neutral">Email non vérifié</Badge>
                              ) : null}
                            </div>
                          </td>
                          <td className="py-2 pr-4 text-right">{customer.rings_count}</td>
                          <td className="py-2 pr-4 text-right whitespace-nowrap">
                            {formatMoney(customer.total_spent, 'EUR')}
                          </td>
                          <td className="py-2 pr-4 whitespace-nowrap">
                            {formatDateLong(customer.created_at)}
                          </td>
                          <td className="py-2">
                            <div className="flex justify-end gap-1">
                              <Button
                                variant="ghost"
                                size="sm"
                                aria-label={`Voir ${name}`}
                                title="Voir"
                                onClick={() => comingSoon('La fiche détaillée du client')}
                              >
                                <Eye aria-hidden />
                              </Button>
                              {canEdit ? (
                                <Button
                                  variant="ghost"
                                  size="sm"
                                  aria-label={`Modifier ${name}`}
                                  title="Modifier"
                                  onClick={() => setEditing({ kind: 'edit', customer })}
                                >
                                  <Pencil aria-hidden />
                                </Button>
                              ) : null}
                              <Button
                                variant="ghost"
                                size="sm"
                                aria-label={`Rings de ${name}`}
                                title="Rings"
                                onClick={() => comingSoon('La gestion des Rings du client')}
                              >
                                <Radio aria-hidden />
                              </Button>
                              {canDelete ? (
                                <Button
                                  variant="ghost"
                                  size="sm"
                                  className="text-red-600 hover:bg-red-50"
                                  aria-label={`Supprimer ${name}`}
                                  title="Supprimer"
                                  onClick={() => setToDelete(customer)}
                                >
                                  <Trash2 aria-hidden />
                                </Button>
                              ) : null}
                            </div>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </TableScroll>
            )
          ) : null}

          {customers.data && total > 0 ? (
            <nav aria-label="Pagination des clients" className="flex items-center justify-between gap-2">
              <Button
                variant="outline"
                size="sm"
                disabled={page <= 1}
                onClick={() => setPage((p) => Math.max(1, p - 1))}
              >
                <ChevronLeft aria-hidden /> Précédent
              </Button>
              <span className="text-sm text-slate-600">
                Page {Math.min(page, pages)} / {pages}
              </span>
              <Button
                variant="outline"
                size="sm"
                disabled={page >= pages}
                onClick={() => setPage((p) => Math.min(pages, p + 1))}
              >
                Suivant <ChevronRight aria-hidden />
              </Button>
            </nav>
          ) : null}
        </CardContent>
      </Card>

      <ConfirmDialog
        open={toDelete !== null}
        onOpenChange={(open) => {
          if (!open && !remove.isPending) setToDelete(null);
        }}
        title="Supprimer le client&#8239;?"
        description={
          toDelete
            ? `Le client «\u202f${customerName(toDelete)}\u202f» (${toDelete.email}) sera supprimé, ainsi que tous ses Rings (${toDelete.rings_count}) avec leurs membres, messages et fichiers, ses abonnements et ses paiements. Cette action est irréversible.`
            : ''
        }
        confirmLabel="Supprimer définitivement"
        pending={remove.isPending}
        onConfirm={() => {
          if (!toDelete) return;
          const target = toDelete;
          remove.mutate(target.id, {
            onSuccess: (res) => {
              notify({ title: res.message, variant: 'success' });
              if (editing?.kind === 'edit' && editing.customer.id === target.id) setEditing(null);
              // The last customer of the last page went: step back a page.
              if (customers.data?.data.length === 1 && page > 1) setPage(page - 1);
            },
            onError: (error) =>
              notify({
                title: 'Erreur',
                description: apiErrorMessage(error, 'Erreur lors de la suppression.', M.connectionError),
                variant: 'error',
              }),
            onSettled: () => setToDelete(null),
          });
        }}
      />
    </div>
  );
}
