// Types of cluster.mjs for the TypeScript tests that import it (e2e/specs/cluster.e2e.ts).
export declare const ROOT: string;
export declare const HAPROXY_BIN: string;
export declare const CLUSTER_DRAIN_MS: number;
export declare function freePort(): Promise<number>;
export declare function haproxyConfig(options: {
  port: number;
  statsPort: number;
  host?: string;
  servers: Array<{ name: string; port: number }>;
}): string;

export interface ClusterInstance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly dataDir: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Exit code of the last run (null after a signal), undefined while running. */
  readonly exitCode: number | null | undefined;
  output(): string;
  start(options?: { waitReady?: boolean; nodeArgs?: string[] }): Promise<void>;
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
  kill(): Promise<void>;
}

export interface Cluster {
  url: string;
  statsUrl: string;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  workDir: string;
  configFile: string;
  instances: ClusterInstance[];
  stats(): Promise<Array<Record<string, string>>>;
  socketsPerInstance(): Promise<Map<string, number>>;
  waitForState(name: string, up: boolean, timeoutMs?: number): Promise<void>;
  haproxyOutput(): string;
  stop(): Promise<void>;
}

export declare function startCluster(options: {
  instances?: number;
  adminDatabaseUrl?: string;
  database?: string;
  fresh?: boolean;
  dispose?: boolean;
  redisUrl?: string;
  redisPrefix?: string;
  port?: number;
  statsPort?: number;
  publicUrl?: string;
  workDir?: string;
  env?: Record<string, string>;
  admin: { username: string; password: string };
  log?: (name: string, line: string) => void;
}): Promise<Cluster>;
