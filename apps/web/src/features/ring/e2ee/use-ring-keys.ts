import type { EpochKey, MessageChain, MessageHeader, ReadingSettings, SignedPin } from '@securering/e2ee';
import { createContext, useContext } from 'react';
import type { KeyChange, KeyringPhase, LoggedMembershipChange, MemberSafety } from './keyring';
import type { Admission, KeyringStatus } from './keyring-policy';

/**
 * The room's end-to-end encryption keys, for the chat, files and calls (`useRingKeys()`).
 * Everything lives in memory for this tab (and the popups it opens); nothing here is ever sent to
 * the server in clear.
 */
export interface RingKeys {
  /** `data-e2ee-state`: locked (no passphrase yet), waiting_keys, active, failed (wrong passphrase). */
  state: KeyringStatus;
  /** What the passphrase dialog shows (loading, setup, unlock, opener, ready, load_failed). */
  phase: KeyringPhase;
  ringId: string;
  /** This member's id: the `senderId` of what it encrypts. */
  memberId: string;
  /** The Ring's current epoch as last read (0: none yet). */
  currentEpoch: number;
  /** This member's Ed25519 signing key (non-extractable); null while locked. */
  signingKey: CryptoKey | null;
  /** The key of epoch `n` if this member holds it (to decrypt what was sent under it). */
  epochKey(epoch: number): EpochKey | undefined;
  /** The current epoch's key if held. To encrypt, prefer `ensureSendableEpoch()`. */
  currentEpochKey(): EpochKey | undefined;
  /**
   * The Ring names key, constant across epochs: it reads only names from before the sealed metadata
   * of issue 27 (not migrated yet); undefined until a key is held.
   */
  namesKey(): Uint8Array | undefined;
  /**
   * The Ed25519 key that verifies what `memberId` signs now, checked against the key this browser
   * remembers (undefined when unknown or changed without confirmation).
   */
  verifyKeyOf(memberId: string): Promise<CryptoKey | undefined>;
  /** Its current key then the earlier keys this browser accepted (messages sent before a reset). */
  verifyKeysOf(memberId: string): Promise<CryptoKey[]>;
  /**
   * The keys that verify file or folder metadata signed at `pin`: the signer's key where the
   * verified membership log stood then, none if it was not (or no longer) a member there.
   */
  metaSignerKeys(pin: SignedPin): Promise<CryptoKey[]>;
  /** The membership log head this browser verified (file metadata is signed at it), if any. */
  logHead(): { logSeq: number; logHash: string } | undefined;
  /**
   * The epoch key to encrypt the next message or file with. Creates the next epoch first when the
   * Ring has none, one is due (rotationDue), or the level changed, handling a concurrent rotation
   * (409 epoch_conflict) by reading the state again. The chat calls it before encrypting, and again
   * after a 409 `epoch_stale`/`rotation_required` from send.php, then encrypts again. Throws
   * `E2eeError('missing_key')` while this member waits for keys.
   */
  ensureSendableEpoch(): Promise<EpochKey>;
  /**
   * A send's answer carried `rotationSoon`: the next epoch is created now, in the background, so
   * that the send that would have found one due does not wait for it (Keyring.rotateAhead).
   * `epoch`: the epoch the message was sent under.
   */
  rotateAhead(epoch: number): void;
  /**
   * Reads the Ring's key state again now (e.g. a message arrived under an epoch this tab does not
   * hold yet, or the socket is down and key events cannot arrive).
   */
  refresh(): void;
  /**
   * Encrypts and signs a chat message (envelope of packages/e2ee) for `conversationId` under
   * `epochKey`; `clientMessageId` defaults to a random UUID (keep it to retry the same send). The
   * room uses the epoch key; a private conversation (`dm:…`) the pairwise key of its two members,
   * derived from `epochKey` (throws `PeerKeyUnavailable` when the peer has no usable key).
   * `ephemeralSec`: the Ring's ephemeral delay, signed in the header (null or absent: permanent).
   * `chain`: this browser's place in its signed sequence (issue 27 M4; envelope v2 when given).
   */
  encryptText(
    conversationId: string,
    plaintext: string,
    epochKey: EpochKey,
    clientMessageId?: string,
    ephemeralSec?: number | null,
    chain?: MessageChain,
  ): Promise<{ content: string; header: MessageHeader }>;
  /**
   * Verifies and decrypts a message found in `conversationId`. Throws `E2eeError` `missing_key`
   * (keys not here yet: show it as waiting) or `unverifiable` ("Message non vérifiable").
   */
  decryptText(content: string, conversationId: string): Promise<{ header: MessageHeader; plaintext: string }>;
  /** Safety numbers computed in this browser, by member id (members with published keys only). */
  safety: ReadonlyMap<string, MemberSafety>;
  /** Where this member stands in the Ring's signed membership log (« En attente d'admission »…). */
  admission: Admission;
  /** This member may admit and refuse newcomers and confirm key changes (owner or Ring admin). */
  mayAdmit: boolean;
  /** Who may confirm this member's new keys (owner first, then Ring admins; this member excluded). */
  confirmers: ReadonlyArray<{ id: string; username: string }>;
  /** Other members' key changes for the timeline (« La clé de … a changé — comparer »). */
  keyChanges: readonly KeyChange[];
  /** Deactivations and reactivations the verified log signs (KeyringSnapshot.membershipChanges). */
  membershipChanges: readonly LoggedMembershipChange[];
  /** The unlocked keys are remembered on this device (« Se souvenir sur cet appareil »). */
  remembered: boolean;
  /** The customer space offers « Partager l'historique » in the admission dialog. */
  historyOffered: boolean;
  /** Member ids of newcomers waiting for admission. */
  waiting: readonly string[];
  /** Members the server asked keys for although the log does not know them (a warning for admins). */
  ignoredPending: readonly string[];
  /** Why the membership log is not trusted (nothing is encrypted for anyone meanwhile), or null. */
  logProblem: string | null;
  /**
   * Members this person marked « Vérifié » whose keys changed since: nothing is sent to them (the
   * room included) until the person compares the new safety number and marks them again.
   */
  verifiedKeyChanged: readonly string[];
  /**
   * « Marquer … comme vérifié » after comparing `shown` (the safety number of the member's keys in
   * the log) with the member; false when the log names other keys now. Kept in this browser.
   */
  markVerified(memberId: string, shown: string): Promise<boolean>;
  /** « Retirer la vérification ». */
  unmarkVerified(memberId: string): Promise<boolean>;
  /**
   * « Confirmer la nouvelle clé de … » (owner or Ring admin): signs the member's new keys — those
   * whose safety number the person compared — in the log, then a new epoch reaches them.
   */
  confirmKey(memberId: string, expectedFingerprint: string): Promise<boolean>;
  /** « Admettre » (owner or Ring admin): signs the admission; a new epoch then reaches the newcomer. */
  admit(
    memberId: string,
    options: { expectedFingerprint: string; shareHistory: boolean; shareFiles: boolean },
  ): Promise<boolean>;
  /** « Refuser »: ends the newcomer's membership. */
  refuse(memberId: string): Promise<boolean>;
  /** Active in the log but deactivated in the customer space (shown to those who admit). */
  departed: ReadonlyArray<{ id: string; username: string }>;
  /** Reactivated in the customer space, still deactivated in the log: they read nothing new yet. */
  reactivatable: readonly string[];
  /** The owner has no Ring admin to vouch for its new keys if it forgets its passphrase. */
  noAdminToVouch: boolean;
  /** « Retirer … du journal »: records a departure in the log (owner or Ring admin). */
  recordDeparture(memberId: string): Promise<boolean>;
  /** « Réactiver … »: signs the reactivation; a new epoch then reaches the member. */
  reactivate(memberId: string): Promise<boolean>;
  /** This member is the Ring's owner in the membership log (it names Ring admins). */
  isLogOwner: boolean;
  /** The owner names a Ring admin or takes the role back (a signed link). */
  setRole(memberId: string, role: 'admin' | 'member'): Promise<boolean>;
  /** Typing indicators and read receipts as the owner signed them in the verified log (issue 29). */
  reading: ReadingSettings;
  /** The owner switches them (a signed link); false when not the owner or nothing changes. */
  setReading(settings: ReadingSettings): Promise<boolean>;
  /** Opens the passphrase dialog (locked or failed state). */
  openUnlock(): void;
  /**
   * "Réinitialiser mes clés": opens the confirmation dialog that creates a new identity under a
   * new passphrase (others see the safety number change; history returns only if re-shared).
   */
  resetKeys(): void;
}

export const RingKeysContext = createContext<RingKeys | null>(null);

/** The room's keys (see {@link RingKeys}); throws outside RingKeysProvider. */
export function useRingKeys(): RingKeys {
  const keys = useContext(RingKeysContext);
  if (!keys) throw new Error('useRingKeys doit être utilisé dans RingKeysProvider');
  return keys;
}
