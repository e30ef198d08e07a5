import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RingLogin } from '../support/api';
import { screenshot, trackPageErrors } from '../support/browser';
import { admitAndWait, openRoomPage, ringWithMembers } from '../support/ring-setup';
import { enterRoomWithSession, memberAction } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'odile.listes@example.com';
const RING = 'Cellule Discussions';
const PHRASES = {
  owner: 'la liste des conversations tient sur un écran',
  alice: 'alice écrit même quand bob dort',
  bob: 'bob lit ses messages au réveil',
};
const PHONE = { width: 390, height: 844 };
/** The phone's first screen, looked at in review (issue 29). */
const DOCS_DIR = path.resolve(import.meta.dirname, '../../docs/screenshots/conversations');

async function docShot(page: Page, name: string) {
  fs.mkdirSync(DOCS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(DOCS_DIR, `${name}.png`) });
}

const roomChat = (page: Page) => page.getByRole('region', { name: `Salon • ${RING}` });
const conversations = (page: Page) => page.getByRole('list', { name: 'Conversations' });
const row = (page: Page, name: string) => conversations(page).getByRole('listitem').filter({ hasText: name });

async function send(scope: Locator, text: string) {
  await scope.getByRole('textbox', { name: 'Message' }).fill(text);
  await scope.getByRole('button', { name: 'Envoyer' }).click();
}

/**
 * Issue 29, « Conversations » and « Reading state »: the list of a member's conversations with
 * unread counts and last activity (beside the chat on a desktop, the first screen of a phone), a
 * private message to a member who is offline, delivered when it comes back; date separators, the
 * « Nouveaux messages » line, the unread count in the tab title, a notice that opens its
 * conversation.
 */
