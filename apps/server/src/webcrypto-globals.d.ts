import type { webcrypto } from 'node:crypto';

/**
 * `@securering/e2ee` is written for browsers and Node and names the WebCrypto key types as DOM
 * globals. The server imports its pure checks (envelope and share parsing, record shape,
 * fingerprints) without the DOM library: these aliases give those names Node's WebCrypto types.
 */
declare global {
  type CryptoKey = webcrypto.CryptoKey;
  type CryptoKeyPair = webcrypto.CryptoKeyPair;
}

export {};
