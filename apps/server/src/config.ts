import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TURN_CREDENTIAL_MAX_TTL_SEC } from '@securering/contract';
import { DEFAULT_MIN_FREE_MB } from './lib/disk-space';
import { parseTrustProxy, type TrustProxy } from './lib/trust-proxy';

export interface RateLimitConfig {
  /** Failed logins allowed per account within the window. */
  loginFailures: number;
  loginWindowMs: number;
  /** Calls per IP per minute on each public form or authentication endpoint. */
  publicPerMinute: number;
  /** Key writes (publish, rotate, share, membership-log links) one Ring member may make per minute. */
  keyWritesPerMinute: number;
}

export interface AppConfig {
  nodeEnv: string;
  port: number;
  host: string;
  dataDir: string;
  /**
   * DATA_DIR_MIN_FREE_MB (default 200), in bytes: below this much free space on DATA_DIR's file
   * system /readyz fails (`storage: disk full`); the back office warns from five times it (1 GiB at least).
   */
  diskMinFreeBytes: number;
  publicUrl: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  /**
   * METRICS_TOKEN: the bearer token `GET /metrics` asks for (16 printable characters or more);
   * without it the endpoint does not exist.
   */
  metricsToken: string | undefined;
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
  /**
   * STUN/TURN servers for calls: TURN_URLS (comma-separated `stun:`/`turn:`/`turns:` URLs) and
   * TURN_SECRET (coturn's `static-auth-secret`, never sent to browsers); credentials live TURN_TTL_SEC.
   */
  turn: TurnConfig;
  /** An unanswered call is cancelled for both sides after this time (CALL_RING_TIMEOUT_SEC, default 30). */
  callRingTimeoutMs: number;
  /**
   * INVITATION_TTL_DAYS (1 to 90, default 7): an unaccepted Ring invitation code (a bearer
   * credential) expires after this long; the owner's « Renvoyer » gives it this long again.
   */
  invitationTtlMs: number;
  /**
   * Where Ring files are stored: the local disk under DATA_DIR/ring-files (default), or an
   * S3-compatible bucket when S3_BUCKET is set (S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID,
   * S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE), which several instances can share.
   */
  storage: StorageConfig;
  /** Several instances: how this one is named and how it stops and holds its sockets. */
  cluster: ClusterConfig;
  /** Web Push (issue 29): who the push services may contact, and which endpoints are accepted. */
  webPush: WebPushConfig;
  /** Where runtime version info is read from (package version). */
  version: string;
  /** API base URLs of the payment providers; set in tests to point at local stubs. */
  providerBases: { stripe: string | undefined; paypal: string | undefined; nowpayments: string | undefined };
}

export interface ClusterConfig {
  /** INSTANCE_NAME (default: the host name): shown in logs and in the presence registry's ids. */
  instanceName: string;
  /** PG_POOL_SIZE (default 10): PostgreSQL connections this instance may open. */
  pgPoolSize: number;
  /**
   * PG_STATEMENT_TIMEOUT_MS (default 4000, 0: none): the longest a request's SQL statement runs
   * before PostgreSQL cancels it, so a request answers within 5 s (migrations are not bounded).
   */
  pgStatementTimeoutMs: number;
  /**
   * SHUTDOWN_DRAIN_MS (default 0): on SIGTERM, how long /readyz answers 503 before the instance
   * stops accepting, so the load balancer has taken it out first (set it above the balancer's
   * health-check interval × fall count).
   */
  shutdownDrainMs: number;
  /**
   * SOCKET_BUFFER_LIMIT_KB (default 4096): bytes waiting to be written to one socket past which
   * it is closed (a stalled client); it reconnects and catches up from the database.
   */
  socketBufferLimitBytes: number;
}

export interface WebPushConfig {
  /**
   * The VAPID `sub` claim the push services may write to: `mailto:` ADMIN_EMAIL when set,
   * otherwise PUBLIC_URL when it is https, otherwise `mailto:` the default admin address.
   */
  subject: string;
  /**
   * WEB_PUSH_ALLOW_HTTP=1 (tests only): subscriptions may also name http://127.0.0.1 or
   * http://localhost endpoints (a local stand-in for the push service). Off by default.
   */
  allowLocalHttp: boolean;
}

export interface TurnConfig {
  urls: string[];
  secret: string | undefined;
  ttlSec: number;
}

export type StorageConfig =
  | { provider: 'local' }
  | {
      provider: 's3';
      bucket: string;
      region: string;
      /** Unset: AWS's own endpoint for the region. */
      endpoint: string | undefined;
      /** Unset: the SDK's default credential chain (environment, instance role…). */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      /** Bucket in the path (`endpoint/bucket/key`), as MinIO and most self-hosted servers want. */
      forcePathStyle: boolean;
    };

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

/** TURN credentials live at most 10 minutes (review L1; TURN REST API scheme). */
export const TURN_TTL_MAX_SEC = TURN_CREDENTIAL_MAX_TTL_SEC;

/** INVITATION_TTL_DAYS: how long a pending Ring invitation stays valid, 1 to 90 days (default 7). */
function invitationTtlDaysFrom(value: string | undefined): number {
  const days = intFrom(value, 7, 'INVITATION_TTL_DAYS');
  if (days < 1 || days > 90) throw new Error(`INVITATION_TTL_DAYS must be between 1 and 90, got "${value}"`);
  return days;
}

