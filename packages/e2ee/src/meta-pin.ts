import { type MembershipState, signingKeysAt } from './membership-log';

/**
 * Where the signer of a file or folder metadata blob stood (file-meta.ts, issue 27): apart from
 * the blob code so that the keyring, which checks pins against the log, does not load it.
 */

/** Where the signer stood when it signed: the epoch it held and the log head it verified. */
export interface MetaPin {
  epoch: number;
  logSeq: number;
  /** Hex SHA-256 of the log link at `logSeq` (membership-log.ts `hashLink`). */
  logHash: string;
}

/** A blob's signer and pin, as its clear part says (not verified until it opens). */
export interface SignedPin extends MetaPin {
  signer: string;
}

/**
 * The Ed25519 keys (base64) that may have signed a blob pinned at `pin`, by the verified log:
 * none when the log this browser verified has another link at that seq (a forked log), when the
 * signer was not admitted yet or already removed (deactivated) there, or when it is not in the
 * log; else the key the log gave the signer at that seq (a key replaced earlier verifies nothing
 * newer). A pin beyond the verified head gives none: read the log again first.
 */
export function metaSignerKeys(state: MembershipState, pin: SignedPin): string[] {
  if (pin.logSeq > state.head.seq || state.hashes[pin.logSeq] !== pin.logHash) return [];
  const member = state.members.get(pin.signer);
  if (!member || pin.logSeq < member.admittedSeq) return [];
  if (member.status === 'deactivated' && pin.logSeq >= member.statusSince) return [];
  return signingKeysAt(state, pin.signer, pin.logSeq);
}
