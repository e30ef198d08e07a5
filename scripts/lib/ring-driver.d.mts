// Types of ring-driver.mjs for the TypeScript tests that import it (e2e/specs/cluster.e2e.ts).
import type * as E2eeModule from '../../packages/e2ee/src/index';
import type { EpochKey, MembershipState } from '../../packages/e2ee/src/index';

/** The @securering/e2ee module (the TypeScript package or its bundle). */
export type E2ee = typeof E2eeModule;

/** A JSON answer of the API: many shapes, read by the tests that know which call they made. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped JSON, see above
type Json = any;

export declare const DRIVER_CUSTOMER_PASSWORD: string;
export declare const DRIVER_MEMBER_PASSWORD: string;

export interface ApiOptions {
  token?: string;
  body?: unknown;
  retries?: number;
  timeoutMs?: number;
}
export declare function api(
  base: string,
  method: string,
  path: string,
  options?: ApiOptions,
): Promise<{ status: number; json: Json }>;
export declare function apiOk(
  base: string,
  method: string,
  path: string,
  options?: ApiOptions,
): Promise<Json>;
export declare function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]>;

export interface StoredMessage {
  id: string;
  seq: number;
  clientMessageId: string;
  content: string;
  sender: { id: string; username: string };
}

export declare class RingMember {
  constructor(
    base: string,
    e2ee: E2ee,
    init: { memberId: string; ringId: string; token: string; username: string },
  );
  base: string;
  readonly memberId: string;
  readonly ringId: string;
  token: string;
  readonly username: string;
  readonly epochKeys: Map<number, EpochKey>;
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: ApiOptions,
  ): Promise<{ status: number; json: Json }>;
  publishKeys(): Promise<void>;
  /** The Ring's membership log as this member verified it. */
  log: MembershipState | undefined;
  syncLog(): Promise<MembershipState | undefined>;
  startLog(): Promise<void>;
  admit(members: readonly RingMember[]): Promise<void>;
  rotate(): Promise<number>;
  loadKeys(): Promise<void>;
  encrypt(text: string, clientMessageId?: string, conversationId?: string): Promise<string>;
  static sendBody(content: string, conversationId?: string): Record<string, unknown>;
  mintStreamToken(options?: ApiOptions): Promise<string>;
  history(since?: number, options?: ApiOptions): Promise<StoredMessage[]>;
}

export declare function subscribedRing(
  base: string,
  e2ee: E2ee,
  options: { admin: { username: string; password: string }; ringName?: string; email?: string },
): Promise<{ adminToken: string; customerToken: string; ringId: string; owner: RingMember; email: string }>;

export declare function inviteMembers(
  base: string,
  e2ee: E2ee,
  options: { customerToken: string; ringId: string; count: number; prefix?: string; concurrency?: number },
): Promise<RingMember[]>;

export declare function ringWithSenders(
  base: string,
  e2ee: E2ee,
  options: {
    admin: { username: string; password: string };
    members: number;
    senders?: number;
    concurrency?: number;
  },
): Promise<{
  ringId: string;
  customerToken: string;
  owner: RingMember;
  members: RingMember[];
  senders: RingMember[];
}>;
