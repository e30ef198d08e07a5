/**
 * Stands in for Node's `crypto` module in the web build: @hpke/core imports it only where
 * `globalThis.crypto` is missing (old Node), which never happens in a browser. Aliased in
 * vite.config.ts so no Node polyfill is bundled and no browser-external stub is emitted.
 */
export const webcrypto: Crypto = globalThis.crypto;
export default { webcrypto };
