import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SITE_UPLOAD_MESSAGES, type SiteImageType } from '@securering/contract';
import type { AppContext } from '../../app-context';
import type { AdminsTable } from '../../db/schema';
import { badRequest } from '../../lib/app-error';
import { ensurePrivateDir } from '../../lib/data-dir';
import { storagePaths } from '../../lib/storage-paths';
import type { RequestMeta } from '../sessions/session.service';
import { UPLOAD_NAME_RE, contentTypeOf, detectImageFormat } from './image-format';

/** A stored upload ready to be sent. */
export interface StoredUpload {
  filePath: string;
  size: number;
  contentType: string;
  /** Last write of the file, for Last-Modified and the ETag. */
  modifiedAt: Date;
}

/**
 * Logo and favicon of the site: checked by content, stored under DATA_DIR/uploads with a generated
 * name, referenced by the general setting of the same name, served back under /uploads/.
 */
export class UploadsService {
  constructor(private readonly ctx: AppContext) {}

  private get dir(): string {
    return storagePaths.uploads(this.ctx.config);
  }

  /** Stores the image, points the setting at it, removes the previous upload of that type. */
  async saveSiteImage(
    actor: AdminsTable,
    type: SiteImageType,
    content: Buffer,
    meta: RequestMeta,
  ): Promise<string> {
    const ext = detectImageFormat(content);
    if (!ext) throw badRequest(SITE_UPLOAD_MESSAGES.invalidImage);
    const name = `${type}-${randomBytes(12).toString('base64url')}.${ext}`;
    const url = `/uploads/${name}`;
    const previous = await this.ctx.settings.getValue('general', type);

    await ensurePrivateDir(this.dir);
    const filePath = path.join(this.dir, name);
    await fs.writeFile(filePath, content, { flag: 'wx' });
    try {
      await this.ctx.settings.save('general', { [type]: url });
    } catch (error) {
      await fs.rm(filePath, { force: true });
      throw error;
    }
    const replaced = this.ownUploadName(previous, type);
    if (replaced && replaced !== name) {
      await fs
        .rm(path.join(this.dir, replaced), { force: true })
        .catch((error: unknown) =>
          this.ctx.logger.warn({ err: error, name: replaced }, 'previous upload not removed'),
        );
    }

    await this.ctx.systemLog.adminAction(
      actor,
      meta,
      type === 'logo' ? SITE_UPLOAD_MESSAGES.logoUpdated : SITE_UPLOAD_MESSAGES.faviconUpdated,
      { type, url, format: ext, size: content.length, replaced: replaced ?? null },
    );
    return url;
  }

  /** The file name of a setting value when it points at one of our uploads of that type. */
  private ownUploadName(value: string, type: SiteImageType): string | undefined {
    const match = /^\/uploads\/([^/]+)$/.exec(value.trim());
    const name = match?.[1];
    return name && UPLOAD_NAME_RE.test(name) && name.startsWith(`${type}-`) ? name : undefined;
  }

  /** A stored upload by its generated name; undefined for any other name or a missing file. */
  async find(name: string): Promise<StoredUpload | undefined> {
    if (!UPLOAD_NAME_RE.test(name)) return undefined;
    const contentType = contentTypeOf(name);
    if (!contentType) return undefined;
    const filePath = path.join(this.dir, name);
    try {
      const stat = await fs.stat(filePath);
      return stat.isFile() ? { filePath, size: stat.size, contentType, modifiedAt: stat.mtime } : undefined;
    } catch {
      return undefined;
    }
  }
}
