import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStore } from '@tus/file-store';
import type * as TusServerModule from '@tus/server';
import type { Server, ServerOptions } from '@tus/server';
import {
  MESSAGES,
  RING_FILES_API_PATHS as PATHS,
  RING_FILES_MESSAGES,
  TUS_METADATA_KEYS,
  ZUploadFields,
  isFileId,
  plainFileSize,
} from '@securering/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { AppContext } from '../../app-context';
import { AppError, badRequest, notFound, parseInput } from '../../lib/app-error';
import { HOUR_MS } from '../../lib/clock';
import { ensurePrivateDir } from '../../lib/data-dir';
import { storagePaths } from '../../lib/storage-paths';
import { ringCaller, type RingCaller } from '../../plugins/auth';
import { RingFilesRepository } from './ring-files.repository';
import { startsLikeEncryptedFile, type RingFilesService } from './ring-files.service';

type TusRequest = Parameters<NonNullable<ServerOptions['onUploadCreate']>>[0];

/** What tus sends back for a refused request: a status and our JSON error body. */
interface TusRefusal {
  status_code: number;
  body: string;
}

const refusal = (status: number, message: string): TusRefusal => ({
  status_code: status,
  body: JSON.stringify({ success: false, error: message }),
});

/** AppErrors become tus answers with their status and French message; other errors stay errors. */
function asTusRefusal(error: unknown): unknown {
  return error instanceof AppError ? refusal(error.statusCode, error.message) : error;
}

/** An upload with no activity for this long is dropped with its reservation (purge job). */
export const TUS_IDLE_MS = 24 * HOUR_MS;
/** A multipart reservation still there after this long belongs to a process that died mid-upload. */
export const MULTIPART_IDLE_MS = 12 * HOUR_MS;
/** Files in the tus folder without a reservation (a creation that failed half-way), after this. */
const ORPHAN_UPLOAD_MS = HOUR_MS;

/** The Node request being served, for the store's `write` (see RawBodyFileStore). */
const currentRequest = new AsyncLocalStorage<IncomingMessage>();

/**
 * tus requests being served. On Node 20 and 22 an AsyncLocalStorage that has run keeps Node's async
 * hooks on for the whole process until it is disabled: from the first resumable upload on, every
 * promise, tick and socket write of the instance (each delivery of a chat message included) would
 * run them. The storage is switched off when the last tus request in progress ends.
 */
let tusRequestsInFlight = 0;

/** Whether the request storage is on (Node's own flag; false on Node versions without it). */
export function tusRequestContextEnabled(): boolean {
  return (currentRequest as unknown as { enabled?: unknown }).enabled === true;
}

/**
 * @tus/server and @tus/file-store (about 4.6 MiB of heap together) are loaded by the first tus
 * request, not at start-up: most instances never see a resumable upload (issue 30's memory
 * budget). One promise for the process; the routes are registered at start-up all the same.
 */
let tusModules: Promise<{ tus: typeof TusServerModule; RawBodyFileStore: typeof FileStore }> | undefined;
const loadTusModules = () =>
  (tusModules ??= Promise.all([import('@tus/server'), import('@tus/file-store')]).then(
    ([tus, fileStore]) => ({ tus, RawBodyFileStore: rawBodyFileStoreOf(fileStore.FileStore, tus.ERRORS) }),
  ));

/**
 * @tus/file-store, writing the upload's bytes straight from Node's request. @tus/server hands
 * stores the body through a web ReadableStream bridge (Node stream → web stream → Node stream),
 * which costs about a third of a large PATCH's throughput on Node 20; here the request carries no
 * web body at all and `write` pipes Node's request to the file at the offset, never past the
 * declared Upload-Length. Like FileStore, what reached the disk before a dropped connection stays
 * (HEAD answers that offset). Made from the loaded modules (see loadTusModules).
 */
