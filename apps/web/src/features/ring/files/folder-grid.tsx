import { RING_FILES_MESSAGES, type TRingFolder } from '@securering/contract';
import { EllipsisVertical, Folder, FolderOpen, Pencil, ShieldAlert, Trash2 } from 'lucide-react';
import { useState } from 'react';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';

export interface FolderTile {
  folder: TRingFolder;
  /** Decrypted name, or "Nom illisible". */
  label: string;
  /** Why its signed metadata does not hold here (moved or swapped by the server), if so. */
  warning?: string;
  /** Its signed name and parent verified here: a file may be moved into it. */
  target?: boolean;
}

/**
 * The current folder's subfolders as tiles (spec 2 §2): a click (or Enter) opens one (issue 28: a
 * single click, as in every file manager on the web); its menu offers Ouvrir, and Renommer and
 * Supprimer where the member may manage it — Supprimer disabled, with the reason, while the folder
 * holds anything. A long name is cut with an ellipsis, in full in the tooltip and on focus. A file
 * row dropped on a verified tile is moved into it (`onDropFile`, issue 28).
 */
export function FolderGrid({
  tiles,
  onOpen,
  onRename,
  onDelete,
  dragType,
  onDropFile,
}: {
  tiles: FolderTile[];
  onOpen(tile: FolderTile): void;
  onRename(tile: FolderTile): void;
  onDelete(tile: FolderTile): void;
  /** The drag data type of a file row (file-table's FILE_DRAG_TYPE). */
  dragType?: string;
  onDropFile?(tile: FolderTile, fileId: string): void;
}) {
  const [over, setOver] = useState<string | undefined>(undefined);
  if (tiles.length === 0) return null;
  const accepts = (tile: FolderTile, types: readonly string[]) =>
    tile.target === true && dragType !== undefined && onDropFile !== undefined && types.includes(dragType);
  return (
    <ul aria-label="Dossiers" className="grid grid-cols-2 gap-3 sm:grid-cols-3 xl:grid-cols-4">
      {tiles.map((tile) => (
        <li
          key={tile.folder.path}
          aria-label={tile.label}
          className={
            over === tile.folder.id
              ? 'flex min-w-0 items-center gap-1 rounded-lg border-2 border-primary bg-primary/5 p-2'
              : 'flex min-w-0 items-center gap-1 rounded-lg border border-slate-200 bg-white p-2 transition-colors hover:border-primary/40 hover:bg-slate-50'
          }
          onDragOver={(event) => {
            if (!accepts(tile, event.dataTransfer.types)) return;
            event.preventDefault();
            event.dataTransfer.dropEffect = 'move';
            setOver(tile.folder.id);
          }}
          onDragLeave={(event) => {
            if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver(undefined);
          }}
          onDrop={(event) => {
            setOver(undefined);
            if (!accepts(tile, event.dataTransfer.types)) return;
            event.preventDefault();
            const fileId = event.dataTransfer.getData(dragType!);
            if (fileId) onDropFile?.(tile, fileId);
          }}
        >
          <div
            role="button"
            tabIndex={0}
            title={tile.label}
            className="group flex min-w-0 flex-1 cursor-pointer select-none items-center gap-2 rounded px-1 py-1.5 outline-none focus-visible:ring-2 focus-visible:ring-primary/40"
            onClick={() => onOpen(tile)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') onOpen(tile);
            }}
          >
            <Folder className="size-5 shrink-0 fill-amber-100 text-amber-500" aria-hidden />
            <span className="min-w-0">
              <span className="block truncate text-sm font-medium group-focus-visible:whitespace-normal group-focus-visible:[overflow-wrap:anywhere]">
                {tile.label}
              </span>
              {tile.warning ? (
                <span role="note" className="flex items-start gap-1 text-xs text-red-700">
                  <ShieldAlert className="mt-0.5 size-3.5 shrink-0" aria-hidden />
                  {tile.warning}
                </span>
              ) : null}
            </span>
          </div>
          <DropdownMenu modal={false}>
            <DropdownMenuTrigger
              aria-label={`Actions du dossier ${tile.label}`}
              className="rounded p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-primary/40"
            >
              <EllipsisVertical className="size-4" aria-hidden />
            </DropdownMenuTrigger>
            <DropdownMenuContent>
              <DropdownMenuItem onSelect={() => onOpen(tile)}>
                <FolderOpen aria-hidden /> Ouvrir
              </DropdownMenuItem>
              {tile.folder.can_manage ? (
                <>
                  <DropdownMenuItem onSelect={() => onRename(tile)}>
                    <Pencil aria-hidden /> Renommer
                  </DropdownMenuItem>
                  {tile.folder.empty === false ? (
                    <DropdownMenuItem disabled aria-describedby={`${tile.folder.id}-not-empty`}>
                      <Trash2 aria-hidden />
                      <span>
                        Supprimer
                        <span id={`${tile.folder.id}-not-empty`} className="block text-xs text-slate-500">
                          {RING_FILES_MESSAGES.folderNotEmpty}
                        </span>
                      </span>
                    </DropdownMenuItem>
                  ) : (
                    <DropdownMenuItem destructive onSelect={() => onDelete(tile)}>
                      <Trash2 aria-hidden /> Supprimer
                    </DropdownMenuItem>
                  )}
                </>
              ) : null}
            </DropdownMenuContent>
          </DropdownMenu>
        </li>
      ))}
    </ul>
  );
}
