import type { Page } from 'playwright-core';
import { apiJson, invitedMember, type RingLogin } from './api';
import { trackPageErrors } from './browser';
import { CUSTOMER_PASSWORD, customerWithRing } from './customer';
import { admitInRoom, openUnlockedRoom } from './room';
import type { Suite } from './suite';

/** The password the room specs give their invited members. */
export const MEMBER_PASSWORD = 'Membre-Pass-123';

/** The owner's Ring session: login.php with the customer's email and password. */
export function ownerRingLogin(baseUrl: string, email: string): Promise<RingLogin> {
  return apiJson<RingLogin>(baseUrl, 'POST', '/api/rings/login.php', { email, password: CUSTOMER_PASSWORD });
}

/**
 * What the room specs start from: a subscribed customer with a Ring of `ringName`, the owner's Ring
 * session, and one accepted invitation (a Ring session) per name in `members`, in that order.
 */
export async function ringWithMembers(
  suite: Suite,
  email: string,
  ringName: string,
  members: readonly string[],
  password = MEMBER_PASSWORD,
): Promise<{ customerToken: string; ringId: string; owner: RingLogin; members: RingLogin[] }> {
  const { customerToken, ringId } = await customerWithRing(suite.server, suite.mailbox, email, ringName);
  const owner = await ownerRingLogin(suite.server.url, email);
  const logins: RingLogin[] = [];
  for (const username of members)
    logins.push(await invitedMember(suite.server.url, customerToken, ringId, username, password));
  return { customerToken, ringId, owner, members: logins };
}

/**
 * A Ring session's room, unlocked with `phrase`, in a fresh page of the suite. `prepare` runs on
 * the page first (to record its traffic from its first socket, grant permissions…); the page's
 * errors are pushed to `errors` when given.
 */
export async function openRoomPage(
  suite: Suite,
  login: RingLogin,
  phrase: string,
  options: {
    width?: number;
    height?: number;
    errors?: string[][];
    prepare?: (page: Page) => void | Promise<void>;
  } = {},
): Promise<Page> {
  const page = await suite.page(options.width, options.height);
  options.errors?.push(trackPageErrors(page));
  await options.prepare?.(page);
  await openUnlockedRoom(page, suite.server.url, login, phrase);
  return page;
}

/** `admitter` admits `username` (see {@link admitInRoom}); resolves once `newcomer`'s room is active. */
export async function admitAndWait(admitter: Page, username: string, newcomer: Page): Promise<void> {
  await admitInRoom(admitter, username);
  await newcomer.locator('[data-e2ee-state="active"]').first().waitFor({ timeout: 30_000 });
}

/**
 * The start of most chat specs: {@link ringWithMembers} with one member, the owner's room and the
 * member's room opened (the member's in `memberViewport`, e.g. a phone), the member admitted.
 * `prepare` runs on each page before its room opens (to record its traffic from the start…).
 */
export async function ownerAndMember(
  suite: Suite,
  setup: {
    email: string;
    ring: string;
    member: string;
    phrases: { owner: string; member: string };
    memberViewport?: { width: number; height: number };
    errors?: string[][];
    prepare?: (page: Page, who: 'owner' | 'member') => void | Promise<void>;
  },
): Promise<{ owner: Page; member: Page; logins: Awaited<ReturnType<typeof ringWithMembers>> }> {
  const { prepare, errors } = setup;
  const logins = await ringWithMembers(suite, setup.email, setup.ring, [setup.member]);
  const owner = await openRoomPage(suite, logins.owner, setup.phrases.owner, {
    ...(errors ? { errors } : {}),
    ...(prepare ? { prepare: (page: Page) => prepare(page, 'owner') } : {}),
  });
  const member = await openRoomPage(suite, logins.members[0]!, setup.phrases.member, {
    ...setup.memberViewport,
    ...(errors ? { errors } : {}),
    ...(prepare ? { prepare: (page: Page) => prepare(page, 'member') } : {}),
  });
  await admitAndWait(owner, setup.member, member);
  return { owner, member, logins };
}
