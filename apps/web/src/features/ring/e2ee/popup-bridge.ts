import type { TPublicKeys } from '@securering/contract';
import type { EpochKey, Identity, MembershipState } from '@securering/e2ee';

/**
 * DM and call popups (same origin, opened by the room with window.open) receive the room's
 * unlocked keys without a second passphrase prompt: the popup asks its opener with postMessage,
 * the room answers only a window it opened itself, from its own origin. CryptoKeys (even
 * non-extractable ones) and byte arrays are structured-cloneable, so nothing is exported.
 */

const REQUEST = 'securering:keyring-request';
const RESPONSE = 'securering:keyring-response';

/** What a popup receives: the member's identity and the epoch keys the room holds. */
export interface KeyringTransfer {
  ringId: string;
  memberId: string;
  identity: Identity;
  publicKeys: TPublicKeys;
  keyVersion: number;
  epochs: EpochKey[];
  /** The Ring's membership log as the room verified it (structured-cloned with the keys). */
  log?: MembershipState;
}

export interface KeyringRequest {
  type: typeof REQUEST;
  nonce: string;
  ringId: string;
  memberId: string;
}

export interface KeyringResponse {
  type: typeof RESPONSE;
  nonce: string;
  keyring: KeyringTransfer | null;
}

interface MessageSource {
  origin: string;
  source: unknown;
}

export function isKeyringRequest(data: unknown): data is KeyringRequest {
  const d = data as Partial<KeyringRequest> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    d.type === REQUEST &&
    typeof d.nonce === 'string' &&
    typeof d.ringId === 'string' &&
    typeof d.memberId === 'string'
  );
}

function isCryptoKeyPair(value: unknown): value is CryptoKeyPair {
  const pair = value as Partial<CryptoKeyPair> | null;
  return (
    typeof pair === 'object' &&
    pair !== null &&
    pair.privateKey instanceof CryptoKey &&
    pair.publicKey instanceof CryptoKey
  );
}

/** A transfer with the expected Ring and member and real keys (anything else is ignored). */
export function isKeyringTransfer(
  value: unknown,
  expected: { ringId: string; memberId: string },
): value is KeyringTransfer {
  const t = value as Partial<KeyringTransfer> | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    t.ringId === expected.ringId &&
    t.memberId === expected.memberId &&
    typeof t.identity === 'object' &&
    t.identity !== null &&
    isCryptoKeyPair(t.identity.agreement) &&
    isCryptoKeyPair(t.identity.signing) &&
    typeof t.publicKeys?.x25519 === 'string' &&
    typeof t.publicKeys.ed25519 === 'string' &&
    typeof t.keyVersion === 'number' &&
    Array.isArray(t.epochs) &&
    t.epochs.every(
      (e: Partial<EpochKey>) =>
        e.ringId === expected.ringId &&
        typeof e.epoch === 'number' &&
        e.messageKey instanceof CryptoKey &&
        e.material instanceof Uint8Array &&
        e.namesKey instanceof Uint8Array,
    )
  );
}

/**
 * The room answers only requests from its own origin sent by a window it opened (the popup's
 * `opener` is this window). Reading `opener` of a cross-origin window throws: that is a refusal.
 */
export function mayAnswer(event: MessageSource, self: Window): boolean {
  if (event.origin !== self.location.origin || !event.source) return false;
  try {
    return (event.source as Window).opener === self;
  } catch {
    return false;
  }
}

/** A popup accepts an answer only from its opener, on its own origin. */
export function mayAccept(event: MessageSource, self: Window): boolean {
  return event.origin === self.location.origin && event.source !== null && event.source === self.opener;
}

/** True when this window was opened by another SecureRing window of the same origin. */
export function hasSameOriginOpener(self: Window): boolean {
  try {
    return Boolean(self.opener) && (self.opener as Window).location.origin === self.location.origin;
  } catch {
    return false;
  }
}

/**
 * Popup side: asks the opener for its unlocked keyring. Resolves null when the opener has none
 * (locked, another member) or does not answer within `timeoutMs`.
 */
export function requestKeyringFromOpener(
  expected: { ringId: string; memberId: string },
  timeoutMs = 1500,
  self: Window = window,
): Promise<KeyringTransfer | null> {
  if (!hasSameOriginOpener(self)) return Promise.resolve(null);
  const nonce = crypto.randomUUID();
  return new Promise((resolve) => {
    const done = (value: KeyringTransfer | null) => {
      clearTimeout(timer);
      self.removeEventListener('message', onMessage);
      resolve(value);
    };
    const onMessage = (event: MessageEvent) => {
      if (!mayAccept(event, self)) return;
      const data = event.data as Partial<KeyringResponse> | null;
      if (data?.type !== RESPONSE || data.nonce !== nonce) return;
      done(isKeyringTransfer(data.keyring, expected) ? data.keyring : null);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    self.addEventListener('message', onMessage);
    const request: KeyringRequest = { type: REQUEST, nonce, ...expected };
    (self.opener as Window).postMessage(request, self.location.origin);
  });
}

/**
 * Room side: answers its popups' requests with `current()` when it is for the same Ring and
 * member, null otherwise. Returns the function that stops serving.
 */
export function serveKeyringToPopups(
  current: () => KeyringTransfer | null,
  self: Window = window,
): () => void {
  const onMessage = (event: MessageEvent) => {
    if (!isKeyringRequest(event.data) || !mayAnswer(event, self)) return;
    const keyring = current();
    const matches =
      keyring && keyring.ringId === event.data.ringId && keyring.memberId === event.data.memberId;
    const response: KeyringResponse = {
      type: RESPONSE,
      nonce: event.data.nonce,
      keyring: matches ? keyring : null,
    };
    (event.source as Window).postMessage(response, self.location.origin);
  };
  self.addEventListener('message', onMessage);
  return () => self.removeEventListener('message', onMessage);
}