function rawBodyFileStoreOf(
  Base: typeof FileStore,
  ERRORS: (typeof TusServerModule)['ERRORS'],
): typeof FileStore {
  class RawBodyFileStore extends Base {
    override async write(readable: Readable, fileId: string, offset: number): Promise<number> {
      const raw = currentRequest.getStore();
      if (!raw) return super.write(readable, fileId, offset);
      readable.resume(); // the empty stand-in body @tus/server made
      const info = await this.configstore.get(fileId);
      const limit = (info?.size ?? 0) - offset;
      let received = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          received += chunk.length;
          callback(received > limit ? new Error('past Upload-Length') : null, chunk);
        },
      });
      try {
        await pipeline(
          raw,
          counter,
          fs.createWriteStream(path.join(this.directory, fileId), { flags: 'r+', start: offset }),
        );
      } catch (error) {
        if (received > limit) throw ERRORS.ERR_SIZE_EXCEEDED;
        throw ERRORS.FILE_WRITE_ERROR;
      }
      return offset + received;
    }
  }
  /*
   * FileStore's constructor starts an unawaited mkdir whose callback throws (a private method, so
   * it cannot be overridden in TypeScript): if the data directory goes away before the callback
   * runs (a test removing its DATA_DIR, an operator cleaning up), the process dies on an uncaught
   * exception. Here the directory is created, and awaited, before the store exists (at start-up,
   * in ringFilesTusRoutes); the constructor's own attempt is switched off.
   */
  Object.defineProperty(RawBodyFileStore.prototype, 'checkOrCreateDirectory', { value: () => {} });
  return RawBodyFileStore;
}

/**
 * The web Request @tus/server works on, built from Node's request, without a body (the store
 * reads Node's request itself). `runtime.node` is what @tus/server's own adapter sets: it aborts
 * on a dropped connection through it, and the hooks find the caller with it.
 */
function webRequestOf(raw: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const request = new Request(`http://localhost${raw.url ?? '/'}`, { method: raw.method ?? 'GET', headers });
  Object.defineProperty(request, 'runtime', { value: { name: 'node', node: { req: raw, res } } });
  return request;
}

/** The upload's bytes and its tus metadata file, as @tus/file-store lays them out. */
async function removeTusUpload(directory: string, id: string): Promise<void> {
  await fs.promises.rm(path.join(directory, id), { force: true });
  await fs.promises.rm(path.join(directory, `${id}.json`), { force: true });
}

