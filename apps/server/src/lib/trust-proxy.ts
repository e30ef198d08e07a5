import net from 'node:net';

/**
 * What Fastify's `trustProxy` receives: off, a number of proxy hops, or the proxies' addresses and
 * CIDR ranges (and proxy-addr's named ranges). Never `true`, which would trust the left-most
 * `X-Forwarded-For` address — the one a client writes itself.
 */
export type TrustProxy = false | number | string[];

/** proxy-addr's names for the loopback, link-local and private ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
export const MAX_PROXY_HOPS = 10;

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Parses TRUST_PROXY: unset, empty, `0` or `false` → off; a whole number of hops (`1` = one reverse
 * proxy in front; `true` is read as `1`); or a comma-separated list of proxy addresses and CIDRs
 * (`10.0.0.0/8,192.168.1.7`). Anything else throws, so a typo stops the server at start-up instead
 * of trusting the wrong address.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || value === '0' || value.toLowerCase() === 'false') return false;
  if (value.toLowerCase() === 'true') return 1;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_PROXY_HOPS)
      throw new Error(`TRUST_PROXY: ${hops} proxies in a row is not plausible (1 to ${MAX_PROXY_HOPS}).`);
    return hops;
  }
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const invalid = entries.filter((entry) => !isAddressOrRange(entry));
  if (entries.length === 0 || invalid.length > 0) {
    throw new Error(
      `TRUST_PROXY must be a number of proxy hops (e.g. 1) or a comma-separated list of proxy ` +
        `addresses or CIDR ranges (e.g. 10.0.0.0/8,192.168.1.7); not understood: "${invalid.join(', ') || value}"`,
    );
  }
  return entries;
}

/**
 * The value for Fastify's `trustProxy`. A hop count becomes a function trusting the first `hops`
 * addresses of the chain (the socket peer, then right to left through X-Forwarded-For): Fastify
 * itself trusts nothing when given a bare number.
 */
export function fastifyTrustProxy(
  trust: TrustProxy,
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  const hops = trust;
  return (_address, hop) => hop < hops;
}
