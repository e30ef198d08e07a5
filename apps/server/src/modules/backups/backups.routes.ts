import fs from 'node:fs';
import {
  BACKUP_MAX_UPLOAD_BYTES,
  BACKUP_MESSAGES,
  ZBackupDeleteQuery,
  ZBackupGetQuery,
  ZBackupPostRequest,
  type PermissionType,
} from '@securering/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context';
import { badRequest, parseInput } from '../../lib/app-error';
import { adminCaller, requestMeta } from '../../plugins/auth';
import { requireAdmin } from '../admins/admin.guard';
import { BackupService } from './backup.service';

const PATH = '/api/admin/backup.php';

/**
 * The permission a POST needs: upload and create → create, restore → edit (and the service
 * allows download and restore to super admins only).
 */
function postPermission(request: FastifyRequest): PermissionType {
  if (request.isMultipart()) return 'create';
  const action = (request.body as { action?: unknown } | null | undefined)?.action;
  return action === 'restore' ? 'edit' : 'create';
}

/** The value of a plain multipart field, if sent. */
function fieldValue(fields: Record<string, unknown>, name: string): string | undefined {
  const field = fields[name];
  const first = Array.isArray(field) ? field[0] : field;
  if (first && typeof first === 'object' && 'value' in first && typeof first.value === 'string')
    return first.value;
  return undefined;
}

/** /api/admin/backup.php (spec 3 §7): list, download, create, upload, restore, delete. */
export async function backupRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new BackupService(ctx);

  app.get(PATH, { preHandler: requireAdmin(ctx, 'backup', 'view') }, async (request, reply) => {
    const query = parseInput(ZBackupGetQuery, request.query);
    if (query.action === 'list') return { success: true, backups: await service.list() };
    const { file, info } = await service.download(adminCaller(request).admin, query.filename ?? '');
    return reply
      .header('Content-Type', 'application/zip')
      .header('Content-Disposition', `attachment; filename="${info.filename}"`)
      .header('Content-Length', String(info.size))
      .header('Cache-Control', 'no-store')
      .send(fs.createReadStream(file));
  });

  app.post(PATH, { preHandler: requireAdmin(ctx, 'backup', postPermission) }, async (request) => {
    const admin = adminCaller(request).admin;
    const meta = requestMeta(request);
    if (request.isMultipart()) {
      const part = await request.file({ limits: { fileSize: BACKUP_MAX_UPLOAD_BYTES } });
      if (!part) throw badRequest(BACKUP_MESSAGES.fileRequired);
      const action = fieldValue(part.fields as Record<string, unknown>, 'action');
      if (part.fieldname !== 'backup_file' || (action !== undefined && action !== 'upload')) {
        part.file.resume();
        throw badRequest(
          part.fieldname !== 'backup_file' ? BACKUP_MESSAGES.fileRequired : BACKUP_MESSAGES.unknownAction,
        );
      }
      const backup = await service.upload(admin, meta, {
        filename: part.filename ?? '',
        stream: part.file,
      });
      return { success: true, backup, message: BACKUP_MESSAGES.uploaded };
    }
    const input = parseInput(ZBackupPostRequest, request.body);
    if (input.action === 'create') {
      const backup = await service.create(admin, meta);
      return { success: true, backup, message: BACKUP_MESSAGES.created };
    }
    // Every session ends with the restore, this one included: the console signs in again.
    const outcome = await service.restore(admin, meta, input.filename);
    return {
      success: true,
      message: BackupService.restoredMessage(outcome),
      settings_to_reenter: outcome.settingsToReenter,
    };
  });

  app.delete(PATH, { preHandler: requireAdmin(ctx, 'backup', 'delete') }, async (request) => {
    // The spec sends the name in the query; a JSON body is accepted too.
    const source =
      (request.query as { filename?: unknown }).filename !== undefined ? request.query : request.body;
    const { filename } = parseInput(ZBackupDeleteQuery, source);
    await service.remove(adminCaller(request).admin, requestMeta(request), filename);
    return { success: true, message: BACKUP_MESSAGES.deleted };
  });
}