async function readFirstBytes(file: string, count: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.alloc(count);
    const { bytesRead } = await handle.read(buffer, 0, count, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Resumable uploads (tus 1.0.0) under `/api/rings/files/tus`, for large files.
 *
 * - Every request (POST, HEAD, PATCH, DELETE) carries the Ring bearer and goes through the same
 *   preHandlers as the other file calls (401, then 403 for a plan without file sharing); HEAD,
 *   PATCH and DELETE also need the upload to be the caller's own (else 404).
 * - Creation requires `Upload-Length` (the encrypted size; deferred lengths are refused) and the
 *   metadata of ZUploadFields; the size limit and the quota are checked and the bytes reserved
 *   then, and the tus server never accepts more than Upload-Length.
 * - Partial uploads live in DATA_DIR/tus-uploads (@tus/file-store): HEAD answers the offset
 *   reached, so an interrupted upload resumes there. When the last byte arrives, the file moves
 *   into the storage provider (a rename on the local disk, a streamed multipart upload to S3) and
 *   becomes a `ring_files` row; the reservation is released in the same transaction.
 * - Idle uploads are purged with their reservation after a day (purgeAbandonedUploads).
 */
export async function ringFilesTusRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  service: RingFilesService,
  preHandler: preHandlerHookHandler[],
): Promise<void> {
  const directory = storagePaths.tusUploads(ctx.config);
  // At start-up, as before: an unusable data directory stops the server here, not at an upload.
  await ensurePrivateDir(directory);
  const callers = new WeakMap<IncomingMessage, RingCaller>();
  /** Reservations made by a creation request, to release if that request fails. */
  const createdBy = new WeakMap<IncomingMessage, string>();

  const rawOf = (req: TusRequest) => req.runtime?.node?.req as IncomingMessage | undefined;
  const callerOf = (req: TusRequest): RingCaller => {
    const raw = rawOf(req);
    const caller = raw && callers.get(raw);
    if (!caller) throw refusal(401, MESSAGES.notAuthenticated);
    return caller;
  };

  /** This app's tus server, made by the first tus request (see loadTusModules). */
  const createTusServer = async (): Promise<Server> => {
    const { tus: tusModule, RawBodyFileStore } = await loadTusModules();
    const datastore = new RawBodyFileStore({ directory });
    const tus = new tusModule.Server({
      path: PATHS.tus,
      datastore,
      relativeLocation: true,
      respectForwardedHeaders: false,
      // Same-origin API: no cross-origin caller is ever allowed.
      allowedOrigins: () => false,
      namingFunction: () => randomUUID(),

      async onUploadCreate(req, upload) {
        const caller = callerOf(req);
        try {
          if (upload.sizeIsDeferred || upload.size === undefined)
            throw badRequest(RING_FILES_MESSAGES.deferredLength);
          const metadata: Record<string, string> = {};
          for (const key of TUS_METADATA_KEYS) {
            const value = upload.metadata?.[key];
            if (typeof value === 'string') metadata[key] = value;
          }
          const fields = parseInput(ZUploadFields, metadata);
          if (plainFileSize(upload.size) === undefined) throw badRequest(RING_FILES_MESSAGES.notEncrypted);
          if (fields.folder !== '' && !(await service.repo.findFolder(caller.ring.id, fields.folder)))
            throw notFound(RING_FILES_MESSAGES.folderNotFound);
          await service.reserve(
            caller,
            { declaredBytes: upload.size },
            {
              kind: 'tus',
              id: upload.id,
              ...(fields.file_id ? { fileId: fields.file_id } : {}),
              metadata: JSON.stringify(metadata),
            },
          );
          const raw = rawOf(req);
          if (raw) createdBy.set(raw, upload.id);
          return {};
        } catch (error) {
          throw asTusRefusal(error);
        }
      },

      async onUploadFinish(req, upload) {
        const caller = callerOf(req);
        const reservation = await service.repo.findReservation(upload.id);
        if (
          !reservation ||
          reservation.ring_id !== caller.ring.id ||
          reservation.member_id !== caller.member.id
        )
          throw refusal(404, RING_FILES_MESSAGES.fileNotFound);
        const source = path.join(directory, upload.id);
        const storageKey = randomUUID();
        const objectKey = `${caller.ring.id}/${storageKey}`;
        let stored = false;
        try {
          const first = await readFirstBytes(source, 16);
          if (!startsLikeEncryptedFile(first)) throw badRequest(RING_FILES_MESSAGES.notEncrypted);
          const fields = parseInput(ZUploadFields, JSON.parse(reservation.metadata));
          const { size } = await ctx.storage.putFile(objectKey, source);
          stored = true;
          if (size !== Number(reservation.bytes)) throw badRequest(RING_FILES_MESSAGES.sizeMismatch);
          const file = await service.commitUpload(caller, reservation, fields, { storageKey, size });
          await removeTusUpload(directory, upload.id);
          return { headers: { 'X-File-Id': file.id } };
        } catch (error) {
          // A complete upload that cannot become a file is dropped whole: there is nothing to resume.
          if (stored) await ctx.storage.delete(objectKey).catch(() => undefined);
          await removeTusUpload(directory, upload.id);
          await service.release(reservation.id);
          ctx.logger.info({ err: error, uploadId: upload.id }, 'tus upload refused at completion');
          throw asTusRefusal(error);
        }
      },
    });
    // Termination (DELETE) removes the upload's files: its bytes are no longer reserved.
    tus.on(tusModule.EVENTS.POST_TERMINATE, (_req, _res, id: string) => {
      void service
        .release(id)
        .catch((error: unknown) => ctx.logger.error({ err: error }, 'tus release failed'));
    });
    return tus;
  };
  // One promise, so concurrent first requests share one server; a failed load is tried again.
  let tusServer: Promise<Server> | undefined;
  const tusServerOf = (): Promise<Server> =>
    (tusServer ??= createTusServer().catch((error: unknown) => {
      tusServer = undefined;
      throw error;
    }));

  /** HEAD, PATCH and DELETE: only on the caller's own upload in progress, else 404. */
  const ownUpload = async (request: FastifyRequest): Promise<void> => {
    const { id } = request.params as { id: string };
    const caller = ringCaller(request);
    const reservation = isFileId(id) ? await service.repo.findReservation(id) : undefined;
    if (
      !reservation ||
      reservation.kind !== 'tus' ||
      reservation.ring_id !== caller.ring.id ||
      reservation.member_id !== caller.member.id
    )
      throw notFound(RING_FILES_MESSAGES.fileNotFound);
    if (request.method === 'PATCH') await service.repo.touchReservation(id, ctx.clock.now().toISOString());
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const raw = request.raw;
    callers.set(raw, ringCaller(request));
    reply.hijack();
    reply.raw.setHeader('X-Request-Id', request.id);
    reply.raw.setHeader('Cache-Control', 'no-store');
    reply.raw.setHeader('X-Content-Type-Options', 'nosniff');
    const receiving = request.method === 'PATCH' || request.method === 'POST';
    if (receiving) ctx.operatorMetrics.uploadsInProgress.inc();
    try {
      const tus = await tusServerOf();
      tusRequestsInFlight++;
      let response: Response;
      try {
        response = await currentRequest.run(raw, () => tus.handleWeb(webRequestOf(raw, reply.raw)));
      } finally {
        // None left in progress: no store reads it any more (disable() empties every context).
        if (--tusRequestsInFlight === 0) currentRequest.disable();
      }
      reply.raw.statusCode = response.status;
      for (const [name, value] of response.headers) reply.raw.setHeader(name, value);
      reply.raw.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
    } catch (error) {
      request.log.error({ err: error }, 'tus request failed');
      if (!reply.raw.headersSent) {
        reply.raw.statusCode = 500;
        reply.raw.setHeader('Content-Type', 'application/json; charset=utf-8');
        reply.raw.end(JSON.stringify({ success: false, error: MESSAGES.internalError }));
      } else reply.raw.destroy();
    } finally {
      if (receiving) ctx.operatorMetrics.uploadsInProgress.dec();
    }
    // A creation that failed after its reservation (say its first bytes broke off): nothing of it
    // may stay, since the client never got its URL.
    const reservationId = createdBy.get(raw);
    if (reservationId && reply.raw.statusCode >= 400) {
      await removeTusUpload(directory, reservationId);
      await service.release(reservationId);
    }
  };

  // tus reads the raw body itself: in this scope no content type is parsed by Fastify.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.post(PATHS.tus, { preHandler }, handle);
    scope.route({
      method: ['HEAD', 'PATCH', 'DELETE'],
      url: `${PATHS.tus}/:id`,
      preHandler: [...preHandler, ownUpload],
      handler: handle,
    });
  });
}

