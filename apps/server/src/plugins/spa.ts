import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import fastifyStatic from '@fastify/static';
import {
  MESSAGES,
  ZPlansResponse,
  escapeHtml,
  isSpaRoute,
  type TPublicPlan,
  type TSettingsData,
} from '@securering/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context';
import { toPublicPlan } from '../modules/plans/plan.policy';
import { PlanRepository } from '../modules/plans/plan.repository';
import { CACHE_CONTROL, isNotModified } from '../lib/cache-control';
import { pickEncoding } from '../lib/content-encoding';
import ROUTE_MODULES from './spa-route-modules.json';

/** Public settings categories written into the page, so the first render needs no API call. */
export const BOOTSTRAP_CATEGORIES = ['general', 'maintenance'] as const;
/** Id of the JSON data block that carries them (read by apps/web/src/lib/site-settings.ts). */
export const BOOTSTRAP_ELEMENT_ID = 'securering-settings';
/** Id of the block with the active plans, on the home page (read by apps/web/src/lib/plans.ts). */
export const PLANS_ELEMENT_ID = 'securering-plans';

export type BootstrapSettings = Partial<
  Record<(typeof BOOTSTRAP_CATEGORIES)[number], Record<string, string>>
>;

export interface IndexHtmlExtras {
  /** Public settings by category, for the app's first render. */
  settings?: BootstrapSettings;
  /** Build files the page's route needs at once (its lazy chunk and their static imports). */
  modulePreloads?: string[];
  /** Same-origin image shown at the top of every page (the uploaded logo). */
  preloadImage?: string;
  /** The active plans, as GET /api/subscriptions/plans.php gives them (the home page lists them). */
  plans?: TPublicPlan[];
}

/** JSON that can sit inside a <script> element: no `<`, `>`, `&` or line separators as such. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Fills the page head from settings so titles, descriptions and link previews work without JS,
 * preloads what the requested route runs first, and carries the public settings the first render
 * reads (a JSON data block: never executed, so the CSP's script-src is not involved).
 */
export function renderIndexHtml(
  template: string,
  general: Record<string, string>,
  publicUrl: string,
  extras: IndexHtmlExtras = {},
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
    ...(extras.preloadImage
      ? [`<link rel="preload" as="image" href="${escapeHtml(extras.preloadImage)}">`]
      : []),
    ...(extras.modulePreloads ?? []).map(
      (file) => `<link rel="modulepreload" crossorigin href="/${escapeHtml(file)}">`,
    ),
    ...(extras.settings
      ? [
          `<script type="application/json" id="${BOOTSTRAP_ELEMENT_ID}">${inlineJson(extras.settings)}</script>`,
        ]
      : []),
    ...(extras.plans
      ? [`<script type="application/json" id="${PLANS_ELEMENT_ID}">${inlineJson(extras.plans)}</script>`]
      : []),
  ].join('\n    ');
  return template.replace(/<title>[\s\S]*?<\/title>/, '').replace('<!--app-head-->', head);
}

