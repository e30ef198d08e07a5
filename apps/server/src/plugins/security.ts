import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';

/** One year, subdomains included: sent only when the public address is https. */
export const HSTS_MAX_AGE_SECONDS = 31_536_000;

/** HSTS settings for a public address: on for https, off otherwise (plain HTTP on loopback). */
export function hstsFor(
  publicUrl: string,
): false | { maxAge: number; includeSubDomains: true; preload: false } {
  return /^https:\/\//i.test(publicUrl)
    ? { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: true, preload: false }
    : false;
}

/** What helmet is asked for: see registerSecurityHeaders. */
function helmetOptions(publicUrl: string): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // 'wasm-unsafe-eval' lets the page compile WebAssembly (Argon2id of the member key records,
        // hash-wasm; issue 27) and nothing else: no eval, no inline script.
        scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        mediaSrc: ["'self'", 'blob:'],
        workerSrc: ["'self'", 'blob:'],
        frameSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // Served over plain HTTP on loopback by default; HTTPS is the reverse proxy's job, and the
    // public address says whether there is one.
    strictTransportSecurity: hstsFor(publicUrl),
    crossOriginEmbedderPolicy: false,
    // Call and DM popups are same-origin windows; the opener link must survive for them.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    frameguard: { action: 'deny' },
  };
}

/**
 * The headers helmet adds to an answer with these options, worked out once: @fastify/helmet builds
 * its whole middleware again (options parsed, directives joined) on every request, which cost
 * more than the public plans read itself. They never vary per request here (no CSP nonces).
 */
export async function securityHeadersFor(publicUrl: string): Promise<Record<string, string>> {
  const withHelmet = Fastify({ logger: false });
  await withHelmet.register(helmet, helmetOptions(publicUrl));
  const bare = Fastify({ logger: false });
  for (const probe of [withHelmet, bare]) probe.get('/', async () => 'ok');
  try {
    const [secured, plain] = await Promise.all([withHelmet.inject('/'), bare.inject('/')]);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(secured.headers))
      if (!(name in plain.headers) && value !== undefined) headers[name] = String(value);
    return headers;
  } finally {
    await Promise.all([withHelmet.close(), bare.close()]);
  }
}

/**
 * Security headers on every answer (computed by helmet once, see securityHeadersFor). The CSP
 * allows no inline script: the SPA ships module scripts only. Styles allow inline attributes
 * because UI primitives position popovers with style attributes. The browser talks to its own
 * origin only: the API and socket.io (same-origin ws/wss is covered by 'self'); payments are
 * redirects, not calls. HSTS is sent when PUBLIC_URL is https (the TLS proxy in front answers on
 * that name).
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  const headers = await securityHeadersFor(app.ctx.config.publicUrl);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
