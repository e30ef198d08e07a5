import {
  BACKUP_MESSAGES,
  BACKUP_RESTORE_ABORTED_RELOAD_MS,
  BACKUP_RESTORE_RELOAD_MS,
  hasZipExtension,
  type TBackupInfo,
  type TBackupSettingToReenter,
} from '@securering/contract';
import { DatabaseBackup, Download, RefreshCw, RotateCcw, Trash2, Upload } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Alert, LoadError } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { TableScroll } from '@/components/ui/table-scroll';
import { useToast } from '@/components/ui/toast';
import { clearSession } from '@/lib/api-client';
import { useAdminSession } from '@/lib/auth/admin-session';
import { formatDateTimeShort } from '@/lib/dates';
import {
  downloadBackup,
  restoreBackup,
  useBackups,
  useCreateBackup,
  useDeleteBackup,
  useUploadBackup,
} from './backup-api';
import { formatBackupSize } from './backup-format';

/**
 * After a restore every session has ended, this one included. The page reloads on the sign-in
 * form, by itself after a few seconds, or, when secrets must be entered again, once the admin has
 * read which (`seconds` null).
 */
type Reloading = {
  seconds: number | null;
  cut: boolean;
  message: string | null;
  settingsToReenter: TBackupSettingToReenter[];
} | null;

/** Ends the admin session this page still holds (the server has already ended it) and reloads. */
function reloadSignedOut() {
  clearSession('admin');
  window.location.reload();
}

