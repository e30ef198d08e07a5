import {
  E2EE_MESSAGES,
  type TGetMemberKeyResponse,
  type TKeyStateResponse,
  type TMembershipLogResponse,
  type TPublicKeys,
  type TRotateEpochRequest,
  type TSaveMemberKeyRequest,
  type TShareEpochKeysRequest,
} from '@securering/contract';
import {
  E2eeError,
  LEVEL_PARAMETERS,
  SECURITY_LEVELS,
  READING_OFF,
  type ReadingSettings,
  createGenesis,
  createLink,
  decryptMessage,
  deriveConversationKey,
  encryptMessage,
  exportPublicIdentity,
  activeLogMembers,
  fingerprint,
  generateEpochKey,
  generateIdentity,
  generateRecoveryKey,
  hasRecoveryCopy,
  importVerifyKey,
  isE2eeError,
  lastReadersChange,
  mayAdmit,
  metaSignerKeys,
  openIdentity,
  openIdentityWithRecoveryKey,
  openLogCheckpoint,
  recordNeedsUpgrade,
  resealRecord,
  samePublicIdentity,
  sealIdentity,
  signLogCheckpoint,
  signingKeysAt,
  signingKeysFrom,
  unwrapEpochKey,
  verifyMembershipLog,
  wrapEpochKeyFor,
  type EpochKey,
  type EpochKeyShare,
  type Identity,
  type MemberKeyRecord,
  type MembershipChange,
  type MembershipLink,
  type MembershipState,
  type MessageChain,
  type MessageHeader,
  type SecurityLevel,
  type SignedPin,
} from '@securering/e2ee';
import {
  admissionOf,
  checkAgainstCheckpoint,
  chunk,
  departedMembers,
  conversationPeerOf,
  decideEpochAction,
  keyringStatus,
  planPendingShares,
  planRotationRecipients,
  publicKeysId,
  reactivatableMembers,
  sendBlockedBy,
  sharesToOpen,
  trustOf,
  verificationOf,
  waitingForAdmission,
  type Admission,
  type HeldEpoch,
  type KeyringStatus,
  type MemberTrust,
  type Verification,
} from './keyring-policy';
import type { LocalTrustStore } from './local-trust-store';
import type { KeyringTransfer } from './popup-bridge';

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
  /** The membership log's links after `after` (keys/log.php). */
  getLog(after: number): Promise<TMembershipLogResponse>;
  /** Appends a link; throws a {@link KeyCallConflict} when the head moved meanwhile. */
  appendLink(link: MembershipLink): Promise<void>;
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

/**
 * A message cannot be sent yet: these members' keys, which this person marked « Vérifié », changed
 * since (keyring-policy `sendBlockedBy`); the person compares the new safety numbers first.
 */
export class VerifiedKeyChanged extends Error {
  constructor(readonly memberIds: readonly string[]) {
    super('verified key changed');
    this.name = 'VerifiedKeyChanged';
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
  /**
   * This member's role as the server says: only decides whether this browser offers to start the
   * Ring's membership log (the owner's genesis) — the server refuses a genesis from anyone else.
   */
  role(): 'owner' | 'admin' | 'member';
  api: KeyringApi;
  localTrust: LocalTrustStore;
  /** « Se souvenir sur cet appareil »: the unlocked identity kept in this browser (absent: never). */
  remembered?: RememberedIdentityStore;
  log?(message: string, details?: Record<string, unknown>): void;
  now?(): Date;
}

/**
 * Where « Se souvenir sur cet appareil » keeps the unlocked identity: its private keys are
 * non-extractable CryptoKeys, stored as such (IndexedDB in the browser: lib/remembered-keys.ts).
 */
export interface RememberedIdentityStore {
  get(ringId: string, memberId: string): Promise<{ identity: Identity; publicKeys: TPublicKeys } | undefined>;
  put(ringId: string, memberId: string, identity: Identity, publicKeys: TPublicKeys): Promise<void>;
  forget(ringId: string, memberId: string): Promise<void>;
}

/** Where the unlock stands: what the passphrase dialog shows. */
export type KeyringPhase = 'loading' | 'load_failed' | 'setup' | 'unlock' | 'opener' | 'ready';

/** A member's safety number as this browser computed it, and whether its key may be used. */
export interface MemberSafety {
  memberId: string;
  /** Safety number of the keys the server publishes for the member now. */
  fingerprint: string;
  /** Safety number of the keys the membership log names (differs while a key change waits). */
  logFingerprint: string | null;
  trust: MemberTrust;
  /** Whether this person marked it « Vérifié », and whether the log still names those keys. */
  verification: Verification;
}

/** Why the membership log cannot be trusted: nothing is wrapped or sent while it is set. */
export const LOG_PROBLEM_TEXT = {
  invalid:
    'Le journal des membres du Ring servi par le serveur est invalide (signature ou droits non vérifiés).',
  fork: 'Le journal des membres du Ring ne correspond pas à celui que ce navigateur a déjà vérifié.',
  rollback: 'Le serveur sert un journal des membres plus ancien que celui que ce navigateur a déjà vérifié.',
} as const;

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
  /** Where this member stands in the signed membership log. */
  admission: Admission;
  /** This member may admit newcomers, refuse them and confirm key changes (owner or Ring admin). */
  mayAdmit: boolean;
  /** This member is the Ring's owner in the log (it names and removes Ring admins). */
  isLogOwner: boolean;
  /** Newcomers waiting for admission (the server lists them with keys; the log does not). */
  waiting: readonly string[];
  /** Members the server asked to share keys with although the log does not know them. */
  ignoredPending: readonly string[];
  /** Active in the log but no longer listed by the server (deactivated in the customer space). */
  departed: ReadonlyArray<{ id: string; username: string }>;
  /** Listed by the server again (reactivated in the customer space) but deactivated in the log. */
  reactivatable: readonly string[];
  /**
   * This member is the log's owner, other members are active, and none is a Ring admin: nobody
   * could vouch for the owner's new keys after a forgotten passphrase.
   */
  noAdminToVouch: boolean;
  /** The level the owner signed in the log (null before its genesis). */
  logLevel: SecurityLevel | null;
  /**
   * Typing indicators and read receipts as the owner signed them in the verified log (issue 29):
   * both off without a log, with an untrusted one, or until the owner switches them on.
   */
  reading: ReadingSettings;
  /** The customer space offers « Partager l'historique » in the admission dialog. */
  historyOffered: boolean;
  /** Set when the log cannot be trusted (see LOG_PROBLEM_TEXT): no key is used then. */
  logProblem: string | null;
  /** Members this person verified whose keys changed since: nothing is sent to them meanwhile. */
  verifiedKeyChanged: readonly string[];
  /**
   * A recovery key (« Clé de secours ») just sealed into the member's record, to show once; null
   * once the member confirmed it is saved (`acknowledgeRecoveryKey`). Never stored.
   */
  recoveryKey: string | null;
  /** The identity is remembered on this device (« Se souvenir sur cet appareil »). */
  remembered: boolean;
  /**
   * Members (other than this one) who may confirm a member's new keys: the owner then the Ring
   * admins active in the verified log, with the names the log signed (told to a member whose new
   * keys wait).
   */
  confirmers: ReadonlyArray<{ id: string; username: string }>;
  /**
   * Other members' key changes, for the timeline (« La clé de Léa a changé — comparer »): those the
   * verified log records (`at`: the link's time) and those the server publishes that no one
   * confirmed yet (`pending`; `at`: when this tab first saw them).
   */
  keyChanges: readonly KeyChange[];
  /**
   * Members removed from (deactivate) or brought back to (reactivate) the Ring as the verified log
   * signs it, for the room's timeline after a reload too (« Marc a été retiré du Ring »); `at`:
   * the link's signed time. Empty while the log is not trusted.
   */
  membershipChanges: readonly LoggedMembershipChange[];
}

