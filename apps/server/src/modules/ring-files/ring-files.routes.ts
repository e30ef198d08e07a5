import {
  DOWNLOAD_HEADERS,
  RING_FILES_API_PATHS as PATHS,
  RING_FILES_MESSAGES,
  ZAddFileKeysRequest,
  ZDeleteFileRequest,
  ZFileKeysQuery,
  ZDownloadQuery,
  ZListFilesQuery,
  ZMkdirRequest,
  ZMoveFileRequest,
  ZRenameFileRequest,
  ZRenameFolderRequest,
  ZRmdirRequest,
  type TUploadFileResponse,
} from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { AppError, badRequest, parseInput } from '../../lib/app-error';
import { ringCaller } from '../../plugins/auth';
import { requireRingMember } from '../rings/ring.guard';
import { maxFileBytesOf } from './ring-files.policy';
import { MULTIPART_FIELD_BYTES, RingFilesService } from './ring-files.service';
import { ringFilesTusRoutes } from './ring-files.tus';

function contentLengthOf(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  if (header === undefined || !/^\d{1,16}$/.test(header)) return undefined;
  return Number(header);
}

/**
 * A failure while reading a multipart body that is the client's doing (malformed body, too many
 * parts, connection dropped) answers 400 with the upload message; storage failures stay 500.
 */
function multipartError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const e = error as { code?: string; statusCode?: number; message?: string } | null;
  if (e?.code === 'FST_REQ_FILE_TOO_LARGE') return new AppError(413, RING_FILES_MESSAGES.uploadError);
  const clientSide =
    (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) ||
    (typeof e?.code === 'string' && (e.code.startsWith('FST_') || e.code === 'ECONNRESET')) ||
    /unexpected end of form|malformed|boundary|aborted|premature close|multipart/i.test(e?.message ?? '');
  return clientSide ? badRequest(RING_FILES_MESSAGES.uploadError) : error;
}

