import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const backend = process.env.VITE_BACKEND ?? 'http://127.0.0.1:8080';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** Text assets worth compressing; below this size the headers cost more than they save. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|xml|webmanifest|wasm)$/;
const COMPRESS_MIN_BYTES = 1024;

/**
 * Writes `file.br` (brotli 11) and `file.gz` (gzip 9) beside every compressible asset of the
 * build, so the server sends them as they are (@fastify/static `preCompressed`) instead of
 * compressing on each request. A variant that would not be smaller is not written.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'securering-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async writeBundle() {
      const files = (await fs.readdir(outDir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name))
        .map((entry) => path.join(entry.parentPath, entry.name))
        .filter((file) => !file.includes(`${path.sep}.vite${path.sep}`));
      await Promise.all(
        files.map(async (file) => {
          const content = await fs.readFile(file);
          if (content.length < COMPRESS_MIN_BYTES) return;
          const [br, gz] = await Promise.all([
            brotli(content, {
              params: {
                [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
                [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
              },
            }),
            gzip(content, { level: zlib.constants.Z_BEST_COMPRESSION }),
          ]);
          if (br.length < content.length) await fs.writeFile(`${file}.br`, br);
          if (gz.length < content.length) await fs.writeFile(`${file}.gz`, gz);
        }),
      );
    },
  };
}

/**
 * engine.io-client bundles its WebTransport transport whatever the options; the web client asks for
 * `transports: ['websocket', 'polling']` only (lib/realtime.ts), so the Ring room ships a stub in
 * its place (about 1 KB gzip less), which fails loudly if it were ever chosen.
 */
function withoutWebTransport(): Plugin {
  const target = /engine\.io-client[\\/]build[\\/]esm[\\/]transports[\\/]webtransport\.js$/;
  return {
    name: 'securering-without-webtransport',
    load(id) {
      if (!target.test(id)) return null;
      return `export class WT { constructor() { throw new Error('WebTransport is not used by this client'); } }`;
    },
  };
}

export default defineConfig({
  plugins: [react(), tailwindcss(), precompress(), withoutWebTransport()],
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./src', import.meta.url)),
      // @hpke/core's fallback `import("crypto")` for runtimes without WebCrypto: browsers have it.
      crypto: fileURLToPath(new URL('./src/lib/webcrypto-shim.ts', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // Read by scripts/check-bundle-budgets.mjs (written under dist/.vite, never served).
    manifest: true,
    // Inline scripts would be refused by the server's CSP.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      // The contract's modules only declare schemas and constants: a page that uses one constant
      // must not pull every schema (and zod) along with it.
      treeshake: {
        moduleSideEffects: [{ test: /[\\/]packages[\\/]contract[\\/]src[\\/]/, sideEffects: false }],
      },
      output: {
        // Everything the entry needs in one chunk: fewer requests and one gzip stream.
        codeSplitting: { groups: [{ name: 'shell', tags: ['$initial'] }] },
      },
    },
  },
  server: {
    proxy: {
      '/api': backend,
      '/healthz': backend,
      '/uploads': backend,
      '/socket.io': { target: backend, ws: true },
    },
  },
});
