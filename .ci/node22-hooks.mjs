// Module resolve hook of the Node 22 test pass (.ci/node22-tests.sh): `better-sqlite3` is a native
// addon built for one Node ABI, and node_modules holds the Node 20 build. Every import that would
// load node_modules/better-sqlite3 loads the copy built for Node 22 instead (BETTER_SQLITE3_DIR);
// node_modules itself is never touched, so Node 20 runs keep working alongside.
import { pathToFileURL } from 'node:url';

const dir = process.env.BETTER_SQLITE3_DIR;
if (!dir) throw new Error('BETTER_SQLITE3_DIR is not set');
const target = pathToFileURL(`${dir}/lib/index.js`).href;
const ORIGINAL = /[\\/]node_modules[\\/]better-sqlite3[\\/]lib[\\/]index\.js$/;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (resolved.url.startsWith('file:') && ORIGINAL.test(new URL(resolved.url).pathname)) {
    return { ...resolved, url: target };
  }
  return resolved;
}
