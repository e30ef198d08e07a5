import type { TRingFile } from '@securering/contract';
import { Download, FolderInput, Loader2, Pencil, ShieldAlert, Trash2 } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { formatFileSize } from '@/lib/bytes';
import { formatDateTimeShort } from '@/lib/dates';
import { FileIcon } from './file-icon';
import type { FileKind } from './files-policy';

export interface FileRow {
  file: TRingFile;
  /** Decrypted name, or "Nom illisible". */
  label: string;
  /** Whether the name decrypted (the download is named after it). */
  readable: boolean;
  kind: FileKind;
  /** Plain size (what the member uploaded, not the stored ciphertext). */
  plainBytes: number;
  /** Why its signed metadata does not hold here (moved or swapped by the server), if so. */
  warning?: string;
  /** The member may move it and its signed metadata verified here (« Déplacer », issue 28). */
  movable?: boolean;
}

/** The drag data type of a file row dropped on a folder (its id). */
export const FILE_DRAG_TYPE = 'application/x-securering-file';

/**
 * The folder's files (spec 2 §2): Nom, Taille (of the plain content), Date de modification,
 * Actions — Télécharger for everyone, Renommer, Déplacer and Supprimer where the member may manage
 * the file. On narrow screens size and date move under the name. A movable row can be dragged onto
 * a folder tile or a breadcrumb (desktop; `draggable` off on touch screens).
 */
export function FileTable({
  rows,
  downloading,
  onDownload,
  onRename,
  onMove,
  onDelete,
  draggable = false,
}: {
  rows: FileRow[];
  downloading: ReadonlySet<string>;
  onDownload(row: FileRow): void;
  onRename(row: FileRow): void;
  onMove(row: FileRow): void;
  onDelete(row: FileRow): void;
  draggable?: boolean;
}) {
  if (rows.length === 0) {
    return (
      <p className="rounded-lg border border-dashed border-slate-200 bg-white px-4 py-8 text-center text-sm text-slate-500">
        Aucun fichier
      </p>
    );
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-sm">
        <thead className="whitespace-nowrap bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="w-full px-3 py-2 font-medium">
              Nom
            </th>
            <th scope="col" className="hidden px-3 py-2 font-medium sm:table-cell">
              Taille
            </th>
            <th scope="col" className="hidden px-3 py-2 font-medium md:table-cell">
              Date de modification
            </th>
            <th scope="col" className="px-3 py-2 text-right font-medium">
              Actions
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((row) => {
            const size = formatFileSize(row.plainBytes);
            const date = formatDateTimeShort(row.file.updated_at);
            const busy = downloading.has(row.file.id);
            return (
              <tr
                key={row.file.id}
                aria-label={row.label}
                data-file-id={row.file.id}
                draggable={draggable && row.movable === true}
                className={draggable && row.movable ? 'cursor-grab active:cursor-grabbing' : undefined}
                // The anti-capture layer lets this drag through: it carries the file id only.
                data-internal-drag={draggable && row.movable ? '' : undefined}
                onDragStart={(event) => {
                  event.dataTransfer.clearData();
                  event.dataTransfer.setData(FILE_DRAG_TYPE, row.file.id);
                  event.dataTransfer.effectAllowed = 'move';
                }}
              >
                <td className="w-full max-w-0 px-3 py-2">
                  <div className="flex min-w-0 items-center gap-2">
                    <FileIcon kind={row.kind} />
                    <div className="min-w-0">
                      <p className={row.readable ? 'truncate font-medium' : 'truncate italic text-slate-500'}>
                        {row.label}
                      </p>
                      {row.warning ? (
                        <p
                          role="note"
                          className="flex items-start gap-1 whitespace-normal text-xs text-red-700"
                        >
                          <ShieldAlert className="mt-0.5 size-3.5 shrink-0" aria-hidden />
                          {row.warning}
                        </p>
                      ) : null}
                      <p className="truncate text-xs text-slate-500 md:hidden">
                        <span className="sm:hidden">{size} · </span>
                        {date}
                      </p>
                    </div>
                  </div>
                </td>
                <td className="hidden whitespace-nowrap px-3 py-2 text-slate-600 sm:table-cell">{size}</td>
                <td className="hidden whitespace-nowrap px-3 py-2 text-slate-600 md:table-cell">{date}</td>
                <td className="px-3 py-2">
                  <div className="flex justify-end gap-1">
                    <Button
                      variant="outline"
                      size="sm"
                      disabled={busy}
                      onClick={() => onDownload(row)}
                      title="Télécharger"
                    >
                      {busy ? <Loader2 className="animate-spin" aria-hidden /> : <Download aria-hidden />}
                      <span className="sr-only lg:not-sr-only">Télécharger</span>
                    </Button>
                    {row.file.can_manage ? (
                      <>
                        <Button variant="ghost" size="sm" onClick={() => onRename(row)} title="Renommer">
                          <Pencil aria-hidden />
                          <span className="sr-only lg:not-sr-only">Renommer</span>
                        </Button>
                        {row.movable ? (
                          <Button variant="ghost" size="sm" onClick={() => onMove(row)} title="Déplacer">
                            <FolderInput aria-hidden />
                            <span className="sr-only xl:not-sr-only">Déplacer</span>
                          </Button>
                        ) : null}
                        <Button
                          variant="ghost"
                          size="sm"
                          className="text-red-700 hover:bg-red-50"
                          onClick={() => onDelete(row)}
                          title="Supprimer"
                        >
                          <Trash2 aria-hidden />
                          <span className="sr-only lg:not-sr-only">Supprimer</span>
                        </Button>
                      </>
                    ) : null}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
