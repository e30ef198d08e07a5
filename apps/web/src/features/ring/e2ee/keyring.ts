import {
  E2EE_MESSAGES,
  type TGetMemberKeyResponse,
  type TKeyStateResponse,
  type TPublicKeys,
  type TRotateEpochRequest,
  type TSaveMemberKeyRequest,
  type TShareEpochKeysRequest,
} from '@securering/contract';
import {
  E2eeError,
  LEVEL_PARAMETERS,
  decryptMessage,
  deriveConversationKey,
  encryptMessage,
  exportPublicIdentity,
  fingerprint,
  generateEpochKey,
  generateIdentity,
  importVerifyKey,
  isE2eeError,
  openIdentity,
  recordNeedsUpgrade,
  sealIdentity,
  unwrapEpochKey,
  upgradeRecord,
  wrapEpochKeyFor,
  type EpochKey,
  type EpochKeyShare,
  type Identity,
  type MemberKeyRecord,
  type MessageHeader,
  type SecurityLevel,
} from '@securering/e2ee';
import {
  acceptKeys,
  chunk,
  compareWithSeen,
  conversationPeerOf,
  decideEpochAction,
  keyringStatus,
  planPendingShares,
  planRotationRecipients,
  sameKeys,
  sharesToOpen,
  trustOf,
  type KeyringStatus,
  type MemberTrust,
} from './keyring-policy';
import type { KeyringTransfer } from './popup-bridge';
import type { SeenKeysStore } from './seen-keys-store';

/** A Ring member's published keys, as rings/info.php lists them. */
export interface RingMemberKeys {
  id: string;
  username: string;
  keys: TPublicKeys | null;
  keyVersion: number | null;
}

/** The server calls the keyring makes (keys-api.ts in the page, fakes in tests). */
export interface KeyringApi {
  getMemberKey(): Promise<TGetMemberKeyResponse>;
  saveMemberKey(body: TSaveMemberKeyRequest): Promise<{ keyVersion: number }>;
  getState(): Promise<TKeyStateResponse>;
  /** Throws a {@link KeyCallConflict} on a 409 the keyring handles. */
  rotate(body: TRotateEpochRequest): Promise<void>;
  share(body: TShareEpochKeysRequest): Promise<void>;
  /** The Ring's active members and their keys; `fresh` asks the server again. */
  getMembers(fresh: boolean): Promise<RingMemberKeys[]>;
}

/**
 * A private conversation cannot be encrypted for its peer: it has no published keys yet
 * (`no_keys`), or its key changed and this browser waits for the person to confirm it (`changed`).
 */
export class PeerKeyUnavailable extends Error {
  constructor(
    readonly peerId: string,
    readonly reason: 'no_keys' | 'changed',
  ) {
    super(`peer key unavailable (${reason})`);
    this.name = 'PeerKeyUnavailable';
  }
}

/** A 409 of the key calls that means "read the state again and retry". */
export class KeyCallConflict extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'KeyCallConflict';
  }
}

export interface KeyringDeps {
  ringId: string;
  memberId: string;
  /** The Ring's current level (for the iterations of a new record). */
  level(): SecurityLevel;
  api: KeyringApi;
  seenKeys: SeenKeysStore;
  log?(message: string, details?: Record<string, unknown>): void;
  now?(): Date;
}

/** Where the unlock stands: what the passphrase dialog shows. */
export type KeyringPhase = 'loading' | 'load_failed' | 'setup' | 'unlock' | 'opener' | 'ready';

/** A member's safety number as this browser computed it, and whether its key may be used. */
export interface MemberSafety {
  memberId: string;
  fingerprint: string;
  trust: MemberTrust;
}

export interface KeyringSnapshot {
  status: KeyringStatus;
  phase: KeyringPhase;
  /** A passphrase operation (key derivation) is running. */
  busy: boolean;
  /** French message of the last failure (wrong passphrase, save refused), or null. */
  error: string | null;
  currentEpoch: number;
  rotationDue: boolean;
  heldEpochs: readonly number[];
  /** By member id: only members with published keys. */
  safety: ReadonlyMap<string, MemberSafety>;
}