interface RenderedPage {
  etag: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/** Vite's build manifest: each source module's file and the chunks it imports statically. */
type ViteManifest = Record<string, { file: string; imports?: string[]; isEntry?: boolean }>;

/** The files a route's lazy module needs at once, entry chunks excluded (index.html loads them). */
export function routePreloads(manifest: ViteManifest, routeModule: string | undefined): string[] {
  if (!routeModule || !manifest[routeModule]) return [];
  const entries = new Set(Object.keys(manifest).filter((key) => manifest[key]?.isEntry));
  const entryClosure = new Set<string>();
  const walk = (key: string, into: Set<string>) => {
    if (into.has(key) || !manifest[key]) return;
    into.add(key);
    for (const imported of manifest[key].imports ?? []) walk(imported, into);
  };
  for (const entry of entries) walk(entry, entryClosure);
  const route = new Set<string>();
  walk(routeModule, route);
  return [...route].filter((key) => !entryClosure.has(key)).map((key) => manifest[key]!.file);
}

/**
 * Serves the built SPA: content-hashed assets with a one-year immutable cache and their brotli
 * or gzip copy made at build time (`preCompressed`, with `Vary: Accept-Encoding`); other files
 * with a short cache and revalidation; and for every app route the page itself, rendered from
 * settings, compressed once per content and revalidated through its ETag.
 */
export async function registerSpa(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const root = ctx.config.webDistDir;
  const indexFile = path.join(root, 'index.html');
  const hasBuild = fs.existsSync(indexFile);
  let template: string | undefined;
  let manifest: ViteManifest | undefined;
  const pages = new Map<string, RenderedPage>();
  const planRepository = new PlanRepository(ctx.db);

  /** The home page's plans, checked against the contract like the client checks the API's. */
  async function homePlans(request: FastifyRequest): Promise<TPublicPlan[] | undefined> {
    try {
      const answer = ZPlansResponse.safeParse({
        success: true,
        data: (await planRepository.findActive()).map(toPublicPlan),
      });
      return answer.success ? answer.data.data : undefined;
    } catch (error) {
      request.log.error({ err: error }, 'plans unavailable for index.html');
      return undefined;
    }
  }

  if (hasBuild) {
    const assetsDir = `${path.sep}assets${path.sep}`;
    await app.register(fastifyStatic, {
      root,
      index: false,
      wildcard: false,
      preCompressed: true,
      // The compressed copies are chosen through Accept-Encoding, never asked for by name, and the
      // raw page template is only sent rendered.
      allowedPath: (pathName) => !/\.(?:br|gz)$/.test(pathName) && pathName !== '/index.html',
      setHeaders(reply, filePath) {
        reply.header(
          'Cache-Control',
          filePath.includes(assetsDir) ? CACHE_CONTROL.immutable : CACHE_CONTROL.shortRevalidate,
        );
      },
    });
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(root, '.vite/manifest.json'), 'utf8')) as ViteManifest;
    } catch {
      manifest = undefined;
    }
  }

  function renderedPage(html: string): RenderedPage {
    let page = pages.get(html);
    if (!page) {
      const identity = Buffer.from(html);
      page = {
        etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`,
        identity,
        br: zlib.brotliCompressSync(identity, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY },
        }),
        gzip: zlib.gzipSync(identity, { level: zlib.constants.Z_BEST_COMPRESSION }),
      };
      // One page per route and settings version: a small map, emptied if settings churn.
      if (pages.size >= 64) pages.clear();
      pages.set(html, page);
    }
    return page;
  }

  async function sendIndex(request: FastifyRequest, reply: FastifyReply, status: number, url: string) {
    if (!hasBuild) {
      return reply
        .status(status)
        .type('text/plain; charset=utf-8')
        .send("L'interface web n'est pas construite : lancez `npm start` (ou `npm run build`).");
    }
    template ??= fs.readFileSync(indexFile, 'utf8');
    const settings: BootstrapSettings = {};
    try {
      for (const category of BOOTSTRAP_CATEGORIES) {
        const data: TSettingsData = await ctx.settings.read('public', category);
        settings[category] = Object.fromEntries(
          Object.entries(data[category] ?? {}).map(([key, value]) => [key, value.setting_value]),
        );
      }
    } catch (error) {
      request.log.error({ err: error }, 'settings unavailable for index.html');
    }
    const general = settings.general ?? {};
    const complete = BOOTSTRAP_CATEGORIES.every((category) => settings[category] !== undefined);
    const logo = general.logo ?? '';
    let end = url.length;
    while (end > 1 && url.charCodeAt(end - 1) === 47) end--;
    const clean = url.slice(0, end);
    const plans = status === 200 && clean === '/' ? await homePlans(request) : undefined;
    const html = renderIndexHtml(template, general, ctx.config.publicUrl, {
      ...(complete ? { settings } : {}),
      ...(plans ? { plans } : {}),
      modulePreloads:
        status === 200 && manifest
          ? routePreloads(manifest, (ROUTE_MODULES as Record<string, string>)[clean])
          : [],
      ...(/^\/(?!\/)/.test(logo) ? { preloadImage: logo } : {}),
    });
    const page = renderedPage(html);
    reply
      .status(status)
      .header('Cache-Control', CACHE_CONTROL.revalidate)
      .header('ETag', page.etag)
      .header('Vary', 'Accept-Encoding');
    if (status === 200 && isNotModified(request.headers, page.etag)) {
      return reply.status(304).send();
    }
    reply.type('text/html; charset=utf-8');
    const encoding = pickEncoding(request.headers['accept-encoding']);
    if (!encoding) return reply.send(page.identity);
    return reply.header('Content-Encoding', encoding).send(page[encoding]);
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
    return sendIndex(request, reply, isSpaRoute(url) ? 200 : 404, url);
  });
}
