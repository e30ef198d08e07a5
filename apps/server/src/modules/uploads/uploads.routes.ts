import { createReadStream } from 'node:fs';
import {
  SITE_IMAGE_MAX_BYTES,
  SITE_IMAGE_TYPES,
  SITE_UPLOAD_MESSAGES,
  type SiteImageType,
  type TSiteImageUploadResponse,
} from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { AppError, badRequest, notFound } from '../../lib/app-error';
import { CACHE_CONTROL, isNotModified } from '../../lib/cache-control';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin } from '../admins/admin.guard';
import { UploadsService } from './uploads.service';

const isImageType = (value: unknown): value is SiteImageType =>
  typeof value === 'string' && (SITE_IMAGE_TYPES as readonly string[]).includes(value);

/**
 * Reads `{ file, type }` from a multipart body, in either order. The file is kept in memory: it is
 * at most 5 MB, and its content must be checked before anything is written.
 */
async function readImageUpload(
  request: FastifyRequest,
): Promise<{ type: unknown; content: Buffer | undefined }> {
  if (!request.isMultipart()) throw badRequest(SITE_UPLOAD_MESSAGES.invalidImage);
  let type: unknown;
  let content: Buffer | undefined;
  try {
    for await (const part of request.parts({
      limits: { fileSize: SITE_IMAGE_MAX_BYTES, files: 1, fields: 10 },
    })) {
      if (part.type === 'file') {
        // Every file part must be read for the next part to arrive.
        const buffer = await part.toBuffer();
        if (part.fieldname === 'file') content = buffer;
      } else if (part.fieldname === 'type') {
        type = part.value;
      }
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new AppError(413, SITE_UPLOAD_MESSAGES.tooLarge);
    }
    if (error instanceof AppError) throw error;
    request.log.info({ err: error }, 'unreadable image upload');
    throw badRequest(SITE_UPLOAD_MESSAGES.invalidImage);
  }
  return { type, content };
}

/** POST /api/admin/upload.php (logo, favicon) and the public GET /uploads/:name that serves them. */
export async function uploadRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new UploadsService(ctx);

  app.post(
    '/api/admin/upload.php',
    { preHandler: requireAdmin(ctx, 'site_settings', 'edit') },
    async (request): Promise<TSiteImageUploadResponse> => {
      const { type, content } = await readImageUpload(request);
      if (!isImageType(type)) throw badRequest(SITE_UPLOAD_MESSAGES.invalidType);
      if (!content || content.length === 0) throw badRequest(SITE_UPLOAD_MESSAGES.invalidImage);
      const url = await service.saveSiteImage(
        adminCaller(request).admin,
        type,
        content,
        requestMeta(request),
      );
      return {
        success: true,
        url,
        message: type === 'logo' ? SITE_UPLOAD_MESSAGES.logoUpdated : SITE_UPLOAD_MESSAGES.faviconUpdated,
      };
    },
  );

  // Public: the site's logo and favicon. Only names this module generated are served, with the
  // type of their checked content and nosniff, so a file can never be read as HTML or script.
  // Their names carry no content hash: kept an hour by browsers, then revalidated (304).
  app.get<{ Params: { name: string } }>('/uploads/:name', async (request, reply) => {
    const upload = await service.find(request.params.name);
    if (!upload) throw notFound();
    const etag = `W/"${upload.size.toString(16)}-${Math.floor(upload.modifiedAt.getTime()).toString(16)}"`;
    const lastModified = upload.modifiedAt.toUTCString();
    reply
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', CACHE_CONTROL.shortRevalidate)
      .header('ETag', etag)
      .header('Last-Modified', lastModified)
      // Branding images may be shown by other origins (webmail showing a mail's logo).
      .header('Cross-Origin-Resource-Policy', 'cross-origin');
    if (isNotModified(request.headers, etag, upload.modifiedAt)) return reply.status(304).send();
    return reply
      .header('Content-Type', upload.contentType)
      .header('Content-Length', String(upload.size))
      .send(createReadStream(upload.filePath));
  });
}