/** The Ring file space (spec 2 §7 `rings/files/*`) and its resumable uploads (tus). */
export async function ringFilesRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new RingFilesService(ctx);
  // A Ring member's session first (401), then the plan (403): every call, before its input is read.
  const preHandler = [
    requireRingMember(ctx),
    async (request: FastifyRequest) => service.assertFileSharing(ringCaller(request)),
  ];

  app.get(PATHS.list, { preHandler }, async (request) => {
    const { folder } = parseInput(ZListFilesQuery, request.query);
    return service.list(ringCaller(request), folder);
  });

  // Multipart, fields first then `file`: the bytes stream into storage as they arrive.
  app.post(PATHS.upload, { preHandler }, async (request, reply): Promise<TUploadFileResponse> => {
    const caller = ringCaller(request);
    if (!request.isMultipart()) throw badRequest(RING_FILES_MESSAGES.fileMissing);
    const upload = service.startMultipartUpload(caller, contentLengthOf(request));
    try {
      await upload.precheck();
      const parts = request.parts({
        limits: {
          files: 1,
          fields: 12,
          parts: 13,
          fieldSize: MULTIPART_FIELD_BYTES,
          fileSize: maxFileBytesOf(caller.ring) + 1,
        },
      });
      for await (const part of parts) {
        if (part.type === 'file') {
          if (part.fieldname === 'file') await upload.receive(part.file);
          else part.file.resume();
        } else if (typeof part.value === 'string') {
          upload.field(part.fieldname, part.value);
        }
      }
      const file = await upload.finish();
      return { success: true, file, message: RING_FILES_MESSAGES.uploaded(1) };
    } catch (error) {
      await upload.abort();
      // The rest of a refused body is not worth reading: the connection closes after the answer.
      if (!request.raw.complete) reply.header('Connection', 'close');
      throw multipartError(error);
    }
  });

  app.get(PATHS.download, { preHandler }, async (request, reply) => {
    const { id } = parseInput(ZDownloadQuery, request.query);
    const caller = ringCaller(request);
    const etag = `"${id}"`;
    // A resumed download of another version gets the whole file (files never change, but a
    // client may hold an ETag of something else).
    const ifRange = request.headers['if-range'];
    const rangeHeader = ifRange !== undefined && ifRange !== etag ? undefined : request.headers.range;
    let download;
    try {
      download = await service.openDownload(caller, id, rangeHeader);
    } catch (error) {
      if (error instanceof AppError && error.statusCode === 416)
        reply.header('Content-Range', `bytes */${String(error.extra.size)}`);
      throw error;
    }
    const { file, size, range, body } = download;
    reply
      .header('Content-Type', 'application/octet-stream')
      .header('Content-Disposition', `attachment; filename="${file.id}.srf"`)
      .header('Cache-Control', 'no-store')
      .header('Accept-Ranges', 'bytes')
      .header('ETag', etag)
      .header('X-Content-Type-Options', 'nosniff');
    if (file.file_key) reply.header(DOWNLOAD_HEADERS.fileKey, file.file_key);
    if (file.key_epoch !== null) reply.header(DOWNLOAD_HEADERS.keyEpoch, String(file.key_epoch));
    if (range) {
      reply
        .status(206)
        .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
        .header('Content-Length', String(range.end - range.start + 1));
    } else {
      reply.header('Content-Length', String(size));
    }
    return reply.send(body);
  });

  app.post(PATHS.rename, { preHandler }, async (request) => {
    const input = parseInput(ZRenameFileRequest, request.body);
    const { changed, file } = await service.rename(ringCaller(request), input);
    return {
      success: true,
      changed,
      file,
      message: changed ? RING_FILES_MESSAGES.renamed : RING_FILES_MESSAGES.unchanged,
    };
  });

  app.post(PATHS.move, { preHandler }, async (request) => {
    const input = parseInput(ZMoveFileRequest, request.body);
    const { changed, file } = await service.move(ringCaller(request), input);
    return {
      success: true,
      changed,
      file,
      message: changed ? RING_FILES_MESSAGES.moved : RING_FILES_MESSAGES.unchanged,
    };
  });

  app.get(PATHS.folders, { preHandler }, async (request) => ({
    success: true,
    folders: await service.listFolders(ringCaller(request)),
  }));

  app.post(PATHS.delete, { preHandler }, async (request) => {
    const { id } = parseInput(ZDeleteFileRequest, request.body);
    await service.deleteFile(ringCaller(request), id);
    return { success: true, message: RING_FILES_MESSAGES.deleted };
  });

  app.post(PATHS.mkdir, { preHandler }, async (request) => {
    const input = parseInput(ZMkdirRequest, request.body);
    const folder = await service.mkdir(ringCaller(request), input);
    return { success: true, folder, message: RING_FILES_MESSAGES.folderCreated };
  });

  app.post(PATHS.renameFolder, { preHandler }, async (request) => {
    const input = parseInput(ZRenameFolderRequest, request.body);
    const { changed, folder } = await service.renameFolder(ringCaller(request), input);
    return {
      success: true,
      changed,
      folder,
      message: changed ? RING_FILES_MESSAGES.folderRenamed : RING_FILES_MESSAGES.unchanged,
    };
  });

  app.post(PATHS.rmdir, { preHandler }, async (request) => {
    const { folder } = parseInput(ZRmdirRequest, request.body);
    await service.rmdir(ringCaller(request), folder);
    return { success: true, message: RING_FILES_MESSAGES.folderDeleted };
  });

  app.get(PATHS.keys, { preHandler }, async (request) => {
    const { after } = parseInput(ZFileKeysQuery, request.query);
    return service.keyWraps.page(ringCaller(request), after);
  });

  app.post(PATHS.keys, { preHandler }, async (request) => {
    const input = parseInput(ZAddFileKeysRequest, request.body);
    return { success: true, stored: await service.keyWraps.add(ringCaller(request), input) };
  });

  await ringFilesTusRoutes(app, ctx, service, preHandler);
}