/** A deactivation or reactivation of the verified log, as the timeline shows it. */
export interface LoggedMembershipChange {
  memberId: string;
  /** The name the log signed for the member. */
  username: string;
  at: string;
  back: boolean;
}

/** A member's key change as shown in the timeline. */
export interface KeyChange {
  memberId: string;
  at: string;
  pending: boolean;
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
  admission: 'no_log',
  mayAdmit: false,
  isLogOwner: false,
  waiting: [],
  ignoredPending: [],
  departed: [],
  reactivatable: [],
  noAdminToVouch: false,
  logLevel: null,
  reading: READING_OFF,
  historyOffered: false,
  logProblem: null,
  verifiedKeyChanged: [],
  recoveryKey: null,
  remembered: false,
  confirmers: [],
  keyChanges: [],
  membershipChanges: [],
};

/** What the recovery form says when the recovery key does not open the record. */
export const RECOVERY_TEXT = {
  wrong: 'Clé de secours incorrecte.',
  malformed: 'Clé de secours invalide\u202f: 32 caractères, lettres et chiffres, par groupes de 4.',
  none: 'Aucune clé de secours n’a été créée pour votre compte dans ce Ring.',
} as const;

/** The passphrase dialog's notice on a device whose keys another device of the member replaced. */
export const KEYS_REPLACED_TEXT =
  'Vos clés ont été réinitialisées sur un autre appareil\u202f: saisissez votre nouvelle phrase secrète.';

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
  /**
   * The public keys this browser is publishing (a first unlock or a reset, from the save until
   * the new identity is in use): the members list may already show them, and they are not a reset
   * made on another device.
   */
  private publishingKeys: TPublicKeys | null = null;
  private readonly epochs = new Map<number, EpochKey>();
  private state: TKeyStateResponse | null = null;
  private members = new Map<string, RingMemberKeys>();
  /** The Ring's membership log as this tab verified it (null before its genesis). */
  private log: MembershipState | null = null;
  private logProblem: string | null = null;
  private ignoredPending: string[] = [];
  /** Members this person marked « Vérifié »: member id → publicKeysId of the keys compared. */
  private verified: Record<string, string> = {};
  /** When a lookup last read the log again for a member it did not know (verifyKeysOf). */
  private logReadAt = 0;
  private readonly fingerprints = new Map<string, string>();
  /** Key changes the verified log records (other members'), by link seq. */
  private loggedKeyChanges: KeyChange[] = [];
  /** Deactivations and reactivations the verified log records, by link seq. */
  private loggedMembershipChanges: LoggedMembershipChange[] = [];
  /** When this tab first saw a member's published keys differ from the log's (unconfirmed change). */
  private readonly pendingSince = new Map<string, string>();
  private readonly verifyKeys = new Map<string, CryptoKey>();
  /** Private conversation keys derived so far, by conversation, epoch and peer key. */
  private readonly conversationKeys = new Map<string, Promise<EpochKey>>();
  private failed = false;
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  /** The epoch a rotation ahead was started from (rotateAhead: at most one per epoch). */
  private rotatedAheadOf = 0;
  /** A recovery epoch is being created (an orphaned current epoch). */
  private recovering = false;
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
      failed: this.failed || this.logProblem !== null,
      currentEpoch,
      holdsCurrentEpoch: this.epochs.has(currentEpoch) && this.admission() === 'admitted',
    });
    next.admission = this.admission();
    next.mayAdmit = this.log !== null && this.logProblem === null && mayAdmit(this.log, this.memberId);
    next.isLogOwner = next.mayAdmit && this.log?.members.get(this.memberId)?.role === 'owner';
    next.waiting = waitingForAdmission(this.log, [...this.members.values()]).map((m) => m.id);
    next.ignoredPending = this.ignoredPending;
    const listed = new Set(this.members.keys());
    next.departed = next.mayAdmit ? departedMembers(this.log, this.memberId, listed) : [];
    next.reactivatable = reactivatableMembers(this.logProblem ? null : this.log, listed);
    const active = this.log ? [...this.log.members.values()].filter((m) => m.status === 'active') : [];
    next.noAdminToVouch = next.isLogOwner && active.length > 1 && !active.some((m) => m.role === 'admin');
    next.logLevel = this.log?.level ?? null;
    const membershipChanges = this.logProblem ? [] : this.loggedMembershipChanges;
    next.membershipChanges =
      membershipChanges.length === this.snapshot.membershipChanges.length &&
      membershipChanges.every((c, i) => c === this.snapshot.membershipChanges[i])
        ? this.snapshot.membershipChanges
        : membershipChanges;
    const reading = (!this.logProblem && this.log?.reading) || READING_OFF;
    next.reading =
      reading.typing === this.snapshot.reading.typing && reading.receipts === this.snapshot.reading.receipts
        ? this.snapshot.reading
        : { typing: reading.typing, receipts: reading.receipts };
    next.historyOffered = this.state?.shareHistory ?? false;
    next.logProblem = this.logProblem;
    next.confirmers =
      this.log && !this.logProblem
        ? activeLogMembers(this.log)
            .filter((m) => m.id !== this.memberId && mayAdmit(this.log!, m.id))
            .sort((a, b) => (a.role === b.role ? 0 : a.role === 'owner' ? -1 : 1))
            .map((m) => ({ id: m.id, username: m.username }))
        : [];
    this.snapshot = next;
    for (const listener of this.listeners) listener();
  }

  private report(message: string, details?: Record<string, unknown>): void {
    this.deps.log?.(message, details);
  }

  private admission(): Admission {
    return admissionOf(this.log, this.memberId, this.ownKeys);
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
      this.verified = await this.deps.localTrust.getVerified(this.ringId, this.memberId).catch(() => ({}));
      this.failed = false;
      if (answer.key && answer.publicKeys && (await this.unlockRemembered(answer.publicKeys))) return;
      this.update({ phase: answer.key ? 'unlock' : 'setup', error: null });
    } catch (error) {
      this.failed = true;
      this.update({ phase: 'load_failed', error: messageOf(error) });
    }
  }

  /**
   * « Se souvenir sur cet appareil »: unlocks with the identity this browser kept, when its public
   * keys are still the ones published for the member (a reset elsewhere replaced them: forgotten).
   */
  private async unlockRemembered(published: TPublicKeys): Promise<boolean> {
    const store = this.deps.remembered;
    if (!store) return false;
    const kept = await store.get(this.ringId, this.memberId).catch(() => undefined);
    if (!kept) return false;
    try {
      const own = await exportPublicIdentity(kept.identity);
      if (samePublicIdentity(own, published) && samePublicIdentity(kept.publicKeys, published)) {
        this.update({ remembered: true });
        await this.becomeUnlocked(kept.identity, own, this.keyVersion);
        return true;
      }
    } catch {
      // An unreadable entry: forgotten below.
    }
    await store.forget(this.ringId, this.memberId).catch(() => undefined);
    return false;
  }

  /**
   * Keeps (or forgets) the unlocked identity in this browser for the next visit. Only the key
   * objects are stored: their private halves are non-extractable, so nothing can read them out.
   */
  async rememberOnDevice(remember: boolean): Promise<void> {
    const store = this.deps.remembered;
    if (!store) return;
    const identity = this.identity;
    const keys = this.ownKeys;
    try {
      if (remember && identity && keys) await store.put(this.ringId, this.memberId, identity, keys);
      else await store.forget(this.ringId, this.memberId);
      this.update({ remembered: remember && identity !== null });
    } catch (error) {
      this.report('Mémorisation des clés sur cet appareil impossible', { error: messageOf(error) });
      this.update({ remembered: false });
    }
  }

  /** Argon2id cost of new records for this Ring's level (64 MiB, 2 passes). */
  private targetKdf() {
    return LEVEL_PARAMETERS[this.deps.level()].argon2id;
  }

  /** The member confirmed the recovery key is printed or saved: it leaves memory. */
  acknowledgeRecoveryKey(): void {
    this.update({ recoveryKey: null });
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
    // A reset while unlocked: the old key still signs the key change in the log, so no one has to
    // confirm it. Locked (passphrase forgotten): an owner or Ring admin confirms it after comparing.
    const vouch =
      reset && this.identity && this.log && !this.logProblem && this.admission() === 'admitted'
        ? { log: this.log, signer: this.signer() }
        : null;
    try {
      const fresh = await generateIdentity();
      const recoveryKey = generateRecoveryKey();
      const record = await sealIdentity(fresh, passphrase, {
        memberId: this.memberId,
        argon2id: this.targetKdf(),
        recoveryKey,
      });
      const publicKeys = await exportPublicIdentity(fresh);
      this.publishingKeys = publicKeys;
      const saved = await this.deps.api.saveMemberKey({
        key: record,
        publicKeys,
        ...(reset ? { reset } : {}),
      });
      const opened = await openIdentity(record, passphrase, { memberId: this.memberId });
      let vouched = false;
      if (vouch) {
        const link = await createLink(
          vouch.log,
          { type: 'key_change', body: { memberId: this.memberId, keys: publicKeys } },
          vouch.signer,
          this.now(),
        );
        vouched = await this.deps.api.appendLink(link).then(
          () => true,
          (error: unknown) => {
            this.report('Changement de clé non signé par l’ancienne clé', { error: messageOf(error) });
            return false;
          },
        );
      }
      this.record = record;
      this.publishedKeys = publicKeys;
      if (reset) this.epochs.clear();
      await this.becomeUnlocked(opened, publicKeys, saved.keyVersion);
      this.update({ recoveryKey });
      // The new keys are in the log: a holder of the current epoch shares it with them; when there
      // is none any more (this member was the last one), this browser starts a recovery epoch.
      if (vouched) void this.rotateAfterChange();
      return true;
    } catch (error) {
      this.report('Publication des clés E2EE impossible', { error: messageOf(error), reset });
      this.update({ busy: false, error: messageOf(error) });
      // Another tab may have published keys meanwhile: read the record again.
      if (!reset) void this.reloadRecordQuietly();
      return false;
    } finally {
      this.publishingKeys = null;
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
   * "Déverrouillage E2EE échoué" (no fallback key). An older record (PBKDF2, or below the target
   * Argon2id cost) or one without a recovery copy is re-sealed with Argon2id and saved after a
   * successful unlock; a recovery key made then is shown once.
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
      this.report('Déverrouillage E2EE échoué', {
        code: isE2eeError(error) ? error.code : 'error',
      });
      this.update({ busy: false, error: E2EE_MESSAGES.unlockFailed });
      return false;
    }
    const publicKeys = await exportPublicIdentity(identity);
    if (this.publishedKeys && !samePublicIdentity(this.publishedKeys, publicKeys)) {
      // The server lists other keys than the ones sealed in this member's own record.
      this.report('Clés publiques publiées différentes du coffre du membre');
    }
    await this.becomeUnlocked(identity, publicKeys, this.keyVersion);
    if (recordNeedsUpgrade(record, this.targetKdf()) || !hasRecoveryCopy(record)) {
      void this.upgrade(record, passphrase, publicKeys);
    }
    return true;
  }

  private async upgrade(record: MemberKeyRecord, passphrase: string, publicKeys: TPublicKeys): Promise<void> {
    // Offered once to a member without one: the copy is in the record from now on.
    const recoveryKey = hasRecoveryCopy(record) ? undefined : generateRecoveryKey();
    try {
      const upgraded = await resealRecord(
        record,
        { passphrase },
        { memberId: this.memberId, argon2id: this.targetKdf(), ...(recoveryKey ? { recoveryKey } : {}) },
      );
      const saved = await this.deps.api.saveMemberKey({ key: upgraded, publicKeys });
      this.record = upgraded;
      this.keyVersion = saved.keyVersion;
      if (recoveryKey) this.update({ recoveryKey });
    } catch (error) {
      this.report('Renforcement du coffre de clés impossible', { error: messageOf(error) });
    }
  }

  /**
   * « J'ai oublié ma phrase secrète »: opens the record with the recovery key, seals the same keys
   * under a new passphrase (the recovery key keeps working) and unlocks. Same identity: nothing
   * to confirm for the other members, and the history stays readable.
   */
  async recover(recoveryKey: string, newPassphrase: string): Promise<boolean> {
    const record = this.record;
    if (!record) return false;
    this.update({ busy: true, error: null });
    let identity: Identity;
    try {
      identity = await openIdentityWithRecoveryKey(record, recoveryKey, { memberId: this.memberId });
    } catch (error) {
      const code = isE2eeError(error) ? error.code : 'error';
      this.report('Clé de secours refusée', { code });
      const text =
        code === 'missing_key'
          ? RECOVERY_TEXT.none
          : code === 'invalid_format'
            ? RECOVERY_TEXT.malformed
            : RECOVERY_TEXT.wrong;
      this.update({ busy: false, error: text });
      return false;
    }
    try {
      const publicKeys = await exportPublicIdentity(identity);
      const renewed = await resealRecord(
        record,
        { recoveryKey },
        { memberId: this.memberId, newPassphrase, argon2id: this.targetKdf() },
      );
      const saved = await this.deps.api.saveMemberKey({ key: renewed, publicKeys });
      this.record = renewed;
      await this.becomeUnlocked(identity, publicKeys, saved.keyVersion);
      return true;
    } catch (error) {
      this.report('Nouvelle phrase secrète non enregistrée', { error: messageOf(error) });
      this.update({ busy: false, error: messageOf(error) });
      return false;
    }
  }

  /** Popup side: the opener's unlocked keys, without a prompt. */
  async adopt(transfer: KeyringTransfer): Promise<void> {
    for (const key of transfer.epochs) this.epochs.set(key.epoch, key);
    // The room's verified log: the popup knows the members' keys at once (a call popup verifies
    // its peer's signature within seconds), and reads only what follows it.
    if (transfer.log?.ringId === this.ringId) this.log = transfer.log;
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
      ...(this.log && !this.logProblem ? { log: this.log } : {}),
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
    this.update({ phase: 'ready', busy: false, error: null });
    await this.refreshSafety();
    void this.sync();
  }

  // ---- members and safety numbers --------------------------------------------------------------

  /** The Ring's members changed (rings/info.php): recompute safety numbers and who waits. */
  setMembers(members: readonly RingMemberKeys[]): Promise<void> {
    this.members = new Map(members.map((m) => [m.id, m]));
    const self = this.members.get(this.memberId);
    if (
      this.identity &&
      this.ownKeys &&
      self?.keys &&
      self.keyVersion !== null &&
      self.keyVersion > this.keyVersion &&
      !samePublicIdentity(self.keys, this.ownKeys) &&
      !(this.publishingKeys && samePublicIdentity(self.keys, this.publishingKeys))
    ) {
      void this.lockReplacedIdentity();
    }
    return this.refreshSafety();
  }

  /**
   * This member reset its keys on another device: the identity held here is no longer its own
   * (nothing would reach it again). Forget it and its epoch keys, and ask for the new passphrase.
   */
  private async lockReplacedIdentity(): Promise<void> {
    this.identity = null;
    this.ownKeys = null;
    this.epochs.clear();
    this.conversationKeys.clear();
    this.report('Clés réinitialisées sur un autre appareil');
    await this.deps.remembered?.forget(this.ringId, this.memberId).catch(() => undefined);
    try {
      const answer = await this.deps.api.getMemberKey();
      this.record = answer.key;
      this.publishedKeys = answer.publicKeys;
      this.keyVersion = answer.keyVersion;
    } catch {
      // The dialog still opens: the record is read again at the next unlock attempt.
    }
    // This browser unlocked another identity meanwhile (its own reset landed): keep it.
    if (this.identity !== null) return;
    this.update({ phase: 'unlock', busy: false, remembered: false, error: KEYS_REPLACED_TEXT });
  }

  private refreshSafety(): Promise<void> {
    const run = this.membersChain.then(async () => {
      const safety = new Map<string, MemberSafety>();
      for (const member of this.members.values()) {
        if (!member.keys) continue;
        const logged = this.log?.members.get(member.id);
        safety.set(member.id, {
          memberId: member.id,
          fingerprint: await this.fingerprintOf(member.keys),
          logFingerprint: logged ? await this.fingerprintOf(logged.keys) : null,
          trust: this.trustOf(member.id, member.keys),
          verification: this.verificationOf(member.id),
        });
      }
      const verifiedKeyChanged = [...safety.values()]
        .filter((m) => m.verification === 'changed')
        .map((m) => m.memberId);
      this.update({ safety, verifiedKeyChanged, keyChanges: this.keyChangesOf(safety) });
    });
    // The chain never rejects, so a failure does not stop later refreshes.
    this.membersChain = run.catch((error: unknown) => {
      this.report('Numéros de sécurité indisponibles', { error: messageOf(error) });
    });
    return this.membersChain;
  }

  /** The timeline's key changes: the log's, then the unconfirmed ones (published keys ≠ the log's). */
  private keyChangesOf(safety: ReadonlyMap<string, MemberSafety>): readonly KeyChange[] {
    const pending: KeyChange[] = [];
    for (const member of safety.values()) {
      const unconfirmed =
        member.memberId !== this.memberId &&
        member.logFingerprint !== null &&
        member.fingerprint !== member.logFingerprint;
      if (!unconfirmed) {
        this.pendingSince.delete(member.memberId);
        continue;
      }
      const at = this.pendingSince.get(member.memberId) ?? this.now().toISOString();
      this.pendingSince.set(member.memberId, at);
      pending.push({ memberId: member.memberId, at, pending: true });
    }
    const next = [...(this.logProblem ? [] : this.loggedKeyChanges), ...pending];
    // The same list keeps its identity: the chat re-checks messages only when it really changed.
    return JSON.stringify(next) === JSON.stringify(this.snapshot.keyChanges)
      ? this.snapshot.keyChanges
      : next;
  }

  private async fingerprintOf(keys: TPublicKeys): Promise<string> {
    const id = publicKeysId(keys);
    let value = this.fingerprints.get(id);
    if (!value) {
      value = await fingerprint(keys);
      this.fingerprints.set(id, value);
    }
    return value;
  }

  /**
   * What may be done with a member's published keys, from the verified log only (never from what
   * the server asserts). This member's own keys: trusted when the log names the keys it unlocked.
   */
  private verificationOf(memberId: string): Verification {
    if (this.logProblem) return 'unverified';
    return verificationOf(this.verified[memberId], this.log?.members.get(memberId));
  }

  /**
   * « Marquer … comme vérifié »: this person compared `shown`, the safety number of the keys the
   * log names for the member, with the member (in person, by phone). Refused (false) when the log
   * names other keys now. Kept in this browser only.
   */
  async markVerified(memberId: string, shown: string): Promise<boolean> {
    const logged = this.logProblem ? undefined : this.log?.members.get(memberId);
    if (!logged || logged.status !== 'active' || memberId === this.memberId) return false;
    if ((await this.fingerprintOf(logged.keys)) !== shown) return false;
    return this.saveVerified({ ...this.verified, [memberId]: publicKeysId(logged.keys) });
  }

  /** « Retirer la vérification »: the member is no longer marked « Vérifié » in this browser. */
  async unmarkVerified(memberId: string): Promise<boolean> {
    const { [memberId]: _removed, ...rest } = this.verified;
    return this.saveVerified(rest);
  }

  private async saveVerified(verified: Record<string, string>): Promise<boolean> {
    try {
      await this.deps.localTrust.putVerified(this.ringId, this.memberId, verified);
    } catch (error) {
      this.report('Vérification non enregistrée dans ce navigateur', { error: messageOf(error) });
      return false;
    }
    this.verified = verified;
    await this.refreshSafety();
    return true;
  }

  private trustOf(memberId: string, keys: TPublicKeys): MemberTrust {
    if (this.logProblem) return 'waiting';
    if (memberId === this.memberId && this.ownKeys && !samePublicIdentity(keys, this.ownKeys))
      return 'changed';
    return trustOf(this.log, memberId, keys);
  }

  // ---- the signed membership log (issue 24) ----------------------------------------------------

  private signer() {
    if (!this.identity || !this.ownKeys) throw new E2eeError('missing_key', 'locked');
    return {
      memberId: this.memberId,
      signingKey: this.identity.signing.privateKey,
      ed25519: this.ownKeys.ed25519,
    };
  }

  /**
   * Reads the links after the head this tab verified and verifies them (from the checkpoint this
   * browser stored, so a server serving another history is caught). Any failure sets `logProblem`:
   * then nothing is wrapped, sent or shared until the log verifies again.
   */
  private async syncLog(headSeq: number): Promise<void> {
    if (this.log && headSeq === this.log.head.seq) return;
    const after = this.log && headSeq > this.log.head.seq ? this.log.head.seq : -1;
    // The checkpoint first: another tab of this member (the room, a popup) may store a newer one
    // while this one reads the log, which an honest server then serves at least up to it.
    const checkpoint = await this.deps.localTrust
      .getCheckpoint(this.ringId, this.memberId)
      .catch(() => undefined);
    const answer = await this.deps.api.getLog(after);
    if (answer.links.length === 0) {
      if (this.log || checkpoint) this.setLogProblem(LOG_PROBLEM_TEXT.rollback, 'rollback');
      return;
    }
    // A head this member signed when its browser verified it spares the signature checks of the
    // links up to it (the costly part of opening the room); anything else is verified in full.
    const verifiedHead =
      after < 0 && checkpoint?.sig && this.ownKeys
        ? await openLogCheckpoint(
            { ...checkpoint, ringId: this.ringId, memberId: this.memberId },
            checkpoint.sig,
            this.ownKeys.ed25519,
          )
        : undefined;
    let verified: MembershipState;
    try {
      verified = await verifyMembershipLog(answer.links, {
        ringId: this.ringId,
        ...(after >= 0 && this.log ? { from: this.log } : {}),
        ...(verifiedHead ? { verifiedHead } : {}),
      });
    } catch (error) {
      this.setLogProblem(LOG_PROBLEM_TEXT.invalid, messageOf(error));
      return;
    }
    const agreed = checkAgainstCheckpoint(verified, checkpoint);
    if (agreed !== 'ok') {
      this.setLogProblem(LOG_PROBLEM_TEXT[agreed], agreed);
      return;
    }
    // The links just verified: their key changes (of others) go to the timeline.
    const changes = answer.links.flatMap((link): KeyChange[] => {
      const memberId = link.body.memberId;
      return link.type === 'key_change' && typeof memberId === 'string' && memberId !== this.memberId
        ? [{ memberId, at: link.at, pending: false }]
        : [];
    });
    this.loggedKeyChanges = after >= 0 ? [...this.loggedKeyChanges, ...changes] : changes;
    // Its deactivations and reactivations too (issue 28: the line survives a reload).
    const departures = answer.links.flatMap((link): LoggedMembershipChange[] => {
      const memberId = link.body.memberId;
      if ((link.type !== 'deactivate' && link.type !== 'reactivate') || typeof memberId !== 'string')
        return [];
      const username = verified.members.get(memberId)?.username;
      return username === undefined
        ? []
        : [{ memberId, username, at: link.at, back: link.type === 'reactivate' }];
    });
    this.loggedMembershipChanges = after >= 0 ? [...this.loggedMembershipChanges, ...departures] : departures;
    this.log = verified;
    this.logProblem = null;
    const head = {
      ringId: this.ringId,
      genesisHash: verified.genesisHash,
      headSeq: verified.head.seq,
      headHash: verified.head.hash,
    };
    const sig = this.identity
      ? await signLogCheckpoint({ ...head, memberId: this.memberId }, this.identity.signing.privateKey).catch(
          () => undefined,
        )
      : undefined;
    await this.deps.localTrust
      .putCheckpoint(this.memberId, { ...head, ...(sig ? { sig } : {}) })
      .catch(() => undefined);
    await this.refreshSafety();
  }

  private setLogProblem(text: string, reason: string): void {
    if (this.logProblem !== text) this.report('Journal des membres du Ring refusé', { reason });
    this.logProblem = text;
    this.update({});
  }

  /** Signs `change` after the head this tab verified and appends it; false when the head moved. */
  private async appendChange(change: Exclude<MembershipChange, { type: 'genesis' }>): Promise<boolean> {
    const log = this.log;
    if (!log || this.logProblem) throw new E2eeError('unverifiable', 'membership log not verified');
    const link = await createLink(log, change, this.signer(), this.now());
    try {
      await this.deps.api.appendLink(link);
      return true;
    } catch (error) {
      if (error instanceof KeyCallConflict) return false;
      throw error;
    }
  }

  /**
   * Signs and appends a change, reading the log again and retrying when another link won the
   * head; then acts on it (a new epoch for an admission, shares).
   */
  private async change(make: () => Exclude<MembershipChange, { type: 'genesis' }> | null): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const change = make();
      if (!change) return false;
      if (await this.appendChange(change)) {
        await this.sync();
        return true;
      }
      await this.sync();
    }
    return false;
  }

  /** The owner's browser starts the log: genesis with its own keys and the Ring's level. */
  private async startLog(level: SecurityLevel): Promise<void> {
    const ownKeys = this.ownKeys;
    if (!ownKeys || this.deps.role() !== 'owner') return;
    const self =
      this.members.get(this.memberId) ??
      (await this.deps.api.getMembers(true)).find((m) => m.id === this.memberId);
    if (!self) return;
    const genesis = await createGenesis({
      ringId: this.ringId,
      owner: { id: this.memberId, username: self.username, keys: ownKeys },
      level,
      signer: this.signer(),
      at: this.now(),
    });
    try {
      await this.deps.api.appendLink(genesis);
    } catch (error) {
      if (!(error instanceof KeyCallConflict)) throw error;
    }
    this.syncAgain = true;
  }

  /**
   * « Admettre » (owner or Ring admin): signs the newcomer's admission with the keys whose safety
   * number the person compared (`expectedFingerprint`: refused if the server now lists other keys),
   * then creates a new epoch that reaches the newcomer. Earlier epochs are shared only when
   * `shareHistory` is ticked; `shareFiles` records « Donner accès aux fichiers existants » (the
   * dialog then wraps existing file keys under the new epoch: existing-files-access.ts).
   */
  async admit(
    memberId: string,
    options: { expectedFingerprint: string; shareHistory: boolean; shareFiles: boolean },
  ): Promise<boolean> {
    const done = await this.change(() => {
      const member = this.members.get(memberId);
      const keys = this.keysShownAs(memberId, options.expectedFingerprint);
      if (!member || !keys) return null;
      return {
        type: 'admit',
        body: {
          member: { id: memberId, username: member.username, keys },
          role: 'member',
          invitation: memberId,
          shareHistory: options.shareHistory,
          shareFiles: options.shareFiles,
        },
      };
    });
    if (done) await this.rotateAfterChange();
    return done;
  }

  /**
   * The owner switches typing indicators and read receipts on or off (issue 29): a link of the log
   * it signs here, so that no server flag can make browsers reveal when their members type or read.
   */
  async setReading(settings: ReadingSettings): Promise<boolean> {
    return this.change(() => {
      const log = this.log;
      const current = log?.reading ?? READING_OFF;
      if (!log || log.members.get(this.memberId)?.role !== 'owner') return null;
      if (current.typing === settings.typing && current.receipts === settings.receipts) return null;
      return { type: 'reading', body: { typing: settings.typing, receipts: settings.receipts } };
    });
  }

  /**
   * The owner names a member Ring admin (who may then admit, refuse and confirm key changes) or
   * takes the role back: a signed link of the log.
   */
  async setRole(memberId: string, role: 'admin' | 'member'): Promise<boolean> {
    return this.change(() => {
      const member = this.log?.members.get(memberId);
      return member && member.status === 'active' && member.role !== 'owner' && member.role !== role
        ? { type: 'role', body: { memberId, role } }
        : null;
    });
  }

  /**
   * « Retirer … du journal » (owner or Ring admin): records in the log that a member deactivated in
   * the customer space left. Signed by the person who clicks, never automatically: a server hiding
   * members from the list cannot make a browser sign anything.
   */
  async recordDeparture(memberId: string): Promise<boolean> {
    return this.change(() =>
      this.snapshot.departed.some((m) => m.id === memberId)
        ? { type: 'deactivate', body: { memberId } }
        : null,
    );
  }

  /**
   * « Réactiver … » (owner or Ring admin): a member the customer space reactivated reads again once
   * this signed link says so, from a new epoch on (never what was said while it was away).
   */
  async reactivate(memberId: string): Promise<boolean> {
    const done = await this.change(() =>
      this.log?.members.get(memberId)?.status === 'deactivated' && this.members.has(memberId)
        ? { type: 'reactivate', body: { memberId } }
        : null,
    );
    if (done) await this.rotateAfterChange();
    return done;
  }

  /** « Refuser »: ends a newcomer's membership (the server closes its session at once). */
  async refuse(memberId: string): Promise<boolean> {
    return this.change(() => {
      const member = this.members.get(memberId);
      return member ? { type: 'refuse', body: { memberId, username: member.username } } : null;
    });
  }

  /**
   * « Confirmer la nouvelle clé de … » (owner or Ring admin): signs the member's new keys — the
   * ones whose safety number the person saw (`expectedFingerprint`), not whatever the server
   * publishes at click time — then creates a new epoch that reaches them.
   */
  async confirmKey(memberId: string, expectedFingerprint: string): Promise<boolean> {
    const done = await this.change(() => {
      const keys = this.keysShownAs(memberId, expectedFingerprint);
      return keys ? { type: 'key_change', body: { memberId, keys } } : null;
    });
    if (done) await this.rotateAfterChange();
    return done;
  }

  /**
   * The keys the server lists for `memberId` now, only if their safety number is the one the person
   * compared (`shown`): what an admission or a key confirmation signs (L3).
   */
  private keysShownAs(memberId: string, shown: string): TPublicKeys | undefined {
    const keys = this.members.get(memberId)?.keys;
    return keys && this.fingerprints.get(publicKeysId(keys)) === shown ? keys : undefined;
  }

  /** After an admission or a key change: the new epoch now, so nobody waits for the next message. */
  private async rotateAfterChange(): Promise<void> {
    try {
      await this.ensureSendableEpoch();
    } catch (error) {
      this.report('Nouvelle clé du Ring après un changement de membres impossible', {
        error: messageOf(error),
      });
    }
  }

  /** The owner signs a level the customer raised (never a lower one: that needs the owner's own decision). */
  private async followLevelUpgrade(requested: SecurityLevel): Promise<void> {
    const log = this.log;
    if (!log || log.members.get(this.memberId)?.role !== 'owner') return;
    if (SECURITY_LEVELS.indexOf(requested) <= SECURITY_LEVELS.indexOf(log.level)) return;
    if (await this.appendChange({ type: 'level', body: { level: requested } })) this.syncAgain = true;
  }

  /**
   * Ed25519 keys (base64) that may have signed what `memberId` sent under an epoch created at log
   * position `fromSeq`: the keys the log names for it from then on (never a key replaced before).
   */
  private senderKeysOf(memberId: string, fromSeq?: number): string[] {
    if (!this.log || this.logProblem) return [];
    return signingKeysFrom(this.log, memberId, fromSeq);
  }

  private async importVerifyKeyCached(ed25519: string): Promise<CryptoKey> {
    let key = this.verifyKeys.get(ed25519);
    if (!key) {
      key = await importVerifyKey(ed25519);
      this.verifyKeys.set(ed25519, key);
    }
    return key;
  }

  /**
   * Keys that verify what `memberId` signed, newest first: its key in the log now first (the only
   * one for calls and anything new), then keys it had earlier (content of epochs from then).
   */
  /**
   * The keys that may have signed a message with this header. A header that names the log head
   * its sender verified (every message since issue 24) must agree with this browser's log at that
   * seq — another link there is a log the server forked — and not be older than its epoch's log
   * head; its sender's key is then the one the log names for it at that seq. Older messages: the
   * sender's keys from its epoch's log head on (verifyKeysOf).
   */
  private async senderKeysFor(senderId: string, header: MessageHeader): Promise<CryptoKey[]> {
    const epochLogSeq = this.epochs.get(header.epoch)?.logSeq;
    const seq = header.logSeq;
    if (seq === undefined) return this.verifyKeysOf(senderId, epochLogSeq);
    if (this.log && !this.logProblem && seq > this.log.head.seq) await this.readLogAgain();
    const log = this.logProblem ? null : this.log;
    // Not verified that far yet: the message waits (missing key) and is tried again after a sync.
    if (!log || seq > log.head.seq) return [];
    if (log.hashes[seq] !== header.logHash)
      throw new E2eeError('unverifiable', 'the sender saw another membership log');
    if (epochLogSeq !== undefined && seq < epochLogSeq)
      throw new E2eeError('unverifiable', 'log head older than the epoch of the message');
    return Promise.all(signingKeysAt(log, senderId, seq).map((k) => this.importVerifyKeyCached(k)));
  }

  /** Reads the membership log again, at most every few seconds (a sender may be ahead of this tab). */
  private async readLogAgain(): Promise<void> {
    if (!this.identity || this.now().getTime() - this.logReadAt <= 2000) return;
    this.logReadAt = this.now().getTime();
    await this.sync();
  }

  /**
   * The keys that verify a file or folder metadata blob signed at `pin` (file-meta.ts
   * `metaSignerKeys`): the signer's key at that log position, if it was a member there and this
   * browser's log has the same link there. A pin ahead of this tab's log reads the log again first.
   */
  async metaSignerKeys(pin: SignedPin): Promise<CryptoKey[]> {
    if (this.log && !this.logProblem && pin.logSeq > this.log.head.seq) await this.readLogAgain();
    const log = this.logProblem ? null : this.log;
    if (!log) return [];
    return Promise.all(metaSignerKeys(log, pin).map((k) => this.importVerifyKeyCached(k)));
  }

  /** The membership log head this browser verified (what it signs file metadata at), if any. */
  logHead(): { logSeq: number; logHash: string } | undefined {
    const log = this.logProblem ? null : this.log;
    return log ? { logSeq: log.head.seq, logHash: log.head.hash } : undefined;
  }

  async verifyKeysOf(memberId: string, fromSeq?: number): Promise<CryptoKey[]> {
    let keys = this.senderKeysOf(memberId, fromSeq);
    // Not in the log this tab holds: the log may be newer (a member just admitted, a popup that
    // has not read it yet). Read it again, at most every few seconds.
    if (keys.length === 0 && !this.logProblem) {
      await this.readLogAgain();
      keys = this.senderKeysOf(memberId, fromSeq);
    }
    return Promise.all(keys.map((k) => this.importVerifyKeyCached(k)));
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
          this.report('Synchronisation des clés du Ring impossible', { error: messageOf(error) });
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
    await this.syncLog(state.logHeadSeq);
    if (this.logProblem) {
      this.update({});
      return;
    }
    if (!this.log) {
      if (state.logHeadSeq < 0) await this.startLog(state.level);
      this.update({});
      return;
    }
    await this.openShares(state);
    if (this.admission() === 'admitted') {
      await this.followLevelUpgrade(state.level);
      if (state.currentEpoch === 0) {
        const outcome = await this.rotateTo(1, this.log.level);
        if (outcome === 'done' || outcome === 'retry') this.syncAgain = true;
      } else {
        await this.sharePending(state);
        // Nobody can share the current epoch any more: start a recovery epoch, once per state.
        if (state.currentEpochOrphaned && !this.epochs.has(state.currentEpoch) && !this.recovering) {
          this.recovering = true;
          void this.rotateAfterChange().finally(() => {
            this.recovering = false;
          });
        }
      }
    }
    this.update({});
  }

  private async openShares(state: TKeyStateResponse): Promise<void> {
    const identity = this.identity;
    if (!identity) return;
    const groups = sharesToOpen(state.shares, new Set(this.epochs.keys()), state.firstReadableEpoch);
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

  /**
   * The sender's key that may have signed a share, by the verified log: for a version 2 share, the
   * key that was the sender's at the log position it names (whose hash must be the log's there);
   * for a version 1 share (before the log: it names no position), the sender's current key only,
   * so a key a reset replaced signs no share at all. A sender the log does not know signs nothing
   * this browser accepts.
   */
  private shareSignerKeys(share: EpochKeyShare, senderMemberId: string): string[] {
    const log = this.log;
    if (!log || share.senderMemberId !== senderMemberId) return [];
    if (share.v === 2) {
      if (share.logSeq > log.head.seq || log.hashes[share.logSeq] !== share.logHash) return [];
      return signingKeysAt(log, senderMemberId, share.logSeq);
    }
    return signingKeysAt(log, senderMemberId);
  }

  private async openShare(
    share: EpochKeyShare,
    senderMemberId: string,
    identity: Identity,
  ): Promise<EpochKey | undefined> {
    for (const senderKey of this.shareSignerKeys(share, senderMemberId)) {
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
    this.report('Clé du Ring invérifiable ignorée', { epoch: share.epoch, sender: senderMemberId });
    return undefined;
  }

  /**
   * Creates epoch `epoch` at the log's head and shares it with the members the log admitted. A
   * holder carries the names key over from the previous epoch; a recovery epoch (nobody holds the
   * current one any more) carries it from any epoch this member holds.
   */
  private async rotateTo(epoch: number, level: SecurityLevel): Promise<'done' | 'retry' | 'cannot'> {
    const identity = this.identity;
    const ownKeys = this.ownKeys;
    const log = this.log;
    if (!identity || !ownKeys || !log || this.logProblem || this.admission() !== 'admitted') return 'cannot';
    const previous = this.epochs.get(epoch - 1) ?? [...this.epochs.values()].at(-1);
    const members = await this.deps.api.getMembers(true);
    await this.setMembers(members);
    const plan = planRotationRecipients({
      selfId: this.memberId,
      selfKeys: ownKeys,
      selfKeyVersion: this.keyVersion,
      log,
      members,
    });
    const key = await generateEpochKey({
      ringId: this.ringId,
      epoch,
      level,
      logSeq: log.head.seq,
      ...(previous ? { namesKey: previous.namesKey } : {}),
    });
    const sender = { memberId: this.memberId, signingPrivateKey: identity.signing.privateKey };
    const shares = await Promise.all(
      plan.recipients.map((r) =>
        wrapEpochKeyFor(key, { memberId: r.memberId, x25519PublicB64: r.x25519 }, sender, log.head),
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
      if (isForbidden(error)) return 'cannot';
      throw error;
    }
    this.epochs.set(epoch, key);
    return 'done';
  }

  /** Wraps the epochs this member holds for the log's members who lack them (state.php `pending`). */
  private async sharePending(state: TKeyStateResponse): Promise<void> {
    const identity = this.identity;
    const log = this.log;
    if (!identity || !log) return;
    const held = new Map<number, HeldEpoch>(
      [...this.epochs.values()].map((k) => [k.epoch, { epoch: k.epoch, logSeq: k.logSeq }]),
    );
    const plan = planPendingShares({ selfId: this.memberId, pending: state.pending, held, log });
    if (plan.ignored.join() !== this.ignoredPending.join()) {
      if (plan.ignored.length > 0)
        this.report('Partage de clés demandé pour des inconnus du journal des membres', {
          members: plan.ignored,
        });
      this.ignoredPending = plan.ignored;
    }
    if (plan.targets.length === 0) return;
    const sender = { memberId: this.memberId, signingPrivateKey: identity.signing.privateKey };
    const work = plan.targets.flatMap((target) =>
      target.epochs.map((epoch) => ({ target, key: this.epochs.get(epoch)! })),
    );
    const shares = await Promise.all(
      work.map(({ target, key }) =>
        wrapEpochKeyFor(key, { memberId: target.memberId, x25519PublicB64: target.x25519 }, sender, log.head),
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
        else this.report('Partage de clés du Ring impossible', { error: messageOf(error) });
      }
    }
  }

  /**
   * The epoch key to encrypt the next message with: creates the next epoch first when the Ring has
   * none, when one is due, when the level the owner signed changed, or when the log changed who
   * reads since the current one; reads the state again after a concurrent rotation. When nobody
   * holds the current epoch any more, starts a recovery epoch (the server refuses it while a
   * member with keys still holds the current one). Throws `E2eeError('missing_key')` while this
   * member waits for the current key or for its admission.
   */
  async ensureSendableEpoch(): Promise<EpochKey> {
    for (let attempt = 0; attempt < 4; attempt++) {
      await this.sync();
      const state = this.state;
      const log = this.log;
      if (!state || !this.identity || !log || this.logProblem || this.admission() !== 'admitted') break;
      const current = this.epochs.get(state.currentEpoch);
      const decision = decideEpochAction({
        currentEpoch: state.currentEpoch,
        rotationDue: state.rotationDue,
        level: log.level,
        currentKeyLevel: current?.level,
        currentKeyLogSeq: current?.logSeq,
        readersChangedSeq: lastReadersChange(log),
      });
      if (decision.action === 'none') return current!;
      const epoch = decision.action === 'wait' ? state.currentEpoch + 1 : decision.epoch;
      const outcome = await this.rotateTo(epoch, log.level);
      if (outcome === 'cannot') break;
      if (outcome === 'done') {
        await this.sync();
        const key = this.epochs.get(epoch);
        if (key && this.state?.currentEpoch === epoch) return key;
      }
    }
    throw new E2eeError('missing_key', 'no sendable epoch key');
  }

  /**
   * A send's answer said its epoch nears its limit (`rotationSoon`, issue 30): creates the next
   * epoch now, in the background, while messages still go under the current one, so that no send
   * waits for a rotation and its wraps for every member. At most once per epoch, whatever the
   * server repeats; only from the current epoch's key at the signed level (the other cases are
   * ensureSendableEpoch's); a concurrent rotation by another member wins (its 409 is the answer).
   * `epoch`: the epoch of the message whose answer carried the hint. A hint about an epoch this
   * member no longer sends under (an answer that came late, once the next epoch was read) starts
   * nothing: it would rotate the new epoch as soon as it began.
   */
  rotateAhead(epoch: number): void {
    const state = this.state;
    const log = this.log;
    if (!state || !log || epoch !== state.currentEpoch || this.rotatedAheadOf >= epoch) return;
    const current = this.epochs.get(state.currentEpoch);
    if (!current || current.level !== log.level) return;
    this.rotatedAheadOf = state.currentEpoch;
    void this.rotateTo(state.currentEpoch + 1, log.level)
      .then((outcome) => (outcome === 'done' ? this.sync() : undefined))
      .catch((error: unknown) =>
        this.report('Nouvelle clé du Ring par avance impossible', { error: messageOf(error) }),
      );
  }

  // ---- messages --------------------------------------------------------------------------------

  /**
   * X25519 keys (base64) of a private conversation's peer from the verified log: its current key
   * to send (only while it is an active member); to read, also the keys it had before.
   */
  private peerAgreementKeys(peerId: string, forSending: boolean): string[] {
    const member = this.logProblem ? undefined : this.log?.members.get(peerId);
    if (forSending) {
      if (!member || member.status !== 'active') {
        const published = this.members.get(peerId)?.keys;
        throw new PeerKeyUnavailable(peerId, published ? 'changed' : 'no_keys');
      }
      return [member.keys.x25519];
    }
    if (!member) return [];
    return [member.keys.x25519, ...member.formerKeys.map((k) => k.keys.x25519)];
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
    ephemeralSec: number | null = null,
    chain?: MessageChain,
  ): Promise<{ content: string; header: MessageHeader }> {
    if (!this.identity) throw new E2eeError('missing_key', 'locked');
    const target = conversationPeerOf(conversationId, this.memberId);
    if (target.kind === 'foreign') throw new E2eeError('invalid_format', 'not a conversation of this member');
    const changed = Object.keys(this.verified).filter((id) => this.verificationOf(id) === 'changed');
    const blockedBy = sendBlockedBy(conversationId, this.memberId, changed);
    if (blockedBy.length > 0) throw new VerifiedKeyChanged(blockedBy);
    let key = epochKey;
    if (target.kind === 'dm') {
      const [peerX25519] = this.peerAgreementKeys(target.peerId, true);
      key = await this.conversationKey(epochKey, conversationId, target.peerId, peerX25519!);
    }
    const log = this.logProblem ? null : this.log;
    const header: MessageHeader = {
      // v2 with the sender's signed sequence (issue 27 M4); v1 only for callers without one.
      ...(chain ? { v: 2 as const, chain } : { v: 1 as const }),
      ringId: this.ringId,
      conversationId,
      epoch: epochKey.epoch,
      senderId: this.memberId,
      clientMessageId,
      sentAt: this.now().toISOString(),
      // The log head this browser verified, signed with the message (see senderKeysFor).
      ...(log ? { logSeq: log.head.seq, logHash: log.head.hash } : {}),
      // Ephemeral: the delay is the sender's to sign (issue 25), not the server's to claim.
      ...(ephemeralSec !== null ? { ephemeralSec } : {}),
    };
    return {
      content: await encryptMessage(header, plaintext, key, this.identity.signing.privateKey),
      header,
    };
  }

  /**
   * Verifies and decrypts a message found in `conversationId`, with the sender's keys the log
   * names from the message's epoch on (and, in a private conversation, the peer's current then
   * earlier keys). Throws `missing_key` (wait for keys) or `unverifiable` ("Message non vérifiable").
   */
  async decryptText(
    content: string,
    conversationId: string,
  ): Promise<{ header: MessageHeader; plaintext: string }> {
    const target = conversationPeerOf(conversationId, this.memberId);
    if (target.kind === 'foreign') throw new E2eeError('unverifiable', 'not a conversation of this member');
    if (target.kind === 'room')
      return this.decryptWith(content, conversationId, (epoch) => this.epochs.get(epoch));
    const peerKeys = this.peerAgreementKeys(target.peerId, false);
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
          senderVerifyKey: async (senderId, header) => {
            candidates ??= await this.senderKeysFor(senderId, header);
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

/** A 403 of the key calls (a rotation by a member who is not a holder while others are). */
function isForbidden(error: unknown): boolean {
  return (error as { status?: unknown } | null)?.status === 403;
}
