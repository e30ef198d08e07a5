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
  decryptMessage,
  encryptMessage,
  exportPublicIdentity,
  generateEpochKey,
  generateIdentity,
  importVerifyKey,
  sealIdentity,
  unwrapEpochKey,
  wrapEpochKeyFor,
  type EpochKey,
  type EpochKeyShare,
  type Identity,
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

  /** First unlock: creates and publishes identity keys. */
  async publish(options: { reset?: boolean } = {}): Promise<LightMyRequestResponse> {
    if (!this.identity || options.reset) await this.newIdentity();
    const res = await this.call('POST', KEY_API_PATHS.saveMemberKey, {
      key: this.record,
      publicKeys: this.publicKeys,
      ...(options.reset ? { reset: true } : {}),
    });
    if (res.statusCode === 200) this.keyVersion = res.json().keyVersion as number;
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
    );
  }

  /**
   * Creates the next epoch for every active member with published keys, as the client does when a
   * rotation is due. Returns the answer; on success the new key is kept.
   */
  async rotate(options: { skip?: string[]; withheld?: string[] } = {}): Promise<LightMyRequestResponse> {
    const state = await this.loadKeys();
    const info = await this.members();
    const epoch = state.currentEpoch + 1;
    const key = await generateEpochKey({
      ringId: this.ringId,
      epoch,
      level: state.level,
      namesKey: this.epochKeys.get(state.currentEpoch)?.namesKey,
    });
    const skip = new Set([...(options.skip ?? []), ...(options.withheld ?? [])]);
    const recipients = info.users.filter((u) => u.keys && !skip.has(u.id));
    const shares = await Promise.all(
      recipients.map((u) => this.wrapFor(key, { memberId: u.id, x25519: u.keys!.publicKeys.x25519 })),
    );
    const res = await this.call('POST', KEY_API_PATHS.rotate, {
      epoch,
      level: state.level,
      shares,
      withheld: options.withheld ?? [],
      keyVersions: Object.fromEntries(recipients.map((u) => [u.id, u.keys!.keyVersion])),
    });
    if (res.statusCode === 200) this.epochKeys.set(epoch, key);
    return res;
  }

  /** Shares every key it holds with the members the server says lack them. */
  async shareAll(): Promise<LightMyRequestResponse | undefined> {
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
    options: { epoch?: number; clientMessageId?: string } = {},
  ): Promise<string> {
    const epoch = options.epoch ?? Math.max(...this.epochKeys.keys());
    const key = this.epochKeys.get(epoch);
    if (!key) throw new Error(`${this.memberId} holds no key of epoch ${epoch}`);
    return encryptMessage(
      {
        v: 1,
        ringId: this.ringId,
        conversationId,
        epoch,
        senderId: this.memberId,
        clientMessageId: options.clientMessageId ?? randomUUID(),
        sentAt: new Date().toISOString(),
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
