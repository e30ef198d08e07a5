import {
  FILE_KEYS_BATCH,
  RING_FILES_MESSAGES,
  parseWrappedFileKey,
  type TAddFileKeysRequest,
  type TFileKeysResponse,
  type TWrappedFileKey,
} from '@securering/contract';
import type { AppContext } from '../../app-context';
import { badRequest, forbidden } from '../../lib/app-error';
import type { RingCaller } from '../../plugins/auth';
import { RingKeysRepository } from '../ring-keys/ring-keys.repository';
import { FileKeyWrapsRepository, type FileKeyWrapRow } from './file-key-wraps.repository';
import { mayShareFileKeys } from './ring-files.policy';

/**
 * « Donner accès aux fichiers existants » (issue 24): the member who admits a newcomer reads every
 * file's wrapped key (keys.php GET), unwraps it in its browser and wraps it again under the
 * admission's epoch key (POST). The server never sees a file key: it stores opaque wraps, checks
 * who sends them (an owner or Ring admin of the log, holding that epoch's key) and which files they
 * name, and keeps the first wrap per file and epoch so nobody can replace one.
 */
export class FileKeyWrapsService {
  readonly repo: FileKeyWrapsRepository;

  constructor(private readonly ctx: AppContext) {
    this.repo = new FileKeyWrapsRepository(ctx.db);
  }

  /** The extra wraps of these files, by file id. */
  async wrapsByFile(ringId: string, fileIds: readonly string[]): Promise<Map<string, TWrappedFileKey[]>> {
    const byFile = new Map<string, TWrappedFileKey[]>();
    for (const row of await this.repo.wrapsOf(ringId, fileIds)) {
      const wrapped = parseWrappedFileKey(row.file_key);
      if (!wrapped) continue;
      const list = byFile.get(row.file_id) ?? [];
      list.push(wrapped);
      byFile.set(row.file_id, list);
    }
    return byFile;
  }

  /** GET keys.php: one page of the Ring's files with every wrap of their key. */
  async page(caller: RingCaller, after: string): Promise<TFileKeysResponse> {
    this.assertMayShare(caller);
    const files = await this.repo.filesPage(caller.ring.id, after, FILE_KEYS_BATCH.pageSize);
    const wraps = await this.wrapsByFile(
      caller.ring.id,
      files.map((f) => f.id),
    );
    return {
      success: true,
      files: files.map((f) => ({
        id: f.id,
        file_key: f.file_key ? (parseWrappedFileKey(f.file_key) ?? null) : null,
        key_wraps: wraps.get(f.id) ?? [],
      })),
      next: files.length === FILE_KEYS_BATCH.pageSize ? files.at(-1)!.id : null,
    };
  }

  /** POST keys.php: stores wraps under epochs the caller holds, of files of its Ring. */
  async add(caller: RingCaller, input: TAddFileKeysRequest): Promise<number> {
    this.assertMayShare(caller);
    const { ring, member } = caller;
    const epochs = [...new Set(input.wraps.map((w) => w.file_key.epoch))];
    const held = await new RingKeysRepository(this.ctx.db).validHoldings(ring.id, epochs, [member.id]);
    const heldEpochs = new Set(held.map((h) => h.epoch));
    if (epochs.some((epoch) => !heldEpochs.has(epoch)))
      throw badRequest(RING_FILES_MESSAGES.keysEpochNotHeld);
    const fileIds = [...new Set(input.wraps.map((w) => w.file_id))];
    const folders = await this.repo.foldersOfFiles(ring.id, fileIds);
    if (folders.size !== fileIds.length) throw badRequest(RING_FILES_MESSAGES.fileNotFound);
    const nowIso = this.ctx.clock.now().toISOString();
    const rows: FileKeyWrapRow[] = input.wraps.map((w) => ({
      file_id: w.file_id,
      ring_id: ring.id,
      epoch: w.file_key.epoch,
      file_key: JSON.stringify(w.file_key),
      created_by_member_id: member.id,
      created_at: nowIso,
    }));
    const stored = await this.repo.insertWraps(rows);
    // Members showing these folders read them again (the newcomer's files become readable).
    if (stored > 0)
      for (const folder of new Set(folders.values()))
        this.ctx.realtime.emitToRing(ring.id, 'files_changed', { ringId: ring.id, folder });
    return stored;
  }

  private assertMayShare(caller: RingCaller): void {
    if (!mayShareFileKeys(caller.member)) throw forbidden(RING_FILES_MESSAGES.keysAdminsOnly);
  }
}