/** A keyring before anything is loaded: locked, nothing held. */
export const LOCKED_KEYRING: KeyringSnapshot = {
  status: 'locked',
  phase: 'loading',
  busy: false,
  error: null,
  currentEpoch: 0,
  rotationDue: false,
  heldEpochs: [],
  safety: new Map(),
};

export const INSECURE_CONTEXT =
  'Le chiffrement de bout en bout demande une connexion sécurisée (HTTPS) : ouvrez le Ring en https://.';

/** The French message of a failure, for the dialog. */
function messageOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : E2EE_MESSAGES.unlockFailed;
}

/**
 * The member's keys for one Ring, in memory only (this tab and the popups it opens): its identity
 * after unlock, the epoch keys it could open, and what this browser knows of other members' keys.
 * It creates the first epoch, rotates when due, shares epoch keys with members who lack them, and
 * reads the state again whenever told (`requestSync`, debounced by the provider).
 */
export class Keyring {
  private identity: Identity | null = null;
  private ownKeys: TPublicKeys | null = null;
  private keyVersion = 0;
  private record: MemberKeyRecord | null = null;
  private publishedKeys: TPublicKeys | null = null;
  private readonly epochs = new Map<number, EpochKey>();
  private state: TKeyStateResponse | null = null;
  private members = new Map<string, RingMemberKeys>();
  private readonly fingerprints = new Map<string, string>();
  private readonly verifyKeys = new Map<string, CryptoKey>();
  /** Private conversation keys derived so far, by conversation, epoch and peer key. */
  private readonly conversationKeys = new Map<string, Promise<EpochKey>>();
  private failed = false;
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  private membersChain: Promise<void> = Promise.resolve();
  private disposed = false;
  private readonly listeners = new Set<() => void>();
  private snapshot: KeyringSnapshot = LOCKED_KEYRING;

  constructor(private readonly deps: KeyringDeps) {}

  get ringId(): string {
    return this.deps.ringId;
  }

  get memberId(): string {
    return this.deps.memberId;
  }