describe('[CONVERSATIONS] list, unread counts and reading state', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let owner: Page;
  let alice: Page;
  let bobLogin: RingLogin;
  const errors: string[][] = [];

  beforeAll(async () => {
    const logins = await ringWithMembers(suite, OWNER, RING, ['alice', 'bob']);
    bobLogin = logins.members[1]!;
    owner = await openRoomPage(suite, logins.owner, PHRASES.owner, { errors });
    alice = await openRoomPage(suite, logins.members[0]!, PHRASES.alice, { errors });
    // Bob's phone creates his keys once, is admitted, and goes away.
    const bobFirst = await openRoomPage(suite, bobLogin, PHRASES.bob, { ...PHONE, errors });
    await admitAndWait(owner, 'alice', alice);
    await admitAndWait(owner, 'bob', bobFirst);
    await bobFirst.close();
  }, 240_000);

  it('[CONVERSATIONS] a member offline gets a private message; on its phone the list comes first, with unread counts, and opening it reads it', async () => {
    // Bob is offline: alice can still write to him (« ⋯ » → « Message privé à bob »).
    const bobRow = alice.getByRole('listitem', { name: 'bob' });
    await bobRow.getByText(/Vu |Hors ligne/).waitFor({ timeout: 20_000 });
    const [popup] = await Promise.all([
      alice.context().waitForEvent('page'),
      memberAction(alice, 'bob', 'Message privé à bob'),
    ]);
    errors.push(trackPageErrors(popup));
    const dm = popup.getByRole('region', { name: 'Conversation privée avec bob' });
    await dm.getByText('Aucun message pour le moment').waitFor({ timeout: 20_000 });
    await send(dm, 'Tu passes demain au local ?');
    await dm.locator('article[data-status="sent"]').waitFor({ timeout: 15_000 });
    await popup.close();
    await send(roomChat(owner), 'Réunion jeudi à 9 h');
    await roomChat(owner).locator('article[data-status="sent"]').waitFor({ timeout: 15_000 });

    // Alice's desktop: the conversation in the list beside the chat, with its last activity.
    await row(alice, 'bob').getByTestId('conversation-activity').waitFor({ timeout: 15_000 });
    await screenshot(alice, 'conversations-desktop');

    // Bob comes back on his phone: the conversation list is the first screen.
    const bob = await suite.page(PHONE.width, PHONE.height);
    errors.push(trackPageErrors(bob));
    await enterRoomWithSession(bob, suite.server.url, bobLogin);
    const unlock = bob.getByRole('dialog', { name: 'Phrase secrète' });
    await unlock.getByLabel('Phrase secrète', { exact: true }).fill(PHRASES.bob);
    await unlock.getByRole('button', { name: 'Déverrouiller' }).click();
    await bob.locator('[data-e2ee-state="active"]').first().waitFor({ timeout: 30_000 });
    await conversations(bob).waitFor();
    const fromAlice = row(bob, 'alice');
    await expect
      .poll(async () => fromAlice.getByTestId('conversation-unread').textContent(), { timeout: 15_000 })
      .toBe('1 non lu');
    await row(bob, 'Salon du ring').getByTestId('conversation-unread').getByText('1').waitFor();
    // The latest activity comes first; the tab title counts both unread messages.
    expect(await conversations(bob).getByRole('listitem').first().textContent()).toContain('Salon du ring');
    await expect.poll(() => bob.title(), { timeout: 10_000 }).toMatch(/^\(2\) /);
    expect(await bob.title()).toContain(RING);
    // The list fits the phone: no sideways scroll, the tabs and the rows in the first screen.
    expect(
      await bob.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    expect((await bob.getByRole('tablist').boundingBox())!.height).toBeLessThanOrEqual(56);
    const box = (await fromAlice.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height);
    await docShot(bob, '1-phone-conversations');

    // He opens it: « Aujourd’hui », then « Nouveaux messages », then alice's message.
    await fromAlice.getByRole('button').click();
    const bobDm = bob.getByRole('region', { name: 'Conversation privée avec alice' });
    const message = bobDm.getByRole('article').filter({ hasText: 'Tu passes demain au local ?' });
    await message.waitFor({ timeout: 20_000 });
    const log = bobDm.getByRole('log', { name: 'Messages' });
    await log.getByRole('separator', { name: 'Aujourd’hui' }).waitFor();
    await log.getByRole('separator', { name: 'Nouveaux messages' }).waitFor();
    const [day, line, first] = await Promise.all([
      log.getByTestId('day-separator').first().boundingBox(),
      log.getByTestId('new-messages-line').boundingBox(),
      message.boundingBox(),
    ]);
    // The day heads everything below it, then the line, then the first unread message.
    expect(day!.y).toBeLessThan(line!.y);
    expect(line!.y).toBeLessThan(first!.y);
    await docShot(bob, '2-phone-conversation-new-messages');

    // Read: the count goes to 0 in the list and the title counts the room's message only.
    await expect.poll(() => bob.title(), { timeout: 10_000 }).toMatch(/^\(1\) /);
    await bobDm.getByRole('button', { name: 'Retour' }).click();
    await fromAlice.waitFor();
    expect(await fromAlice.getByTestId('conversation-unread').count()).toBe(0);

    // The room: its line too, then nothing unread and no count in the title.
    await row(bob, 'Salon du ring').getByRole('button').click();
    const room = roomChat(bob);
    await room.getByText('Réunion jeudi à 9 h').waitFor({ timeout: 15_000 });
    await room.getByRole('separator', { name: 'Nouveaux messages' }).waitFor();
    await expect.poll(() => bob.title(), { timeout: 10_000 }).not.toMatch(/^\(\d+\) /);

    // A new private message while bob reads the list: its notice opens the conversation.
    await room.getByRole('button', { name: 'Retour' }).click();
    await conversations(bob).waitFor();
    const [alicePopup] = await Promise.all([
      alice.context().waitForEvent('page'),
      row(alice, 'bob').getByRole('button').click(),
    ]);
    const aliceDm = alicePopup.getByRole('region', { name: 'Conversation privée avec bob' });
    await aliceDm.getByText('Tu passes demain au local ?').waitFor({ timeout: 20_000 });
    await send(aliceDm, 'Je t’attends à 10 h');
    const notice = bob.locator('li').filter({ hasText: 'Message privé de alice' });
    await notice.waitFor({ timeout: 15_000 });
    await screenshot(bob, 'conversations-phone-notice');
    await notice.getByRole('button', { name: 'Ouvrir', exact: true }).click();
    await bobDm.getByText('Je t’attends à 10 h').waitFor({ timeout: 15_000 });
    await alicePopup.close();
    expect(errors.flat()).toEqual([]);
  }, 240_000);
});
