import type { LoggedMembershipChange } from '../e2ee/keyring';
import type { MembershipNotice } from './membership-notices';

/**
 * How long before the signed link a live notice may be and still be the same event: the server
 * announces a deactivation at once, the owner or an admin signs it in the log when they click
 * « Retirer … du journal », possibly much later, never before.
 */
const SAME_EVENT_BEFORE_MS = 7 * 24 * 3600 * 1000;
/** Clocks of the server and of the signer's browser may differ a little. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * The room's membership lines (issue 28): the deactivations and reactivations the verified log
 * signs (they survive a reload, at the link's time), and the live notices of this page that the
 * log does not record yet (the server's word until someone signs the departure). A live notice
 * the log records — same member name and direction, signed at most a week after it — is replaced
 * by the signed line. In time order.
 */
export function membershipTimeline(
  live: readonly MembershipNotice[],
  logged: readonly LoggedMembershipChange[],
): MembershipNotice[] {
  const signed: MembershipNotice[] = logged.map((change) => ({
    key: `log:${change.memberId}:${change.at}:${change.back ? 'back' : 'off'}`,
    at: change.at,
    username: change.username,
    back: change.back,
  }));
  const unsigned = live.filter((notice) => {
    const at = Date.parse(notice.at);
    return !logged.some((change) => {
      if (change.username !== notice.username || change.back !== notice.back) return false;
      const delay = Date.parse(change.at) - at;
      return delay >= -CLOCK_SKEW_MS && delay <= SAME_EVENT_BEFORE_MS;
    });
  });
  return [...signed, ...unsigned].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
