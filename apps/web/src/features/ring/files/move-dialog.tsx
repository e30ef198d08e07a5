import { RING_FILES_MESSAGES } from '@securering/contract';
import { useQuery } from '@tanstack/react-query';
import { Folder, Home } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { apiErrorMessage } from '@/lib/api-error-message';
import { cn } from '@/lib/utils';
import { FILES_QUERY_KEY, filesApi } from './files-api';
import { type FolderChoice, type MetaContext, readFolderChoices } from './files-meta';
import { ROOT_LABEL } from './files-policy';

/** Where a file goes: a folder's path and id ("" and "" for the root). */
export interface MoveTarget {
  path: string;
  id: string;
}

/**
 * « Déplacer » (issue 28): the Ring's folders whose signed names and parents this browser
 * verified, as a tree under the root; the file's current folder cannot be chosen.
 */
export function MoveDialog({
  fileLabel,
  currentPath,
  context,
  pending,
  onSubmit,
  onClose,
}: {
  fileLabel: string;
  currentPath: string;
  context(): MetaContext;
  pending: boolean;
  onSubmit(target: MoveTarget): void;
  onClose(): void;
}) {
  const id = useId();
  const folders = useQuery({
    queryKey: [...FILES_QUERY_KEY, '#folders'],
    queryFn: () => filesApi.folders(),
    staleTime: 0,
  });
  const [choices, setChoices] = useState<FolderChoice[] | undefined>(undefined);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!folders.data) return;
    let cancelled = false;
    void readFolderChoices(folders.data.folders, context()).then((list) => {
      if (!cancelled) setChoices(list);
    });
    return () => {
      cancelled = true;
    };
    // The context reads the keys of the moment; the list is read again when the folders change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [folders.data]);
  const targets: Array<MoveTarget & { label: string; depth: number }> = [
    { path: '', id: '', label: ROOT_LABEL, depth: 0 },
    ...(choices ?? []).map((c) => ({
      path: c.folder.path,
      id: c.folder.id,
      label: c.names.at(-1) ?? '',
      depth: c.names.length,
    })),
  ];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const target = targets.find((t) => t.path === selected);
    if (target && !pending) onSubmit({ path: target.path, id: target.id });
  };
  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent>
        <form onSubmit={submit} className="grid gap-4">
          <DialogHeader>
            <DialogTitle>{RING_FILES_MESSAGES.moveTitle}</DialogTitle>
            <DialogDescription>
              Choisissez le dossier où placer «&#8239;{fileLabel}&#8239;».
            </DialogDescription>
          </DialogHeader>
          {folders.isError ? (
            <Alert
              variant="error"
              title={apiErrorMessage(folders.error, RING_FILES_MESSAGES.connectionError)}
            />
          ) : !choices ? (
            <Spinner label="Chargement des dossiers…" />
          ) : (
            <fieldset className="max-h-72 overflow-y-auto rounded-lg border border-slate-200 p-1">
              <legend className="sr-only">Dossier de destination</legend>
              {targets.map((target) => {
                const current = target.path === currentPath;
                const inputId = `${id}-${target.id || 'root'}`;
                return (
                  <label
                    key={target.path}
                    htmlFor={inputId}
                    style={{ paddingLeft: `${0.5 + target.depth * 1.25}rem` }}
                    className={cn(
                      'flex min-w-0 items-center gap-2 rounded px-2 py-1.5 text-sm',
                      current ? 'cursor-not-allowed text-slate-400' : 'cursor-pointer hover:bg-slate-50',
                    )}
                  >
                    <input
                      id={inputId}
                      type="radio"
                      name={`${id}-target`}
                      value={target.path}
                      disabled={current}
                      checked={selected === target.path}
                      onChange={() => setSelected(target.path)}
                    />
                    {target.path === '' ? (
                      <Home className="size-4 shrink-0 text-slate-500" aria-hidden />
                    ) : (
                      <Folder className="size-4 shrink-0 fill-amber-100 text-amber-500" aria-hidden />
                    )}
                    <span className="truncate" title={target.label}>
                      {target.path === '' ? ROOT_LABEL.replace(/^🏠\s*/u, '') : target.label}
                    </span>
                    {current ? <span className="shrink-0 text-xs">(dossier actuel)</span> : null}
                  </label>
                );
              })}
            </fieldset>
          )}
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Annuler
            </Button>
            <Button type="submit" disabled={pending || selected === undefined}>
              Déplacer
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
