import { randomUUID } from 'node:crypto';
import {
  CHAT_API_PATHS,
  KEY_API_PATHS,
  ZKeyStateResponse,
  ZRingInfoResponse,
  type TKeyStateResponse,
  type TMemberKeyRecord,
  type TPublicKeys,
} from '@securering/contract';
import {
  LEGACY_KDF_ITERATIONS,
  activeLogMembers,
  createGenesis,
  createLink,
  decryptMessage,
  encryptMessage,
  exportPublicIdentity,
  generateEpochKey,
  generateIdentity,
  importVerifyKey,
  sealIdentity,
  mayAdmit,
  unwrapEpochKey,
  verifyMembershipLog,
  wrapEpochKeyFor,
  type EpochKey,
  type EpochKeyShare,
  type Identity,
  type MembershipChange,
  type MembershipState,
  type MessageChain,
} from '@securering/e2ee';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** A test passphrase (never sent anywhere). */
export const TEST_PASSPHRASE = 'une phrase secrète de test';

/**
 * What a member's browser does with the key and chat calls, with the real crypto of
 * @securering/e2ee: publish a sealed identity, read and open its shares, create epochs, share keys,
 * and encrypt and decrypt messages. Records use the legacy iteration count to keep tests fast.
 */
export class E2eeMember {
  identity!: Identity;
  publicKeys!: TPublicKeys;
  record!: TMemberKeyRecord;
  keyVersion = 0;
  readonly epochKeys = new Map<number, EpochKey>();
  /** The Ring's membership log as this member verified it (undefined before its genesis). */
  log: MembershipState | undefined;
  /**
   * Who admits this member as soon as it publishes keys (the fixtures' owner), as a person in the
   * room would after comparing safety numbers; undefined: nobody, it waits.
   */
  sponsor: E2eeMember | undefined;

  constructor(
    readonly app: FastifyInstance,
    readonly memberId: string,
    readonly ringId: string,
    public token: string,
  ) {}