  // ---- store protocol (useSyncExternalStore) ---------------------------------------------------

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): KeyringSnapshot => this.snapshot;

  private update(patch: Partial<KeyringSnapshot>): void {
    if (this.disposed) return;
    const currentEpoch = this.state?.currentEpoch ?? 0;
    const next: KeyringSnapshot = { ...this.snapshot, ...patch };
    next.currentEpoch = currentEpoch;
    next.rotationDue = this.state?.rotationDue ?? false;
    next.heldEpochs = [...this.epochs.keys()].sort((a, b) => a - b);
    next.status = keyringStatus({
      unlocked: this.identity !== null,
      failed: this.failed,
      currentEpoch,
      holdsCurrentEpoch: this.epochs.has(currentEpoch),
    });
    this.snapshot = next;
    for (const listener of this.listeners) listener();
  }

  private log(message: string, details?: Record<string, unknown>): void {
    this.deps.log?.(message, details);
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Forgets every key (the room closed). */
  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
    this.identity = null;
    this.epochs.clear();
    this.conversationKeys.clear();
  }

  // ---- unlock ----------------------------------------------------------------------------------

  /** Reads the member's key record: the dialog then asks for a new passphrase or the usual one. */
  async load(): Promise<void> {
    if (!globalThis.crypto?.subtle) {
      // WebCrypto exists only in secure contexts (HTTPS, localhost).
      this.failed = true;
      this.update({ phase: 'load_failed', error: INSECURE_CONTEXT });
      return;
    }
    this.update({ phase: 'loading', error: null });
    try {
      const answer = await this.deps.api.getMemberKey();
      this.record = answer.key;
      this.publishedKeys = answer.publicKeys;
      this.keyVersion = answer.keyVersion;
      this.failed = false;
      this.update({ phase: answer.key ? 'unlock' : 'setup', error: null });
    } catch (error) {
      this.failed = true;
      this.update({ phase: 'load_failed', error: messageOf(error) });
    }
  }

  /** Target PBKDF2 iterations for this Ring's level (600,000; 1,000,000 at high and military). */
  private targetIterations(): number {
    return LEVEL_PARAMETERS[this.deps.level()].kdfIterations;
  }

  /**
   * First unlock: creates the member's identity, seals it under the new passphrase, publishes it,
   * then opens the saved record so the session uses non-extractable private keys.
   */
  async createPassphrase(passphrase: string): Promise<boolean> {
    return this.publishNewIdentity(passphrase, false);
  }

  /**
   * "Réinitialiser mes clés": a new identity under a new passphrase. The server drops this
   * member's shares; epoch keys come back only when another member shares them again.
   */
  async resetKeys(passphrase: string): Promise<boolean> {
    return this.publishNewIdentity(passphrase, true);
  }

  private async publishNewIdentity(passphrase: string, reset: boolean): Promise<boolean> {
    this.update({ busy: true, error: null });
    try {
      const fresh = await generateIdentity();
      const record = await sealIdentity(fresh, passphrase, {
        memberId: this.memberId,
        iterations: this.targetIterations(),
      });
      const publicKeys = await exportPublicIdentity(fresh);
      const saved = await this.deps.api.saveMemberKey({
        key: record,
        publicKeys,
        ...(reset ? { reset } : {}),
      });
      const opened = await openIdentity(record, passphrase, { memberId: this.memberId });
      this.record = record;
      this.publishedKeys = publicKeys;
      if (reset) this.epochs.clear();
      await this.becomeUnlocked(opened, publicKeys, saved.keyVersion);
      return true;
    } catch (error) {
      this.log('Publication des clés E2EE impossible', { error: messageOf(error), reset });
      this.update({ busy: false, error: messageOf(error) });
      // Another tab may have published keys meanwhile: read the record again.
      if (!reset) void this.reloadRecordQuietly();
      return false;
    }
  }

  private async reloadRecordQuietly(): Promise<void> {
    try {
      const answer = await this.deps.api.getMemberKey();
      if (answer.key && !this.identity) {
        this.record = answer.key;
        this.publishedKeys = answer.publicKeys;
        this.keyVersion = answer.keyVersion;
        this.update({ phase: 'unlock' });
      }
    } catch {
      // The dialog already shows the error.
    }
  }

  /**
   * Opens the member's record with the passphrase. A wrong one leaves everything locked and shows
   * "Déverrouillage E2EE échoué" (no fallback key). A record below the target iterations is
   * re-sealed and saved after a successful unlock.
   */
  async unlock(passphrase: string): Promise<boolean> {
    const record = this.record;
    if (!record) return false;
    this.update({ busy: true, error: null });
    let identity: Identity;
    try {
      identity = await openIdentity(record, passphrase, { memberId: this.memberId });
    } catch (error) {
      this.failed = true;
      this.log('Déverrouillage E2EE échoué', {
        code: isE2eeError(error) ? error.code : 'error',
      });
      this.update({ busy: false, error: E2EE_MESSAGES.unlockFailed });
      return false;
    }
    const publicKeys = await exportPublicIdentity(identity);
    if (this.publishedKeys && !sameKeys(this.publishedKeys, publicKeys)) {
      // The server lists other keys than the ones sealed in this member's own record.
      this.log('Clés publiques publiées différentes du coffre du membre');
    }
    await this.becomeUnlocked(identity, publicKeys, this.keyVersion);
    const target = this.targetIterations();
    if (recordNeedsUpgrade(record, target)) void this.upgrade(record, passphrase, publicKeys, target);
    return true;
  }

  private async upgrade(
    record: MemberKeyRecord,
    passphrase: string,
    publicKeys: TPublicKeys,
    iterations: number,
  ): Promise<void> {
    try {
      const upgraded = await upgradeRecord(record, passphrase, { memberId: this.memberId, iterations });
      const saved = await this.deps.api.saveMemberKey({ key: upgraded, publicKeys });
      this.record = upgraded;
      this.keyVersion = saved.keyVersion;
    } catch (error) {
      this.log('Renforcement du coffre de clés impossible', { error: messageOf(error) });
    }
  }

  /** Popup side: the opener's unlocked keys, without a prompt. */
  async adopt(transfer: KeyringTransfer): Promise<void> {
    for (const key of transfer.epochs) this.epochs.set(key.epoch, key);
    await this.becomeUnlocked(transfer.identity, transfer.publicKeys, transfer.keyVersion);
  }

  /** Room side: what a popup of this room receives (null while locked). */
  exportTransfer(): KeyringTransfer | null {
    if (!this.identity || !this.ownKeys) return null;
    return {
      ringId: this.ringId,
      memberId: this.memberId,
      identity: this.identity,
      publicKeys: this.ownKeys,
      keyVersion: this.keyVersion,
      epochs: [...this.epochs.values()],
    };
  }

  /** The popup could not get keys from its opener: it asks for the passphrase like a room. */
  markWaitingForOpener(waiting: boolean): void {
    if (waiting) this.update({ phase: 'opener' });
    else void this.load();
  }

  private async becomeUnlocked(
    identity: Identity,
    publicKeys: TPublicKeys,
    keyVersion: number,
  ): Promise<void> {
    this.identity = identity;
    this.ownKeys = publicKeys;
    this.keyVersion = keyVersion;
    this.failed = false;
    // Keys derived with a previous identity (before a reset) are of no use any more.
    this.conversationKeys.clear();
    const seen = await this.deps.seenKeys.get(this.ringId, this.memberId).catch(() => undefined);
    await this.deps.seenKeys
      .put(acceptKeys(seen, { ringId: this.ringId, memberId: this.memberId }, publicKeys, this.now()))
      .catch(() => undefined);
    this.update({ phase: 'ready', busy: false, error: null });
    await this.refreshSafety();
    void this.sync();
  }

  // ---- members and safety numbers --------------------------------------------------------------

  /** The Ring's members changed (rings/info.php): remember first-seen keys, recompute safety numbers. */
  setMembers(members: readonly RingMemberKeys[]): Promise<void> {
    this.members = new Map(members.map((m) => [m.id, m]));
    return this.refreshSafety();
  }

  private refreshSafety(): Promise<void> {
    const run = this.membersChain.then(async () => {
      const safety = new Map<string, MemberSafety>();
      for (const member of this.members.values()) {
        if (!member.keys) continue;
        safety.set(member.id, {
          memberId: member.id,
          fingerprint: await this.fingerprintOf(member.keys),
          trust: await this.observe(member.id, member.keys),
        });
      }
      this.update({ safety });
    });
    // The chain never rejects, so a failure does not stop later refreshes.
    this.membersChain = run.catch((error: unknown) => {
      this.log('Numéros de sécurité indisponibles', { error: messageOf(error) });
    });
    return this.membersChain;
  }

  private async fingerprintOf(keys: TPublicKeys): Promise<string> {
    const id = `${keys.x25519}|${keys.ed25519}`;
    let value = this.fingerprints.get(id);
    if (!value) {
      value = await fingerprint(keys);
      this.fingerprints.set(id, value);
    }
    return value;
  }

  /**
   * Compares a member's published keys with those this browser remembers: a first sighting is
   * remembered and trusted; a change is not trusted until `confirmKey`. This member's own keys are
   * trusted only when they are the ones it unlocked.
   */
  private async observe(memberId: string, keys: TPublicKeys): Promise<MemberTrust> {
    if (memberId === this.memberId && this.ownKeys)
      return sameKeys(keys, this.ownKeys) ? 'trusted' : 'changed';
    const target = { ringId: this.ringId, memberId };
    const seen = await this.deps.seenKeys.get(this.ringId, memberId);
    const comparison = compareWithSeen(seen, keys);
    if (comparison === 'new') await this.deps.seenKeys.put(acceptKeys(seen, target, keys, this.now()));
    return trustOf(comparison);
  }

  /** "Confirmer la nouvelle clé de …": the person checked the new safety number. */
  async confirmKey(memberId: string): Promise<void> {
    const member = this.members.get(memberId);
    if (!member?.keys) return;
    const seen = await this.deps.seenKeys.get(this.ringId, memberId);
    await this.deps.seenKeys.put(
      acceptKeys(seen, { ringId: this.ringId, memberId }, member.keys, this.now()),
    );
    await this.refreshSafety();
    void this.sync();
  }

  /**
   * Ed25519 keys (base64) that may have signed what `memberId` sent: its published key when
   * trusted, then the keys this browser accepted for it earlier (before a key reset).
   */
  private async senderKeysOf(memberId: string): Promise<string[]> {
    const keys: string[] = [];
    if (memberId === this.memberId && this.ownKeys) keys.push(this.ownKeys.ed25519);
    const member = this.members.get(memberId);
    if (
      member?.keys &&
      memberId !== this.memberId &&
      (await this.observe(memberId, member.keys)) === 'trusted'
    ) {
      keys.push(member.keys.ed25519);
    }
    const seen = await this.deps.seenKeys.get(this.ringId, memberId).catch(() => undefined);
    if (seen) keys.push(seen.current.ed25519, ...seen.previous.map((k) => k.ed25519));
    return [...new Set(keys)];
  }

  private async importVerifyKeyCached(ed25519: string): Promise<CryptoKey> {
    let key = this.verifyKeys.get(ed25519);
    if (!key) {
      key = await importVerifyKey(ed25519);
      this.verifyKeys.set(ed25519, key);
    }
    return key;
  }

  /** Keys that verify what `memberId` signed, newest first (empty when none is trusted here). */
  async verifyKeysOf(memberId: string): Promise<CryptoKey[]> {
    return Promise.all((await this.senderKeysOf(memberId)).map((k) => this.importVerifyKeyCached(k)));
  }

  // ---- epoch keys ------------------------------------------------------------------------------

  get signingKey(): CryptoKey | null {
    return this.identity?.signing.privateKey ?? null;
  }

  epochKey(epoch: number): EpochKey | undefined {
    return this.epochs.get(epoch);
  }

  currentEpochKey(): EpochKey | undefined {
    return this.state ? this.epochs.get(this.state.currentEpoch) : undefined;
  }

  /** The Ring names key (the same in every epoch), once any epoch key is held. */
  namesKey(): Uint8Array | undefined {
    const latest = Math.max(...this.epochs.keys());
    return this.epochs.get(latest)?.namesKey;
  }

  /**
   * Reads the key state again and acts on it; calls made while one runs are merged into one more
   * run after it.
   */
  sync(): Promise<void> {
    if (!this.identity || this.disposed) return Promise.resolve();
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      let rounds = 0;
      do {
        this.syncAgain = false;
        try {
          await this.runSync();
        } catch (error) {
          this.log('Synchronisation des clés du Ring impossible', { error: messageOf(error) });
        }
        rounds += 1;
      } while (this.syncAgain && !this.disposed && rounds < 5);
    })().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  /** The Ring's key revision of the key state held (keys/state.php), undefined before the first. */
  get keyRevision(): number | undefined {
    return this.state?.keyRevision;
  }

  private async runSync(): Promise<void> {
    const state = await this.deps.api.getState();
    if (this.disposed || !this.identity) return;
    this.state = state;
    await this.openShares(state);
    if (state.currentEpoch === 0) {
      const outcome = await this.rotateTo(1, state.level);
      if (outcome === 'done' || outcome === 'retry') this.syncAgain = true;
    } else {
      await this.sharePending(state);
    }
    this.update({});
  }

  private async openShares(state: TKeyStateResponse): Promise<void> {
    const identity = this.identity;
    if (!identity) return;
    const groups = sharesToOpen(state.shares, new Set(this.epochs.keys()), state.firstReadableEpoch);
    const missingSenders = [...groups.values()]
      .flat()
      .some((entry) => entry.senderMemberId !== this.memberId && !this.members.has(entry.senderMemberId));
    if (missingSenders) await this.setMembers(await this.deps.api.getMembers(true));
    for (const [epoch, entries] of groups) {
      for (const entry of entries) {
        const key = await this.openShare(entry.share as EpochKeyShare, entry.senderMemberId, identity);
        if (key && key.epoch === epoch) {
          this.epochs.set(epoch, key);
          break;
        }
      }
    }
  }

  private async openShare(
    share: EpochKeyShare,
    senderMemberId: string,
    identity: Identity,
  ): Promise<EpochKey | undefined> {
    if (share.senderMemberId !== senderMemberId) return undefined;
    for (const senderKey of await this.senderKeysOf(senderMemberId)) {
      try {
        return await unwrapEpochKey(
          share,
          { memberId: this.memberId, agreementKeyPair: identity.agreement },
          senderKey,
          { ringId: this.ringId },
        );
      } catch {
        // Try the sender's earlier key, if any.
      }
    }
    this.log('Clé du Ring invérifiable ignorée', { epoch: share.epoch, sender: senderMemberId });
    return undefined;
  }

  /** Creates epoch `epoch` and shares it with the members this browser trusts. */
  private async rotateTo(epoch: number, level: SecurityLevel): Promise<'done' | 'retry' | 'cannot'> {
    const identity = this.identity;
    const ownKeys = this.ownKeys;
    if (!identity || !ownKeys) return 'cannot';
    const previous = this.epochs.get(epoch - 1);
    if (epoch > 1 && !previous) return 'cannot';
    const members = await this.deps.api.getMembers(true);
    await this.setMembers(members);
    const trust = new Map<string, MemberTrust>();
    for (const member of members)
      if (member.keys) trust.set(member.id, await this.observe(member.id, member.keys));
    const plan = planRotationRecipients({
      selfId: this.memberId,
      selfKeys: ownKeys,
      selfKeyVersion: this.keyVersion,
      members,
      trust: (memberId) => trust.get(memberId) ?? 'changed',
    });
    const key = await generateEpochKey({
      ringId: this.ringId,
      epoch,
      level,
      ...(previous ? { namesKey: previous.namesKey } : {}),
    });
    const sender = { memberId: this.memberId, signingPrivateKey: identity.signing.privateKey };
    const shares = await Promise.all(
      plan.recipients.map((r) =>
        wrapEpochKeyFor(key, { memberId: r.memberId, x25519PublicB64: r.x25519 }, sender),
      ),
    );
    try {
      await this.deps.api.rotate({
        epoch,
        level,
        shares,
        withheld: plan.withheld,
        keyVersions: Object.fromEntries(plan.recipients.map((r) => [r.memberId, r.keyVersion])),
      });
    } catch (error) {
      if (error instanceof KeyCallConflict) return 'retry';
      throw error;
    }
    this.epochs.set(epoch, key);
    return 'done';
  }

  /** Wraps the epochs this member holds for the members who lack them (state.php `pending`). */
  private async sharePending(state: TKeyStateResponse): Promise<void> {
    const identity = this.identity;
    if (!identity || state.pending.length === 0) return;
    const trust = new Map<string, MemberTrust>();
    for (const entry of state.pending)
      trust.set(entry.memberId, await this.observe(entry.memberId, entry.publicKeys));
    const plan = planPendingShares({
      selfId: this.memberId,
      pending: state.pending,
      heldEpochs: new Set(this.epochs.keys()),
      trust: (memberId) => trust.get(memberId) ?? 'changed',
    });
    if (plan.targets.length === 0) return;
    const sender = { memberId: this.memberId, signingPrivateKey: identity.signing.privateKey };
    const work = plan.targets.flatMap((target) =>
      target.epochs.map((epoch) => ({ target, key: this.epochs.get(epoch)! })),
    );
    const shares = await Promise.all(
      work.map(({ target, key }) =>
        wrapEpochKeyFor(key, { memberId: target.memberId, x25519PublicB64: target.x25519 }, sender),
      ),
    );
    const versions = new Map(plan.targets.map((t) => [t.memberId, t.keyVersion]));
    for (const part of chunk(shares, 1000)) {
      const keyVersions = Object.fromEntries(
        [...new Set(part.map((s) => s.recipientMemberId))].map((id) => [id, versions.get(id)!]),
      );
      try {
        await this.deps.api.share({ shares: part, keyVersions });
      } catch (error) {
        if (error instanceof KeyCallConflict) this.syncAgain = true;
        else this.log('Partage de clés du Ring impossible', { error: messageOf(error) });
      }
    }
  }

  /**
   * The epoch key to encrypt the next message with: creates the next epoch first when the Ring has
   * none, when one is due, or when the level changed; reads the state again after a concurrent
   * rotation. Throws `E2eeError('missing_key')` while this member waits for the current key.
   */
  async ensureSendableEpoch(): Promise<EpochKey> {
    for (let attempt = 0; attempt < 4; attempt++) {
      await this.sync();
      const state = this.state;
      if (!state || !this.identity) break;
      const decision = decideEpochAction({
        currentEpoch: state.currentEpoch,
        rotationDue: state.rotationDue,
        level: state.level,
        currentKeyLevel: this.epochs.get(state.currentEpoch)?.level,
      });
      if (decision.action === 'none') return this.epochs.get(state.currentEpoch)!;
      if (decision.action === 'wait') break;
      const outcome = await this.rotateTo(decision.epoch, state.level);
      if (outcome === 'cannot') break;
      if (outcome === 'done') {
        await this.sync();
        const key = this.epochs.get(decision.epoch);
        if (key && this.state?.currentEpoch === decision.epoch) return key;
      }
    }
    throw new E2eeError('missing_key', 'no sendable epoch key');
  }

  // ---- messages --------------------------------------------------------------------------------

  /**
   * X25519 keys (base64) of a private conversation's peer this browser may use: its published key
   * when trusted; to read, also the keys accepted for it earlier (messages from before a reset).
   */
  private async peerAgreementKeys(peerId: string, forSending: boolean): Promise<string[]> {
    const keys: string[] = [];
    const member = this.members.get(peerId);
    if (member?.keys && (await this.observe(peerId, member.keys)) === 'trusted')
      keys.push(member.keys.x25519);
    if (forSending) {
      if (keys.length === 0) throw new PeerKeyUnavailable(peerId, member?.keys ? 'changed' : 'no_keys');
      return keys;
    }
    const seen = await this.deps.seenKeys.get(this.ringId, peerId).catch(() => undefined);
    if (seen) keys.push(seen.current.x25519, ...seen.previous.map((k) => k.x25519));
    return [...new Set(keys)];
  }

  /** The pairwise key of a private conversation under one epoch (derived once, kept in memory). */
  private conversationKey(
    epochKey: EpochKey,
    conversationId: string,
    peerId: string,
    peerX25519: string,
  ): Promise<EpochKey> {
    const identity = this.identity;
    if (!identity) return Promise.reject(new E2eeError('missing_key', 'locked'));
    const id = `${conversationId}|${epochKey.epoch}|${peerX25519}`;
    let key = this.conversationKeys.get(id);
    if (!key) {
      key = deriveConversationKey(epochKey, {
        myMemberId: this.memberId,
        myAgreementKeyPair: identity.agreement,
        peerMemberId: peerId,
        peerX25519PublicB64: peerX25519,
        ringId: this.ringId,
        conversationId,
      });
      // A failure is not remembered: the next attempt derives again.
      key.catch(() => this.conversationKeys.delete(id));
      this.conversationKeys.set(id, key);
    }
    return key;
  }

  /**
   * Encrypts and signs `plaintext` for `conversationId` under `epochKey` (from ensureSendableEpoch).
   * The room uses the epoch key; a private conversation uses the pairwise key of its two members
   * (`deriveConversationKey`), so other members holding the epoch key cannot read it. Throws
   * {@link PeerKeyUnavailable} when the peer has no usable key.
   */
  async encryptText(
    conversationId: string,
    plaintext: string,
    epochKey: EpochKey,
    clientMessageId: string = crypto.randomUUID(),
  ): Promise<{ content: string; header: MessageHeader }> {
    if (!this.identity) throw new E2eeError('missing_key', 'locked');
    const target = conversationPeerOf(conversationId, this.memberId);
    if (target.kind === 'foreign') throw new E2eeError('invalid_format', 'not a conversation of this member');
    let key = epochKey;
    if (target.kind === 'dm') {
      const [peerX25519] = await this.peerAgreementKeys(target.peerId, true);
      key = await this.conversationKey(epochKey, conversationId, target.peerId, peerX25519!);
    }
    const header: MessageHeader = {
      v: 1,
      ringId: this.ringId,
      conversationId,
      epoch: epochKey.epoch,
      senderId: this.memberId,
      clientMessageId,
      sentAt: this.now().toISOString(),
    };
    return {
      content: await encryptMessage(header, plaintext, key, this.identity.signing.privateKey),
      header,
    };
  }

  /**
   * Verifies and decrypts a message found in `conversationId`, trying the sender's current then
   * earlier trusted keys (and, in a private conversation, the peer's current then earlier keys).
   * Throws `missing_key` (wait for keys) or `unverifiable` ("Message non vérifiable").
   */
  async decryptText(
    content: string,
    conversationId: string,
  ): Promise<{ header: MessageHeader; plaintext: string }> {
    const target = conversationPeerOf(conversationId, this.memberId);
    if (target.kind === 'foreign') throw new E2eeError('unverifiable', 'not a conversation of this member');
    if (target.kind === 'room')
      return this.decryptWith(content, conversationId, (epoch) => this.epochs.get(epoch));
    const peerKeys = await this.peerAgreementKeys(target.peerId, false);
    if (peerKeys.length === 0) throw new E2eeError('missing_key', 'peer key unknown');
    let lastError: unknown;
    for (const [index, peerX25519] of peerKeys.entries()) {
      try {
        return await this.decryptWith(content, conversationId, (epoch) => {
          const epochKey = this.epochs.get(epoch);
          return epochKey && this.conversationKey(epochKey, conversationId, target.peerId, peerX25519);
        });
      } catch (error) {
        lastError = error;
        if (!isE2eeError(error, 'unverifiable') || index + 1 >= peerKeys.length) break;
      }
    }
    throw lastError;
  }

  private async decryptWith(
    content: string,
    conversationId: string,
    keyOf: (epoch: number) => EpochKey | undefined | Promise<EpochKey | undefined>,
  ): Promise<{ header: MessageHeader; plaintext: string }> {
    const expected = { ringId: this.ringId, conversationId };
    let candidates: CryptoKey[] | null = null;
    let lastError: unknown = new E2eeError('missing_key', 'sender key unknown');
    for (let index = 0; ; index++) {
      try {
        return await decryptMessage(content, expected, {
          epochKey: keyOf,
          senderVerifyKey: async (senderId) => {
            candidates ??= await this.verifyKeysOf(senderId);
            return candidates[index];
          },
        });
      } catch (error) {
        lastError = error;
        const more = candidates !== null && index + 1 < (candidates as CryptoKey[]).length;
        if (!isE2eeError(error, 'unverifiable') || !more) break;
      }
    }
    throw lastError;
  }
}
