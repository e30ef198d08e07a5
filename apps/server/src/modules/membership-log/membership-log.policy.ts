import { MEMBERSHIP_LOG_MESSAGES } from '@securering/contract';
import { samePublicIdentity, type MembershipLink, type PublicIdentity } from '@securering/e2ee';

/**
 * What the server checks of a membership link beyond the e2ee verifier (signature, chain, who may
 * make it): that the link agrees with the Ring as the server knows it. A browser never relies on
 * these checks — they keep an honest server's database coherent with the log (the member admitted
 * is the one who accepted the invitation, with the keys it published; the level is the one the
 * customer chose), so that what the server enforces (sessions, who receives shares) follows the
 * log.
 */

/** A member of the Ring as the server stores it, with its published keys. */
export interface ServerMember {
  id: string;
  username: string;
  role: 'owner' | 'admin' | 'member';
  status: 'invited' | 'active' | 'inactive';
  is_used: 0 | 1;
  admitted_seq: number | null;
  refused_at: string | null;
  first_readable_epoch: number;
  keys: { x25519: string; ed25519: string } | null;
}

export interface RingView {
  encryption_level: string;
}

/** The keys the server holds for a member (null: none published) are the ones a link names. */
const sameKeys = (held: ServerMember['keys'], named: PublicIdentity) =>
  held !== null && samePublicIdentity(held, named);

/**
 * Undefined when `link` (already verified against the log) agrees with the server's view of the
 * Ring; otherwise the French refusal. `caller` posts the link and must be its author; `target` is
 * the member the link is about (absent for `level`).
 */
export function checkLinkAgainstRing(
  link: MembershipLink,
  ring: RingView,
  caller: ServerMember,
  target: ServerMember | undefined,
): string | undefined {
  if (link.author !== caller.id) return MEMBERSHIP_LOG_MESSAGES.invalidLink;
  const mismatch = MEMBERSHIP_LOG_MESSAGES.memberMismatch;
  switch (link.type) {
    case 'genesis': {
      const { member, level } = link.body;
      if (caller.role !== 'owner' || member.id !== caller.id) return MEMBERSHIP_LOG_MESSAGES.invalidLink;
      if (!sameKeys(caller.keys, member.keys) || member.username !== caller.username) return mismatch;
      return level === ring.encryption_level ? undefined : mismatch;
    }
    case 'admit': {
      const { member } = link.body;
      if (!target || target.id !== member.id) return MEMBERSHIP_LOG_MESSAGES.notWaiting;
      if (target.status !== 'active' || target.is_used !== 1 || target.admitted_seq !== null)
        return MEMBERSHIP_LOG_MESSAGES.notWaiting;
      if (target.refused_at !== null) return MEMBERSHIP_LOG_MESSAGES.notWaiting;
      if (!sameKeys(target.keys, member.keys) || target.username !== member.username) return mismatch;
      return undefined;
    }
    case 'refuse': {
      if (!target || target.id !== link.body.memberId || target.admitted_seq !== null)
        return MEMBERSHIP_LOG_MESSAGES.notWaiting;
      if (target.status !== 'active' || target.is_used !== 1 || target.refused_at !== null)
        return MEMBERSHIP_LOG_MESSAGES.notWaiting;
      return undefined;
    }
    case 'reactivate':
      // The account is reactivated in the customer space first: the room decides who reads again,
      // the customer space who has an account.
      if (!target || target.id !== link.body.memberId || target.admitted_seq === null) return mismatch;
      return target.status === 'active' ? undefined : MEMBERSHIP_LOG_MESSAGES.reactivateAccountFirst;
    case 'deactivate':
    case 'role':
      return target && target.id === link.body.memberId && target.admitted_seq !== null
        ? undefined
        : mismatch;
    case 'key_change':
      if (!target || target.id !== link.body.memberId || target.admitted_seq === null) return mismatch;
      return sameKeys(target.keys, link.body.keys) ? undefined : mismatch;
    case 'level':
      return link.body.level === ring.encryption_level ? undefined : mismatch;
    case 'reading':
      // The owner's own decision, signed in its room: nothing on the server to match.
      return undefined;
  }
}

/** The member a link is about (none for a level change). */
export function linkTarget(link: MembershipLink): string | undefined {
  switch (link.type) {
    case 'genesis':
    case 'admit':
      return link.body.member.id;
    case 'level':
    case 'reading':
      return undefined;
    default:
      return link.body.memberId;
  }
}