/** The Sauvegarde tab (spec 3 §2.9): create, upload, list, download, restore and delete backups. */
export function BackupTab() {
  const session = useAdminSession();
  const canCreate = session.can('backup', 'create');
  // Archives hold every account and every secret of the service: download and restore are
  // for super admins (the server checks it too).
  const isSuper = session.admin?.role === 'super_admin';
  const canDownload = isSuper;
  const canRestore = isSuper;
  const canDelete = session.can('backup', 'delete');
  const backups = useBackups();
  const create = useCreateBackup();
  const remove = useDeleteBackup();
  const notify = useToast();
  const [toRestore, setToRestore] = useState<TBackupInfo | null>(null);
  const [toDelete, setToDelete] = useState<TBackupInfo | null>(null);
  const [restoring, setRestoring] = useState(false);
  const [reloading, setReloading] = useState<Reloading>(null);
  const [downloading, setDownloading] = useState<string | null>(null);
  const locked = restoring || reloading !== null;

  const handleCreate = () =>
    create.mutate(undefined, {
      onSuccess: (res) =>
        notify({ title: res.message, description: res.backup.filename, variant: 'success' }),
      onError: (error) =>
        notify({ title: BACKUP_MESSAGES.createFailed, description: error.message, variant: 'error' }),
    });

  const handleDownload = async (backup: TBackupInfo) => {
    setDownloading(backup.filename);
    try {
      await downloadBackup(backup.filename);
    } catch (error) {
      notify({
        title: BACKUP_MESSAGES.downloadFailed,
        description: (error as Error).message,
        variant: 'error',
      });
    } finally {
      setDownloading(null);
    }
  };

  const handleRestore = async () => {
    if (!toRestore) return;
    const filename = toRestore.filename;
    setToRestore(null);
    setRestoring(true);
    try {
      const result = await restoreBackup(filename);
      const cut = result.outcome === 'cut';
      const reenter = cut ? [] : result.settingsToReenter;
      const delay = cut ? BACKUP_RESTORE_ABORTED_RELOAD_MS : BACKUP_RESTORE_RELOAD_MS;
      // Secrets to enter again: no automatic reload, the list stays until the admin goes on.
      const waits = reenter.length > 0;
      setReloading({
        seconds: waits ? null : delay / 1000,
        cut,
        message: cut ? null : result.message,
        settingsToReenter: reenter,
      });
      if (!cut) {
        notify({
          title: BACKUP_MESSAGES.restoredSignInAgain,
          ...(waits ? { description: result.message, duration: 60_000 } : {}),
          variant: 'success',
        });
      }
      if (!waits) window.setTimeout(reloadSignedOut, delay);
    } catch (error) {
      notify({
        title: BACKUP_MESSAGES.networkError,
        description: (error as Error).message,
        variant: 'error',
      });
    } finally {
      setRestoring(false);
    }
  };

  const handleDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.filename, {
      onSuccess: (res) => {
        setToDelete(null);
        notify({ title: res.message, variant: 'success' });
      },
      onError: (error) => {
        setToDelete(null);
        notify({ title: BACKUP_MESSAGES.deleteFailed, description: error.message, variant: 'error' });
      },
    });
  };

  return (
    <div className="space-y-6">
      <Card>
        <CardHeader>
          <CardTitle>Sauvegarde</CardTitle>
          <CardDescription>{BACKUP_MESSAGES.description}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          {reloading ? (
            <Alert
              variant={reloading.settingsToReenter.length > 0 ? 'info' : 'success'}
              title={reloading.cut ? 'Restauration lancée' : BACKUP_MESSAGES.restoredSignInAgain}
            >
              <p>
                {reloading.cut
                  ? 'La restauration continue sur le serveur\u202f; elle fermera toutes les sessions, la vôtre comprise.'
                  : 'Toutes les sessions ont été fermées, la vôtre comprise.'}{' '}
                {reloading.seconds !== null
                  ? `La page va se recharger dans ${reloading.seconds} secondes\u202f: reconnectez-vous ensuite.`
                  : null}
              </p>
              {reloading.settingsToReenter.length > 0 ? (
                <>
                  <p className="mt-2">{reloading.message}</p>
                  <Button className="mt-3" size="sm" onClick={reloadSignedOut}>
                    Se reconnecter
                  </Button>
                </>
              ) : null}
            </Alert>
          ) : null}
          {restoring ? <Spinner label="Restauration en cours…" /> : null}
          {canCreate ? (
            <div className="flex flex-wrap items-start gap-6">
              <Button onClick={handleCreate} disabled={create.isPending || locked}>
                {create.isPending ? <Spinner className="size-4" /> : <DatabaseBackup aria-hidden />}
                Créer une sauvegarde
              </Button>
              <UploadForm disabled={locked} />
            </div>
          ) : null}
        </CardContent>
      </Card>

      <Card>
        <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
          <CardTitle>Sauvegardes disponibles</CardTitle>
          <Button
            variant="outline"
            size="sm"
            onClick={() => void backups.refetch()}
            disabled={backups.isFetching}
          >
            <RefreshCw aria-hidden /> Actualiser
          </Button>
        </CardHeader>
        <CardContent>
          {backups.isPending ? <Spinner /> : null}
          {backups.isError ? (
            <LoadError
              title="Erreur"
              message={backups.error.message || BACKUP_MESSAGES.loadFailed}
              onRetry={() => void backups.refetch()}
            />
          ) : null}
          {backups.data && backups.data.length === 0 ? (
            <p className="text-sm text-slate-500">Aucune sauvegarde pour le moment.</p>
          ) : null}
          {backups.data && backups.data.length > 0 ? (
            <TableScroll label="Liste des sauvegardes">
              <table className="w-full text-left text-sm">
                <thead className="border-b border-slate-200 text-slate-500">
                  <tr>
                    <th className="py-2 pr-4 font-medium">Nom</th>
                    <th className="py-2 pr-4 font-medium">Date</th>
                    <th className="py-2 pr-4 font-medium">Taille</th>
                    <th className="py-2 text-right font-medium">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {backups.data.map((backup) => (
                    <tr key={backup.filename} className="border-b border-slate-100">
                      <td className="break-all py-2 pr-4 font-mono text-xs">{backup.filename}</td>
                      <td className="whitespace-nowrap py-2 pr-4">{formatDateTimeShort(backup.date)}</td>
                      <td className="whitespace-nowrap py-2 pr-4">{formatBackupSize(backup.size)}</td>
                      <td className="py-2">
                        <div className="flex justify-end gap-1">
                          {canDownload ? (
                            <Button
                              variant="ghost"
                              size="sm"
                              onClick={() => void handleDownload(backup)}
                              disabled={downloading === backup.filename}
                              aria-label={`Télécharger ${backup.filename}`}
                            >
                              <Download aria-hidden /> Télécharger
                            </Button>
                          ) : null}
                          {canRestore ? (
                            <Button
                              variant="ghost"
                              size="sm"
                              onClick={() => setToRestore(backup)}
                              disabled={locked}
                              aria-label={`Restaurer ${backup.filename}`}
                            >
                              <RotateCcw aria-hidden /> Restaurer
                            </Button>
                          ) : null}
                          {canDelete ? (
                            <Button
                              variant="ghost"
                              size="sm"
                              className="text-red-600 hover:bg-red-50"
                              onClick={() => setToDelete(backup)}
                              disabled={locked}
                              aria-label={`Supprimer ${backup.filename}`}
                            >
                              <Trash2 aria-hidden /> Supprimer
                            </Button>
                          ) : null}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          ) : null}
        </CardContent>
      </Card>

      <ConfirmDialog
        open={toRestore !== null}
        onOpenChange={(open) => !open && setToRestore(null)}
        title="Restaurer cette sauvegarde&#8239;?"
        description={
          toRestore
            ? `Toutes les données actuelles seront remplacées par celles de «\u202f${toRestore.filename}\u202f»\u202f: base de données (clients, abonnements, Rings, messages, paramètres, administrateurs…) et fichiers envoyés (fichiers des Rings, logo, favicon). Les modifications faites depuis cette sauvegarde seront perdues. Toutes les sessions seront fermées, la vôtre comprise\u202f: vous devrez vous reconnecter. Les secrets (mot de passe SMTP, clés des paiements) ne sont restaurés que si la sauvegarde a été chiffrée avec la clé BACKUP_ENCRYPTION_KEY de ce serveur. Cette action est irréversible.`
            : ''
        }
        confirmLabel="Restaurer"
        pending={restoring}
        onConfirm={() => void handleRestore()}
      />
      <ConfirmDialog
        open={toDelete !== null}
        onOpenChange={(open) => !open && setToDelete(null)}
        title="Supprimer cette sauvegarde&#8239;?"
        description={toDelete ? `La sauvegarde «\u202f${toDelete.filename}\u202f» sera supprimée définitivement.` : ''}
        confirmLabel="Supprimer"
        pending={remove.isPending}
        onConfirm={handleDelete}
      />
    </div>
  );
}

/** Upload of a backup archive: .zip only (checked here, and again by the server with the content). */
function UploadForm({ disabled }: { disabled: boolean }) {
  const upload = useUploadBackup();
  const notify = useToast();
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | undefined>();
  // A new key empties the file input after a successful upload.
  const [inputKey, setInputKey] = useState(0);

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setError(BACKUP_MESSAGES.fileRequired);
      return;
    }
    if (!hasZipExtension(file.name)) {
      setError(BACKUP_MESSAGES.zipOnly);
      return;
    }
    setError(undefined);
    upload.mutate(file, {
      onSuccess: (res) => {
        notify({ title: res.message, description: res.backup.filename, variant: 'success' });
        setFile(null);
        setInputKey((k) => k + 1);
      },
      onError: (err) =>
        notify({ title: BACKUP_MESSAGES.uploadFailed, description: err.message, variant: 'error' }),
    });
  };

  return (
    <form onSubmit={handleSubmit} className="flex flex-wrap items-start gap-2" noValidate>
      <Field id="backup-file" label="Importer une sauvegarde (.zip)" error={error} className="min-w-64">
        <Input
          key={inputKey}
          id="backup-file"
          type="file"
          accept=".zip,application/zip"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'backup-file-error' : undefined}
          disabled={disabled || upload.isPending}
          onChange={(event) => {
            const picked = event.target.files?.[0] ?? null;
            setFile(picked);
            setError(picked && !hasZipExtension(picked.name) ? BACKUP_MESSAGES.zipOnly : undefined);
          }}
        />
      </Field>
      {/* Lined up with the input, below the field's label. */}
      <Button type="submit" variant="outline" className="mt-[26px]" disabled={disabled || upload.isPending}>
        {upload.isPending ? <Spinner className="size-4" /> : <Upload aria-hidden />}
        Envoyer
      </Button>
    </form>
  );
}