  get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }

  call(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse> {
    return this.app.inject({
      method,
      url,
      headers: this.headers,
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  }

  /** New identity keys (a first unlock, or "Réinitialiser mes clés"): sealed, not yet published. */
  async newIdentity(): Promise<void> {
    this.identity = await generateIdentity();
    this.publicKeys = await exportPublicIdentity(this.identity);
    this.record = await sealIdentity(this.identity, TEST_PASSPHRASE, {
      memberId: this.memberId,
      iterations: LEGACY_KDF_ITERATIONS,
    });
  }

  /**
   * First unlock: creates and publishes identity keys; then its sponsor admits it (or, after a
   * reset, confirms its new keys in the log) unless `admit: false`.
   */
  async publish(options: { reset?: boolean; admit?: boolean } = {}): Promise<LightMyRequestResponse> {
    if (!this.identity || options.reset) await this.newIdentity();
    const res = await this.call('POST', KEY_API_PATHS.saveMemberKey, {
      key: this.record,
      publicKeys: this.publicKeys,
      ...(options.reset ? { reset: true } : {}),
    });
    if (res.statusCode !== 200) return res;
    this.keyVersion = res.json().keyVersion as number;
    if (this.sponsor && options.admit !== false) {
      const log = await this.sponsor.syncLog();
      const known = log?.members.get(this.memberId);
      const admitted = known
        ? await this.sponsor.appendChange({
            type: 'key_change',
            body: { memberId: this.memberId, keys: this.publicKeys },
          })
        : await this.sponsor.admit(this.memberId);
      expect(admitted.statusCode, admitted.body).toBe(200);
    }
    return res;
  }

  async state(): Promise<TKeyStateResponse> {
    const res = await this.call('GET', KEY_API_PATHS.state);
    expect(res.statusCode, res.body).toBe(200);
    return ZKeyStateResponse.parse(res.json());
  }

  /** The Ring's members as the room lists them, with their published keys. */
  async members() {
    const res = await this.call('GET', '/api/rings/info.php');
    expect(res.statusCode, res.body).toBe(200);
    return ZRingInfoResponse.parse(res.json());
  }

  /** Reads its shares and opens each with its key, checking the sender's signature. */
  async loadKeys(): Promise<TKeyStateResponse> {
    const state = await this.state();
    const info = await this.members();
    const senders = new Map(info.users.map((u) => [u.id, u.keys?.publicKeys.ed25519]));
    for (const { share, senderMemberId } of state.shares) {
      const senderKey = senders.get(senderMemberId);
      if (!senderKey) continue;
      this.epochKeys.set(
        share.epoch,
        await unwrapEpochKey(
          share,
          { memberId: this.memberId, agreementKeyPair: this.identity.agreement },
          senderKey,
          { ringId: this.ringId },
        ),
      );
    }
    return state;
  }

  wrapFor(key: EpochKey, recipient: { memberId: string; x25519: string }): Promise<EpochKeyShare> {
    return wrapEpochKeyFor(
      key,
      { memberId: recipient.memberId, x25519PublicB64: recipient.x25519 },
      { memberId: this.memberId, signingPrivateKey: this.identity.signing.privateKey },
      this.log?.head,
    );
  }

  // ---- the signed membership log (issue 24) ----------------------------------------------------

  /** Reads the links after the head it verified and verifies them; undefined while there is none. */
  async syncLog(): Promise<MembershipState | undefined> {
    const after = this.log?.head.seq ?? -1;
    const res = await this.call('GET', `${KEY_API_PATHS.log}?after=${after}`);
    expect(res.statusCode, res.body).toBe(200);
    const links = res.json().links as unknown[];
    if (links.length > 0)
      this.log = await verifyMembershipLog(links, {
        ringId: this.ringId,
        ...(this.log ? { from: this.log } : {}),
      });
    return this.log;
  }

  private signer() {
    return {
      memberId: this.memberId,
      signingKey: this.identity.signing.privateKey,
      ed25519: this.publicKeys.ed25519,
    };
  }

  /** Posts a link it made; the answer as it came. */
  async postLink(link: unknown): Promise<LightMyRequestResponse> {
    return this.call('POST', KEY_API_PATHS.log, { link });
  }

  /** The owner starts the log: genesis with its published keys and the Ring's level. */
  async startLog(): Promise<LightMyRequestResponse> {
    const info = await this.members();
    const link = await createGenesis({
      ringId: this.ringId,
      owner: { id: this.memberId, username: info.user.username, keys: this.publicKeys },
      level: info.ring.encryptionLevel,
      signer: this.signer(),
    });
    const res = await this.postLink(link);
    if (res.statusCode === 200) await this.syncLog();
    return res;
  }

  /** Signs and appends one change after the head it verified (read again first). */
  async appendChange(
    change: Exclude<MembershipChange, { type: 'genesis' }>,
  ): Promise<LightMyRequestResponse> {
    const log = await this.syncLog();
    if (!log) throw new Error('no membership log yet');
    const res = await this.postLink(await createLink(log, change, this.signer()));
    if (res.statusCode === 200) await this.syncLog();
    return res;
  }

  /** Admits a member who published keys (the keys and name the server lists for it). */
  async admit(
    memberId: string,
    options: { role?: 'admin' | 'member'; shareHistory?: boolean; shareFiles?: boolean } = {},
  ): Promise<LightMyRequestResponse> {
    const info = await this.members();
    const user = info.users.find((u) => u.id === memberId);
    if (!user?.keys) throw new Error(`${memberId} has no published keys`);
    return this.appendChange({
      type: 'admit',
      body: {
        member: { id: memberId, username: user.username, keys: user.keys.publicKeys },
        role: options.role ?? (user.role === 'admin' ? 'admin' : 'member'),
        invitation: memberId,
        shareHistory: options.shareHistory ?? false,
        shareFiles: options.shareFiles ?? true,
      },
    });
  }

  /**
   * What the fixtures do for the members they create: the owner starts the log if there is none,
   * and a member who may admit admits every member waiting with published keys.
   */
  async admitWaiting(): Promise<void> {
    const info = await this.members();
    let log = await this.syncLog();
    if (!log && info.user.role === 'owner') {
      const res = await this.startLog();
      expect(res.statusCode, res.body).toBe(200);
      log = this.log;
    }
    if (!log || !mayAdmit(log, this.memberId)) return;
    for (const user of info.users) {
      if (!user.keys || log.members.has(user.id) || log.refused.has(user.id)) continue;
      const res = await this.admit(user.id);
      expect(res.statusCode, res.body).toBe(200);
      log = this.log!;
    }
  }

  /**
   * Creates the next epoch for every member the log admitted whose published keys are the log's,
   * as the client does when a rotation is due (admitting waiting members first unless told not
   * to). Returns the answer; on success the new key is kept.
   */
  async rotate(
    options: {
      skip?: string[];
      withheld?: string[];
      admitWaiting?: boolean;
      /** Awaited once the rotation is ready to send (tests line two rotations up to race). */
      beforeSend?: () => Promise<void>;
    } = {},
  ): Promise<LightMyRequestResponse> {
    if (options.admitWaiting !== false) await this.admitWaiting();
    const log = await this.syncLog();
    const state = await this.loadKeys();
    const info = await this.members();
    const epoch = state.currentEpoch + 1;
    const held = [...this.epochKeys.values()].at(-1);
    const key = await generateEpochKey({
      ringId: this.ringId,
      epoch,
      level: log?.level ?? state.level,
      namesKey: (this.epochKeys.get(state.currentEpoch) ?? held)?.namesKey,
      ...(log ? { logSeq: log.head.seq } : {}),
    });
    const skip = new Set([...(options.skip ?? []), ...(options.withheld ?? [])]);
    const admitted = new Map(log ? activeLogMembers(log).map((m) => [m.id, m.keys]) : []);
    const recipients = info.users.filter((u) => {
      const logKeys = admitted.get(u.id);
      return (
        u.keys &&
        !skip.has(u.id) &&
        logKeys?.x25519 === u.keys.publicKeys.x25519 &&
        logKeys.ed25519 === u.keys.publicKeys.ed25519
      );
    });
    const shares = await Promise.all(
      recipients.map((u) => this.wrapFor(key, { memberId: u.id, x25519: u.keys!.publicKeys.x25519 })),
    );
    await options.beforeSend?.();
    const res = await this.call('POST', KEY_API_PATHS.rotate, {
      epoch,
      level: key.level,
      shares,
      withheld: options.withheld ?? [],
      keyVersions: Object.fromEntries(recipients.map((u) => [u.id, u.keys!.keyVersion])),
    });
    if (res.statusCode === 200) this.epochKeys.set(epoch, key);
    return res;
  }

  /** Shares every key it holds with the members the server says lack them. */
  async shareAll(): Promise<LightMyRequestResponse | undefined> {
    await this.syncLog();
    const state = await this.loadKeys();
    const shares: EpochKeyShare[] = [];
    const keyVersions: Record<string, number> = {};
    for (const pending of state.pending) {
      keyVersions[pending.memberId] = pending.keyVersion;
      for (const epoch of pending.epochs) {
        const key = this.epochKeys.get(epoch);
        if (key)
          shares.push(
            await this.wrapFor(key, { memberId: pending.memberId, x25519: pending.publicKeys.x25519 }),
          );
      }
    }
    if (shares.length === 0) return undefined;
    return this.call('POST', KEY_API_PATHS.share, { shares, keyVersions });
  }

  /** An envelope of `text` for a conversation, under `epoch` (default: the newest key it holds). */
  async encrypt(
    conversationId: string,
    text: string,
    options: { epoch?: number; clientMessageId?: string; ephemeralSec?: number; chain?: MessageChain } = {},
  ): Promise<string> {
    const epoch = options.epoch ?? Math.max(...this.epochKeys.keys());
    const key = this.epochKeys.get(epoch);
    if (!key) throw new Error(`${this.memberId} holds no key of epoch ${epoch}`);
    return encryptMessage(
      {
        // v2 with a signed sequence when one is given (issue 27 M4), else a legacy v1 envelope.
        ...(options.chain ? { v: 2 as const, chain: options.chain } : { v: 1 as const }),
        ringId: this.ringId,
        conversationId,
        epoch,
        senderId: this.memberId,
        clientMessageId: options.clientMessageId ?? randomUUID(),
        sentAt: new Date().toISOString(),
        ...(options.ephemeralSec !== undefined ? { ephemeralSec: options.ephemeralSec } : {}),
      },
      text,
      key,
      this.identity.signing.privateKey,
    );
  }

  /** Encrypts and sends; returns the answer. */
  async send(
    text: string,
    options: {
      conversationId?: string;
      epoch?: number;
      clientMessageId?: string;
      isEphemeral?: boolean;
      /** The ephemeral delay signed in the envelope (the Ring's setting, for an ephemeral message). */
      ephemeralSec?: number;
      /** A v2 envelope with this place in the sender's signed sequence. */
      chain?: MessageChain;
    } = {},
  ): Promise<LightMyRequestResponse> {
    const conversationId = options.conversationId ?? 'room:general';
    const content = await this.encrypt(conversationId, text, options);
    return this.call('POST', CHAT_API_PATHS.send, {
      content,
      clientEncrypted: true,
      conversation_id: conversationId,
      messageType: 'text',
      ...(options.isEphemeral !== undefined ? { isEphemeral: options.isEphemeral } : {}),
    });
  }

  /** Verifies and decrypts a stored envelope with the keys it holds and the senders' published keys. */
  async decrypt(content: string, conversationId = 'room:general'): Promise<string> {
    const info = await this.members();
    const verify = new Map(info.users.map((u) => [u.id, u.keys?.publicKeys.ed25519]));
    const { plaintext } = await decryptMessage(
      content,
      { ringId: this.ringId, conversationId },
      {
        epochKey: (epoch) => this.epochKeys.get(epoch),
        senderVerifyKey: async (id) => {
          const key = verify.get(id);
          return key ? importVerifyKey(key) : undefined;
        },
      },
    );
    return plaintext;
  }
}