/**
 * The purge job: tus uploads idle for a day and multipart reservations of a process that died
 * mid-upload are dropped with their bytes, tus files without any reservation are removed, and the
 * storage provider clears its own leftovers (temporary files, S3 multipart uploads).
 */
export async function purgeAbandonedUploads(ctx: AppContext): Promise<number> {
  const repo = new RingFilesRepository(ctx.db);
  const directory = storagePaths.tusUploads(ctx.config);
  const now = ctx.clock.now().getTime();
  let purged = 0;
  for (const reservation of await repo.findIdleReservations(
    'tus',
    new Date(now - TUS_IDLE_MS).toISOString(),
  )) {
    await removeTusUpload(directory, reservation.id);
    if (await repo.deleteReservation(reservation.id)) purged++;
  }
  const staleMultipart = new Date(now - MULTIPART_IDLE_MS).toISOString();
  for (const reservation of await repo.findIdleReservations('multipart', staleMultipart)) {
    if (await repo.deleteReservation(reservation.id)) purged++;
  }
  const names = await fs.promises.readdir(directory).catch(() => [] as string[]);
  const ids = [...new Set(names.map((name) => name.replace(/\.json$/, '')))].filter(isFileId);
  const live = await repo.reservationIdsExist(ids);
  for (const id of ids.filter((candidate) => !live.has(candidate))) {
    const times = await Promise.all(
      [id, `${id}.json`].map((name) =>
        fs.promises.stat(path.join(directory, name)).then(
          (stat) => stat.mtimeMs,
          () => 0,
        ),
      ),
    );
    if (Date.now() - Math.max(...times) > ORPHAN_UPLOAD_MS) {
      await removeTusUpload(directory, id);
      purged++;
    }
  }
  purged += await ctx.storage.purgeIncomplete(TUS_IDLE_MS);
  return purged;
}
