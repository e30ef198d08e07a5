import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { MESSAGES, escapeHtml, isSpaRoute } from '@securering/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context';

/** Fills the page head from settings so titles, descriptions and link previews work without JS. */
export function renderIndexHtml(
  template: string,
  general: Record<string, string>,
  publicUrl: string,
): string {
  const title = escapeHtml(general.site_title || general.site_name || 'SecureRing');
  const description = escapeHtml(general.meta_description ?? '');
  const keywords = escapeHtml(general.meta_keywords ?? '');
  const siteName = escapeHtml(general.site_name || 'SecureRing');
  const favicon = escapeHtml(general.favicon || '/favicon.svg');
  const head = [
    `<title>${title}</title>`,
    `<meta name="description" content="${description}">`,
    `<meta name="keywords" content="${keywords}">`,
    `<meta property="og:type" content="website">`,
    `<meta property="og:site_name" content="${siteName}">`,
    `<meta property="og:title" content="${title}">`,
    `<meta property="og:description" content="${description}">`,
    `<meta property="og:url" content="${escapeHtml(publicUrl)}/">`,
    `<link rel="icon" href="${favicon}">`,
  ].join('\n    ');
  return template.replace(/<title>[\s\S]*?<\/title>/, '').replace('<!--app-head-->', head);
}

/** Serves the built SPA: hashed assets with long caching, index.html for every app route. */
export async function registerSpa(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const root = ctx.config.webDistDir;
  const indexFile = path.join(root, 'index.html');
  const hasBuild = fs.existsSync(indexFile);
  let template: string | undefined;

  if (hasBuild) {
    await app.register(fastifyStatic, {
      root,
      index: false,
      wildcard: false,
      setHeaders(reply, filePath) {
        const cacheable = filePath.includes(`${path.sep}assets${path.sep}`);
        reply.header('Cache-Control', cacheable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  async function sendIndex(request: FastifyRequest, reply: FastifyReply, status: number) {
    if (!hasBuild) {
      return reply
        .status(status)
        .type('text/plain; charset=utf-8')
        .send("L'interface web n'est pas construite : lancez `npm start` (ou `npm run build`).");
    }
    template ??= fs.readFileSync(indexFile, 'utf8');
    let general: Record<string, string> = {};
    try {
      general = await ctx.settings.getCategory('general');
    } catch (error) {
      request.log.error({ err: error }, 'settings unavailable for index.html');
    }
    return reply
      .status(status)
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(renderIndexHtml(template, general, ctx.config.publicUrl));
  }

  app.setNotFoundHandler(async (request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    if (
      url.startsWith('/api/') ||
      url.startsWith('/socket.io') ||
      (request.method !== 'GET' && request.method !== 'HEAD')
    ) {
      return reply.status(404).send({ success: false, error: MESSAGES.notFound });
    }
    // Unknown paths still get the app (which shows "Page introuvable") but with a 404 status.
    return sendIndex(request, reply, isSpaRoute(url) ? 200 : 404);
  });
}
