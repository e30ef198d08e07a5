import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTrustProxy, type TrustProxy } from './lib/trust-proxy';

export interface RateLimitConfig {
  /** Failed logins allowed per account within the window. */
  loginFailures: number;
  loginWindowMs: number;
  /** Calls per IP per minute on each public form or authentication endpoint. */
  publicPerMinute: number;
}

export interface AppConfig {
  nodeEnv: string;
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  admin: { username: string; password: string | undefined; email: string };
  webDistDir: string;
  logLevel: string;
  /** Proxy hops or proxy addresses/CIDRs whose X-Forwarded-For is believed (TRUST_PROXY); false: none. */
  trustProxy: TrustProxy;
  /**
   * PAYMENT_TEST_MODE=1: the local test payment provider exists, so subscriptions can be activated
   * without paying. Off unless the operator asks for it, whatever NODE_ENV says.
   */
  paymentTestMode: boolean;
  rateLimits: RateLimitConfig;
  /**
   * BACKUP_ENCRYPTION_KEY (32 characters or more): backups keep the secret settings encrypted with
   * a key derived from it (scrypt, AES-256-GCM). Unset: backups leave the secrets out.
   */
  backupEncryptionKey: string | undefined;
  /** Where runtime version info is read from (package version). */
  version: string;
  /** API base URLs of the payment providers; set in tests to point at local stubs. */
  providerBases: { stripe: string | undefined; paypal: string | undefined; nowpayments: string | undefined };
}

const here = path.dirname(fileURLToPath(import.meta.url));

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** An on/off variable: unset, empty, 0 or false is off; 1 or true is on; anything else is refused. */
function flagFrom(value: string | undefined, name: string): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === '0' || v === 'false') return false;
  if (v === '1' || v === 'true') return true;
  throw new Error(`${name} must be 1 or 0, got "${value}"`);
}

/** Shortest BACKUP_ENCRYPTION_KEY accepted, in characters. */
export const BACKUP_ENCRYPTION_KEY_MIN_LENGTH = 32;

function backupKeyFrom(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length < BACKUP_ENCRYPTION_KEY_MIN_LENGTH)
    throw new Error(`BACKUP_ENCRYPTION_KEY must be at least ${BACKUP_ENCRYPTION_KEY_MIN_LENGTH} characters`);
  return value;
}

/** Reads the environment once; every other module receives the typed result. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = intFrom(env.PORT, 8080, 'PORT');
  const host = env.HOST || '127.0.0.1';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = (env.PUBLIC_URL || `http://${displayHost}:${port}`).replace(/\/+$/, '');
  return {
    nodeEnv: env.NODE_ENV || 'development',
    port,
    host,
    dataDir,
    publicUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'securering:',
    admin: {
      username: env.ADMIN_USERNAME || 'admin',
      password: env.ADMIN_PASSWORD || undefined,
      email: env.ADMIN_EMAIL || 'admin@securering.fr',
    },
    // dist/main.js sits in apps/server/dist; the SPA build sits in apps/web/dist.
    webDistDir: path.resolve(env.WEB_DIST_DIR || path.join(here, '../../web/dist')),
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    paymentTestMode: flagFrom(env.PAYMENT_TEST_MODE, 'PAYMENT_TEST_MODE'),
    rateLimits: {
      loginFailures: intFrom(env.RATE_LIMIT_LOGIN_FAILURES, 10, 'RATE_LIMIT_LOGIN_FAILURES'),
      loginWindowMs: intFrom(env.RATE_LIMIT_LOGIN_WINDOW_MIN, 15, 'RATE_LIMIT_LOGIN_WINDOW_MIN') * 60_000,
      publicPerMinute: intFrom(env.RATE_LIMIT_PUBLIC_PER_MIN, 60, 'RATE_LIMIT_PUBLIC_PER_MIN'),
    },
    backupEncryptionKey: backupKeyFrom(env.BACKUP_ENCRYPTION_KEY),
    version: env.APP_VERSION || '1.0.0',
    providerBases: {
      stripe: env.STRIPE_API_BASE || undefined,
      paypal: env.PAYPAL_API_BASE || undefined,
      nowpayments: env.NOWPAYMENTS_API_BASE || undefined,
    },
  };
}