/** TURN_URLS: comma-separated STUN/TURN URLs; anything else is refused at start-up. */
function turnUrlsFrom(value: string | undefined): string[] {
  const urls = (value ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const url of urls)
    if (!/^(stun|stuns|turn|turns):[^\s,]+$/i.test(url))
      throw new Error(`TURN_URLS entries must start with stun:, stuns:, turn: or turns:, got "${url}"`);
  return urls;
}

function turnConfigFrom(env: NodeJS.ProcessEnv): TurnConfig {
  const ttlSec = intFrom(env.TURN_TTL_SEC, TURN_TTL_MAX_SEC, 'TURN_TTL_SEC');
  if (ttlSec < 60 || ttlSec > TURN_TTL_MAX_SEC)
    throw new Error(`TURN_TTL_SEC must be between 60 and ${TURN_TTL_MAX_SEC}, got "${env.TURN_TTL_SEC}"`);
  return { urls: turnUrlsFrom(env.TURN_URLS), secret: env.TURN_SECRET || undefined, ttlSec };
}

/** S3_BUCKET set: S3-compatible object storage; otherwise the local disk. */
function storageConfigFrom(env: NodeJS.ProcessEnv): StorageConfig {
  const bucket = env.S3_BUCKET?.trim();
  if (!bucket) return { provider: 'local' };
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  const endpoint = env.S3_ENDPOINT?.trim() || undefined;
  if (endpoint && !/^https?:\/\/[^\s]+$/i.test(endpoint))
    throw new Error(`S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  return {
    provider: 's3',
    bucket,
    region: env.S3_REGION?.trim() || 'us-east-1',
    endpoint,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: flagFrom(env.S3_FORCE_PATH_STYLE, 'S3_FORCE_PATH_STYLE'),
  };
}

/** Reads the environment once; every other module receives the typed result. */
/** METRICS_TOKEN, checked: a short or spaced token would be guessed or mangled in a header. */
function metricsTokenFrom(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!/^[\x21-\x7e]{16,256}$/.test(value))
    throw new Error('METRICS_TOKEN must be 16 to 256 printable characters without spaces');
  return value;
}

/** WEB_PUSH_ALLOW_HTTP: tests only — refused with NODE_ENV=production (the server would POST to loopback). */
function webPushAllowHttpFrom(env: NodeJS.ProcessEnv): boolean {
  const allowed = flagFrom(env.WEB_PUSH_ALLOW_HTTP, 'WEB_PUSH_ALLOW_HTTP');
  if (allowed && env.NODE_ENV === 'production')
    throw new Error('WEB_PUSH_ALLOW_HTTP is for tests only and cannot be set with NODE_ENV=production');
  return allowed;
}

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
    diskMinFreeBytes:
      intFrom(env.DATA_DIR_MIN_FREE_MB, DEFAULT_MIN_FREE_MB, 'DATA_DIR_MIN_FREE_MB') * 1024 * 1024,
    publicUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'securering:',
    metricsToken: metricsTokenFrom(env.METRICS_TOKEN),
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
      keyWritesPerMinute: intFrom(env.RATE_LIMIT_KEY_WRITES_PER_MIN, 60, 'RATE_LIMIT_KEY_WRITES_PER_MIN'),
    },
    backupEncryptionKey: backupKeyFrom(env.BACKUP_ENCRYPTION_KEY),
    turn: turnConfigFrom(env),
    callRingTimeoutMs: Math.max(1, intFrom(env.CALL_RING_TIMEOUT_SEC, 30, 'CALL_RING_TIMEOUT_SEC')) * 1000,
    invitationTtlMs: invitationTtlDaysFrom(env.INVITATION_TTL_DAYS) * 86_400_000,
    storage: storageConfigFrom(env),
    cluster: {
      instanceName: (env.INSTANCE_NAME || os.hostname()).replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64),
      pgPoolSize: Math.max(1, intFrom(env.PG_POOL_SIZE, 10, 'PG_POOL_SIZE')),
      pgStatementTimeoutMs: intFrom(env.PG_STATEMENT_TIMEOUT_MS, 4000, 'PG_STATEMENT_TIMEOUT_MS'),
      shutdownDrainMs: intFrom(env.SHUTDOWN_DRAIN_MS, 0, 'SHUTDOWN_DRAIN_MS'),
      socketBufferLimitBytes:
        Math.max(64, intFrom(env.SOCKET_BUFFER_LIMIT_KB, 4096, 'SOCKET_BUFFER_LIMIT_KB')) * 1024,
    },
    webPush: {
      subject: env.ADMIN_EMAIL
        ? `mailto:${env.ADMIN_EMAIL}`
        : publicUrl.startsWith('https://')
          ? publicUrl
          : 'mailto:admin@securering.fr',
      allowLocalHttp: webPushAllowHttpFrom(env),
    },
    version: env.APP_VERSION || '1.0.0',
    providerBases: {
      stripe: env.STRIPE_API_BASE || undefined,
      paypal: env.PAYPAL_API_BASE || undefined,
      nowpayments: env.NOWPAYMENTS_API_BASE || undefined,
    },
  };
}
