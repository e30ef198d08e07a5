import { RING_FILES_MESSAGES, plainFileSize, type TRingFile } from '@securering/contract';
import { E2eeError, isE2eeError } from '@securering/e2ee';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronRight, FolderPlus, KeyRound, Upload } from 'lucide-react';
import { useCallback, useEffect, useRef, useState, type DragEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { useToast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { apiErrorMessage } from '@/lib/api-error-message';
import { cn } from '@/lib/utils';
import { useRingKeys } from '../e2ee/use-ring-keys';
import { useRingEvent, useRingSocket } from '../realtime/ring-socket';
import { FILE_DRAG_TYPE, FileTable, type FileRow } from './file-table';
import { FILES_QUERY_KEY, filesApi, getFilesQueryOptions } from './files-api';
import {
  META_TEXT,
  type MetaContext,
  type MetaSigner,
  type ReadItem,
  type ReadPage,
  migratePage,
  movedFileBody,
  newFolderBody,
  readPage,
  renamedFileBody,
  renamedFolderBody,
  seenVersionsOf,
} from './files-meta';
import {
  ROOT_LABEL,
  UNREADABLE_NAME,
  fileKindOf,
  nameProblem,
  renameDecision,
  shownListing,
  type VerifiedListing,
} from './files-policy';
import { FolderGrid, type FolderTile } from './folder-grid';
import { MoveDialog, type MoveTarget } from './move-dialog';
import { NameDialog } from './name-dialog';
import { StoragePanel } from './storage-panel';
import { UploadList } from './upload-list';
import { FILES_TEXT, uploadFiles } from './uploads';
import { downloadFailureToast, downloadFile } from './downloads';

/** The folder each Ring's tab showed last, so leaving the tab and coming back keeps it. */
const lastFolder = new Map<string, string>();
const UNKNOWN_STORAGE = { allocated: Number.NaN, used: Number.NaN, remaining: Number.NaN };
const collator = new Intl.Collator('fr', { sensitivity: 'base', numeric: true });
const CONNECTION = RING_FILES_MESSAGES.connectionError;

type DialogState =
  | { kind: 'mkdir' }
  | { kind: 'rename-file'; row: FileRow }
  | { kind: 'move-file'; row: FileRow }
  | { kind: 'rename-folder'; tile: FolderTile }
  | { kind: 'delete-file'; row: FileRow }
  | { kind: 'delete-folder'; tile: FolderTile };

/**
 * "Fichiers du ring" (spec 2 §2 Files tab; issue 12): storage, upload button and drop zone with
 * percentages, folders and breadcrumb, the file table. Everything the server holds is encrypted:
 * names come from each item's signed metadata, checked here (files-meta.ts), contents are decrypted
 * on download, and nothing leaves the page before it is encrypted. Loaded as its own chunk when the tab is first opened.
 */
export default function FilesTab() {
  const keys = useRingKeys();
  const { ringId } = keys;
  const notify = useToast();
  const client = useQueryClient();
  const [folder, setFolderState] = useState(() => lastFolder.get(ringId) ?? '');
  const setFolder = (path: string) => {
    lastFolder.set(ringId, path);
    setFolderState(path);
  };
  const list = useQuery(getFilesQueryOptions(folder));
  const [dialog, setDialog] = useState<DialogState | null>(null);
  const [dialogError, setDialogError] = useState<string | undefined>(undefined);
  const [pending, setPending] = useState(false);
  const [downloading, setDownloading] = useState<ReadonlySet<string>>(new Set());
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const refresh = () => void client.invalidateQueries({ queryKey: FILES_QUERY_KEY });
  // Another member's change (spec: files_changed {ringId, folder}); after a reconnection, events
  // may have been missed.
  useRingEvent('files_changed', refresh);
  // A file size limit changed in the customer space reaches this open room (issue 28).
  useRingEvent('ring_settings_updated', (event) => {
    if (typeof event.updated.max_file_size === 'number') refresh();
  });
  // Touch screens without a mouse have nothing to drag from: no drop zone text there (issue 28).
  const [touchOnly] = useState(
    () =>
      typeof window.matchMedia === 'function' &&
      window.matchMedia('(hover: none) and (pointer: coarse)').matches,
  );
  const { joins } = useRingSocket();
  useEffect(() => {
    if (joins > 1) void client.invalidateQueries({ queryKey: FILES_QUERY_KEY });
  }, [joins, client]);

  const namesKey = keys.namesKey();
  // The page as this browser verified it (signed metadata, issue 27): read again when the list or
  // the keys change; items from before the metadata are migrated by the first member who reads them.
  const [read, setRead] = useState<VerifiedListing<NonNullable<typeof list.data>, ReadPage> | null>(null);
  const keysRef = useRef(keys);
  // Effects run in order: the reading below sees this render's keys.
  useEffect(() => {
    keysRef.current = keys;
  });
  // The epoch each listing was last migrated in (a rotation since: its folders are sealed again).
  const migrated = useRef(new WeakMap<object, number>());
  const hasNamesKey = namesKey !== undefined;
  /** What this browser checks signed metadata with: the keys and verified log of the moment. */
  const metaContext = useCallback((): MetaContext => {
    const current = keysRef.current;
    return {
      ringId,
      namesKey: current.namesKey(),
      epochKey: (epoch) => current.epochKey(epoch),
      signerKeys: (pin) => current.metaSignerKeys(pin),
      versions: seenVersionsOf(ringId),
    };
  }, [ringId]);
  useEffect(() => {
    const data = list.data;
    if (!data) return;
    let cancelled = false;
    const current = keysRef.current;
    void readPage(data, metaContext()).then(async (page) => {
      if (cancelled) return;
      setRead({ data, page, folder });
      const signingKey = current.signingKey;
      if (current.state !== 'active' || !signingKey) return;
      const epochKey = current.currentEpochKey();
      if (!epochKey || migrated.current.get(data) === epochKey.epoch) return;
      migrated.current.set(data, epochKey.epoch);
      const head = current.logHead();
      if (!head) return;
      const changed = await migratePage(data, page, {
        ringId,
        epochKey,
        signer: {
          memberId: current.memberId,
          signingPrivateKey: signingKey,
          pin: { epoch: epochKey.epoch, ...head },
        },
        api: { rename: filesApi.rename, renameFolder: filesApi.renameFolder },
      });
      if (changed > 0) void client.invalidateQueries({ queryKey: FILES_QUERY_KEY });
    });
    return () => {
      cancelled = true;
    };
  }, [list.data, folder, ringId, client, keys.state, keys.currentEpoch, hasNamesKey, metaContext]);
  // Always a listing this browser verified (files-policy: the previous one while a refetch is read).
  const shown = shownListing(read, list.data, folder);
  const page = shown?.page;

  const warningOf = (item: ReadItem | undefined) =>
    item?.status === 'misplaced' ||
    item?.status === 'unverifiable' ||
    item?.status === 'replayed' ||
    item?.status === 'altered'
      ? META_TEXT[item.status]
      : undefined;
  const tiles: FolderTile[] = (shown?.data.folders ?? [])
    .map((f) => {
      const item = page?.folders.get(f.id);
      const warning = warningOf(item);
      return {
        folder: f,
        label: item?.name ?? UNREADABLE_NAME,
        target: item?.status === 'verified' || item?.status === 'legacy',
        ...(warning ? { warning } : {}),
      };
    })
    .sort((a, b) => collator.compare(a.label, b.label));
  const rows: FileRow[] = (shown?.data.files ?? [])
    .map((file: TRingFile): FileRow => {
      const item = page?.files.get(file.id);
      const name = item?.name;
      const warning = warningOf(item);
      return {
        file,
        label: name ?? UNREADABLE_NAME,
        readable: name !== undefined,
        kind: name ? fileKindOf(name) : 'other',
        plainBytes: plainFileSize(file.size_bytes) ?? Number.NaN,
        movable:
          file.can_manage && file.meta !== null && item?.status === 'verified' && Boolean(item.fileKey),
        ...(warning ? { warning } : {}),
      };
    })
    .sort((a, b) => collator.compare(a.label, b.label));
  const crumbs = [
    { path: '', label: ROOT_LABEL },
    ...(shown?.data.trail ?? []).map((f, i) => ({
      path: f.path,
      id: f.id,
      label: page?.trail[i]?.name ?? UNREADABLE_NAME,
    })),
  ].map((crumb, i, all) => ({
    ...crumb,
    id: 'id' in crumb ? crumb.id : '',
    // A file dropped on an ancestor moves there, when the whole trail up to it verified.
    target: i < all.length - 1 && (page?.trail.slice(0, i).every((t) => t.status === 'verified') ?? false),
  }));
  const [crumbOver, setCrumbOver] = useState<string | undefined>(undefined);

  /** The epoch key to write names with (creating the Ring's first key if there is none). */
  const writableEpochKey = () => keys.currentEpochKey() ?? keys.ensureSendableEpoch();
  /**
   * This member signs what it writes in `epoch`, at the log head it verified; locked, or no
   * verified log: the keys are unavailable.
   */
  const signer = (epoch: number): MetaSigner => {
    const head = keys.logHead();
    if (!keys.signingKey || !head) throw new E2eeError('missing_key', 'locked');
    return { memberId: keys.memberId, signingPrivateKey: keys.signingKey, pin: { epoch, ...head } };
  };

  // ---- uploads --------------------------------------------------------------------------------

  const handleFiles = (files: File[]) => {
    // The folder's id is signed into each file's metadata: none before its listing is verified.
    // The button and the input are disabled until then; files dropped meanwhile get a notice.
    if (files.length === 0 || !list.data) return;
    if (!page) {
      notify({ title: FILES_TEXT.folderNotReady, variant: 'info', duration: 5000 });
      return;
    }
    const { storage, max_file_bytes, max_file_size_mb } = list.data;
    void uploadFiles(files, {
      ringId,
      folder,
      folderId: page.folderId,
      signer,
      budget: {
        remainingBytes: storage.remaining,
        maxFileBytes: max_file_bytes,
        maxFileSizeMb: max_file_size_mb,
      },
      ensureSendableEpoch: () => keys.ensureSendableEpoch(),
      onStored: refresh,
      onError: (error) =>
        notify({
          title: error.message || RING_FILES_MESSAGES.uploadError,
          description: error.fileName,
          variant: 'error',
          duration: 8000,
        }),
    }).then((stored) => {
      if (stored > 0) notify({ title: RING_FILES_MESSAGES.uploaded(stored), variant: 'success' });
    });
  };

  const handleDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    handleFiles([...event.dataTransfer.files]);
  };

  // ---- downloads ------------------------------------------------------------------------------

  const handleDownload = async (row: FileRow) => {
    setDownloading((current) => new Set(current).add(row.file.id));
    try {
      await downloadFile(row.file, row.readable ? row.label : 'fichier', {
        ringId,
        epochKey: (epoch) => keys.epochKey(epoch),
        content: page?.files.get(row.file.id)?.content ?? null,
      });
    } catch (error) {
      notify(downloadFailureToast(error));
    } finally {
      setDownloading((current) => {
        const next = new Set(current);
        next.delete(row.file.id);
        return next;
      });
    }
  };

  // ---- names: new folder, renames -------------------------------------------------------------

  const closeDialog = () => {
    setDialog(null);
    setDialogError(undefined);
    setPending(false);
  };

  /** Runs a change: pending state, the spec's toasts, a refresh; the dialog closes on success. */
  const run = async (
    action: () => Promise<{ message: string } | void>,
    failure: { title: string; fallback: string; close?: boolean },
  ) => {
    setPending(true);
    try {
      const answer = await action();
      if (answer) notify({ title: answer.message, variant: 'success' });
      closeDialog();
      refresh();
    } catch (error) {
      // A confirmation has nothing to correct: it closes; a name dialog stays open.
      if (failure.close) closeDialog();
      else setPending(false);
      const description = isE2eeError(error)
        ? FILES_TEXT.keysUnavailable
        : apiErrorMessage(error, failure.fallback, CONNECTION);
      notify({
        title: failure.title,
        ...(description !== failure.title ? { description } : {}),
        variant: 'error',
        duration: 8000,
      });
    }
  };

  const handleMkdir = (value: string) => {
    const name = value.trim();
    const problem = nameProblem(name);
    if (problem) return setDialogError(problem);
    // The parent's id is signed into the folder's metadata: only once its listing is verified.
    if (!page) return setDialogError(FILES_TEXT.folderNotReady);
    const parentId = page.folderId;
    void run(
      async () => {
        const epochKey = await writableEpochKey();
        return filesApi.mkdir(
          await newFolderBody({
            ringId,
            epochKey,
            parentPath: folder,
            parentId,
            name,
            signer: signer(epochKey.epoch),
          }),
        );
      },
      { title: RING_FILES_MESSAGES.folderTitle, fallback: RING_FILES_MESSAGES.mkdirFailed },
    );
  };

  const handleRenameFile = (row: FileRow, value: string) => {
    const decision = renameDecision(row.readable ? row.label : '', value);
    if (!decision.rename) return closeDialog();
    const problem = nameProblem(decision.name);
    if (problem) return setDialogError(problem);
    void run(
      async () => {
        const item = page?.files.get(row.file.id);
        if (!item?.fileKey) throw new E2eeError('missing_key', 'file key');
        const epochKey = await writableEpochKey();
        const answer = await filesApi.rename(
          await renamedFileBody({
            ringId,
            file: row.file,
            read: item,
            name: decision.name,
            folderId: page?.folderId ?? '',
            signer: signer(epochKey.epoch),
          }),
        );
        return { message: answer.changed ? RING_FILES_MESSAGES.renamed : answer.message };
      },
      { title: RING_FILES_MESSAGES.renameFailed, fallback: RING_FILES_MESSAGES.renameFailed },
    );
  };

  const handleRenameFolder = (tile: FolderTile, value: string) => {
    const current = tile.label === UNREADABLE_NAME ? '' : tile.label;
    const decision = renameDecision(current, value);
    if (!decision.rename) return closeDialog();
    const problem = nameProblem(decision.name);
    if (problem) return setDialogError(problem);
    void run(
      async () => {
        const epochKey = await writableEpochKey();
        return filesApi.renameFolder(
          await renamedFolderBody({
            ringId,
            epochKey,
            folder: tile.folder,
            read: page?.folders.get(tile.folder.id),
            parentId: page?.folderId ?? '',
            name: decision.name,
            signer: signer(epochKey.epoch),
          }),
        );
      },
      { title: RING_FILES_MESSAGES.folderTitle, fallback: RING_FILES_MESSAGES.folderRenameFailed },
    );
  };

  const handleMove = (row: FileRow, target: MoveTarget) => {
    if (target.path === row.file.folder) return closeDialog();
    void run(
      async () => {
        const item = page?.files.get(row.file.id);
        if (!item?.fileKey) throw new E2eeError('missing_key', 'file key');
        const epochKey = await writableEpochKey();
        const answer = await filesApi.move(
          await movedFileBody({
            ringId,
            file: row.file,
            read: item,
            folderPath: target.path,
            folderId: target.id,
            signer: signer(epochKey.epoch),
          }),
        );
        return { message: answer.message };
      },
      { title: RING_FILES_MESSAGES.moveFailed, fallback: RING_FILES_MESSAGES.moveFailed, close: true },
    ).finally(refresh);
  };
  /** A file row dropped on a folder tile or a breadcrumb. */
  const handleDropFile = (fileId: string, target: MoveTarget) => {
    const row = rows.find((r) => r.file.id === fileId);
    if (row?.movable) handleMove(row, target);
  };

  const handleDeleteFile = (row: FileRow) =>
    void run(
      async () => {
        await filesApi.delete(row.file.id);
        return { message: RING_FILES_MESSAGES.deleted };
      },
      { title: RING_FILES_MESSAGES.deleteFailed, fallback: RING_FILES_MESSAGES.deleteFailed, close: true },
    );

  const handleDeleteFolder = (tile: FolderTile) =>
    void run(() => filesApi.rmdir(tile.folder.path), {
      title: RING_FILES_MESSAGES.folderTitle,
      fallback: RING_FILES_MESSAGES.folderDeleteFailed,
      close: true,
    });

  // ---- rendering ------------------------------------------------------------------------------

  if (list.error instanceof ApiError && list.error.status === 403) {
    // A plan without file sharing (spec 2 §6): the explanation instead of the tab.
    return (
      <Alert variant="info" title="Partage de fichiers indisponible">
        {list.error.message}
      </Alert>
    );
  }
  if (keys.state === 'locked' || keys.state === 'failed') {
    return (
      <div className="space-y-4">
        <StoragePanel bytes={list.data?.storage ?? UNKNOWN_STORAGE} />
        <Alert variant="info" title="Fichiers chiffrés de bout en bout">
          <p>
            Déverrouillez le chiffrement avec votre phrase secrète pour voir, envoyer et télécharger les
            fichiers.
          </p>
          <Button size="sm" variant="outline" className="mt-2" onClick={keys.openUnlock}>
            <KeyRound aria-hidden /> Déverrouiller
          </Button>
        </Alert>
      </div>
    );
  }

  // Uploads and new folders sign the folder's id: once its listing is verified.
  const ready = page !== undefined;
  return (
    <div className="space-y-4" data-testid="files-tab">
      <StoragePanel bytes={list.data?.storage ?? UNKNOWN_STORAGE} />

      {keys.state === 'waiting_keys' && keys.currentEpoch > 0 ? (
        <Alert variant="info" title="En attente des clés du Ring">
          Les noms et contenus chiffrés avec une clé que vous n’avez pas encore s’afficheront dès qu’un membre
          vous l’aura partagée.
        </Alert>
      ) : null}

      <section
        aria-label="Envoyer des fichiers"
        className={cn(
          'rounded-xl border-2 border-dashed bg-white p-4 transition-colors',
          dragging ? 'border-primary bg-primary/5' : 'border-slate-200',
        )}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
          setDragging(true);
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={handleDrop}
      >
        <div className="flex flex-col items-center gap-3 text-center sm:flex-row sm:text-left">
          <Upload className="size-6 shrink-0 text-primary" aria-hidden />
          <div className="flex-1 text-sm text-slate-600">
            <p>{touchOnly ? 'Choisissez les fichiers à envoyer.' : RING_FILES_MESSAGES.dropZone}</p>
            {list.data ? (
              <p data-testid="max-file-size">
                Taille maximale par fichier&#8239;: {list.data.max_file_size_mb.toLocaleString('fr-FR')}
                &nbsp;Mo
              </p>
            ) : null}
          </div>
          <div className="flex flex-wrap justify-center gap-2">
            <input
              ref={input}
              type="file"
              multiple
              className="sr-only"
              tabIndex={-1}
              aria-label="Fichiers à uploader"
              disabled={!ready}
              onChange={(event) => {
                handleFiles([...(event.target.files ?? [])]);
                event.target.value = '';
              }}
            />
            <Button disabled={!ready} onClick={() => input.current?.click()}>
              <Upload aria-hidden /> Uploader des fichiers
            </Button>
            <Button variant="outline" disabled={!ready} onClick={() => setDialog({ kind: 'mkdir' })}>
              <FolderPlus aria-hidden /> Nouveau dossier
            </Button>
          </div>
        </div>
      </section>

      <UploadList />

      <nav aria-label="Fil d’Ariane">
        <ol className="flex flex-wrap items-center gap-1 text-sm">
          {crumbs.map((crumb, index) => {
            const last = index === crumbs.length - 1;
            return (
              <li key={crumb.path} className="flex items-center gap-1">
                {index > 0 ? <ChevronRight className="size-4 text-slate-400" aria-hidden /> : null}
                {last ? (
                  <span aria-current="page" className="rounded px-1.5 py-0.5 font-semibold text-slate-900">
                    {crumb.label}
                  </span>
                ) : (
                  <button
                    type="button"
                    className={cn(
                      'rounded px-1.5 py-0.5 text-primary hover:bg-slate-100',
                      crumbOver === crumb.path && 'bg-primary/10 ring-2 ring-primary',
                    )}
                    onClick={() => setFolder(crumb.path)}
                    onDragOver={(event) => {
                      if (touchOnly || !crumb.target || !event.dataTransfer.types.includes(FILE_DRAG_TYPE))
                        return;
                      event.preventDefault();
                      event.dataTransfer.dropEffect = 'move';
                      setCrumbOver(crumb.path);
                    }}
                    onDragLeave={() => setCrumbOver(undefined)}
                    onDrop={(event) => {
                      setCrumbOver(undefined);
                      if (touchOnly || !crumb.target) return;
                      event.preventDefault();
                      const fileId = event.dataTransfer.getData(FILE_DRAG_TYPE);
                      if (fileId) handleDropFile(fileId, { path: crumb.path, id: crumb.id });
                    }}
                  >
                    {crumb.label}
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      </nav>

      {list.isPending || (list.data && !shown) ? (
        <Spinner label="Chargement des fichiers…" />
      ) : list.isError ? (
        <Alert
          variant="error"
          title={apiErrorMessage(list.error, RING_FILES_MESSAGES.connectionError, CONNECTION)}
        >
          <div className="mt-2 flex gap-2">
            <Button size="sm" variant="outline" onClick={() => void list.refetch()}>
              Réessayer
            </Button>
            {folder !== '' ? (
              <Button size="sm" variant="outline" onClick={() => setFolder('')}>
                Retour à la racine
              </Button>
            ) : null}
          </div>
        </Alert>
      ) : (
        <>
          <FolderGrid
            tiles={tiles}
            onOpen={(tile) => setFolder(tile.folder.path)}
            onRename={(tile) => setDialog({ kind: 'rename-folder', tile })}
            onDelete={(tile) => setDialog({ kind: 'delete-folder', tile })}
            {...(touchOnly
              ? {}
              : {
                  dragType: FILE_DRAG_TYPE,
                  onDropFile: (tile: FolderTile, fileId: string) =>
                    handleDropFile(fileId, { path: tile.folder.path, id: tile.folder.id }),
                })}
          />
          <FileTable
            rows={rows}
            downloading={downloading}
            onDownload={(row) => void handleDownload(row)}
            onRename={(row) => setDialog({ kind: 'rename-file', row })}
            onMove={(row) => setDialog({ kind: 'move-file', row })}
            onDelete={(row) => setDialog({ kind: 'delete-file', row })}
            draggable={!touchOnly}
          />
        </>
      )}

      {dialog?.kind === 'mkdir' ? (
        <NameDialog
          title="Nouveau dossier"
          label="Nom du dossier"
          submitLabel="Créer"
          pending={pending}
          error={dialogError}
          onSubmit={handleMkdir}
          onClose={closeDialog}
        />
      ) : null}
      {dialog?.kind === 'rename-file' ? (
        <NameDialog
          key={dialog.row.file.id}
          title="Renommer le fichier"
          label="Nouveau nom"
          initial={dialog.row.readable ? dialog.row.label : ''}
          submitLabel="Renommer"
          pending={pending}
          error={dialogError}
          onSubmit={(value) => handleRenameFile(dialog.row, value)}
          onClose={closeDialog}
        />
      ) : null}
      {dialog?.kind === 'move-file' ? (
        <MoveDialog
          key={dialog.row.file.id}
          fileLabel={dialog.row.label}
          currentPath={dialog.row.file.folder}
          context={metaContext}
          pending={pending}
          onSubmit={(target) => handleMove(dialog.row, target)}
          onClose={closeDialog}
        />
      ) : null}
      {dialog?.kind === 'rename-folder' ? (
        <NameDialog
          key={dialog.tile.folder.path}
          title="Renommer le dossier"
          label="Nouveau nom"
          initial={dialog.tile.label === UNREADABLE_NAME ? '' : dialog.tile.label}
          submitLabel="Renommer"
          pending={pending}
          error={dialogError}
          onSubmit={(value) => handleRenameFolder(dialog.tile, value)}
          onClose={closeDialog}
        />
      ) : null}
      <ConfirmDialog
        open={dialog?.kind === 'delete-file'}
        onOpenChange={(open) => (open ? undefined : closeDialog())}
        title={RING_FILES_MESSAGES.confirmDelete}
        description={dialog?.kind === 'delete-file' ? dialog.row.label : undefined}
        confirmLabel="Supprimer"
        pending={pending}
        onConfirm={() => dialog?.kind === 'delete-file' && handleDeleteFile(dialog.row)}
      />
      <ConfirmDialog
        open={dialog?.kind === 'delete-folder'}
        onOpenChange={(open) => (open ? undefined : closeDialog())}
        title={'Supprimer ce dossier\u202f?'}
        description={
          dialog?.kind === 'delete-folder'
            ? `${dialog.tile.label} — seul un dossier vide peut être supprimé.`
            : undefined
        }
        confirmLabel="Supprimer"
        pending={pending}
        onConfirm={() => dialog?.kind === 'delete-folder' && handleDeleteFolder(dialog.tile)}
      />
    </div>
  );
}
