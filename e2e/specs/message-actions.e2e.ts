import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCREENSHOT_DIR, screenshot } from '../support/browser';
import { ownerAndMember } from '../support/ring-setup';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';
import { filesHolding, newCanary, recordTraffic, type Traffic } from '../support/canary';

const OWNER = 'marc.actions@example.com';
const OWNER_NAME = 'Claire Fontaine';
const RING = 'Atelier Actions';
const PHRASES = { owner: 'les réponses citent le message', bob: 'bob réagit depuis son téléphone' };
/** In every text: it must never leave a browser in clear. */
const CANARY = newCanary();

const roomChat = (page: Page) => page.getByRole('region', { name: `Salon • ${RING}` });
const log = (page: Page) => roomChat(page).getByRole('log', { name: 'Messages' });
/** The message whose own text (not a reply's quote of it) holds `text`. */
const article = (page: Page, text: string) =>
  log(page)
    .getByRole('article')
    .filter({ has: page.getByTestId('message-text').filter({ hasText: text }) });

async function send(page: Page, text: string) {
  await roomChat(page).getByRole('textbox', { name: 'Message' }).fill(text);
  await roomChat(page).getByRole('button', { name: 'Envoyer' }).click();
}

/** Opens the « ⋯ » menu of a message and returns it. */
async function openActions(message: Locator): Promise<Locator> {
  await message.hover();
  await message.getByRole('button', { name: 'Actions du message' }).click();
  const menu = message.getByRole('menu', { name: 'Actions du message' });
  await menu.waitFor();
  return menu;
}

/**
 * Issue 29, "Message actions": the owner on a desktop and bob on a 390 px phone reply with a quote,
 * react, edit (« modifié ») and delete (« Message supprimé », also after a reload: no « Message
 * manquant »), and an @mention reaches bob while his notifications are muted. Actions show as no
 * bubble of their own, and nothing of any text leaves a browser in clear.
 */
describe('[ACTIONS] reply, react, edit, delete, mention', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let owner: Page;
  let bob: Page;
  const traffic: Partial<Record<'owner' | 'bob', Traffic>> = {};
  const errors: string[][] = [];

  beforeAll(async () => {
    // Bob on a 390 px phone; traffic is recorded from the start (a socket opened before would go
    // unseen).
    ({ owner, member: bob } = await ownerAndMember(suite, {
      email: OWNER,
      ring: RING,
      member: 'bob',
      phrases: { owner: PHRASES.owner, member: PHRASES.bob },
      memberViewport: { width: 390, height: 844 },
      errors,
      prepare: (page, who) => {
        traffic[who === 'owner' ? 'owner' : 'bob'] = recordTraffic(page.context());
      },
    }));
  }, 240_000);

  it('[ACTIONS] reply with a quote, reactions with counts, an edit marked « modifié »', async () => {
    await send(owner, `Réunion demain à 10 h ${CANARY}`);
    const original = article(bob, 'Réunion demain');
    await original.waitFor({ timeout: 15_000 });

    // Bob replies from the « ⋯ » menu: the composer shows what he answers, with « Annuler ».
    await (await openActions(original)).getByRole('menuitem', { name: 'Répondre' }).click();
    const draft = roomChat(bob).getByTestId('composer-draft');
    await draft.getByText(`Réponse à ${OWNER_NAME}`).waitFor();
    await send(bob, `Je serai là ${CANARY}`);
    await draft.waitFor({ state: 'detached' });
    for (const page of [owner, bob]) {
      const reply = article(page, 'Je serai là');
      await reply.waitFor({ timeout: 15_000 });
      expect(await reply.getByTestId('reply-quote').innerText()).toContain('Réunion demain à 10 h');
    }

    // Bob reacts 👍; the owner sees « 👍 1 » and adds hers: 2 on both sides.
    await (await openActions(original)).getByRole('menuitem', { name: 'Réagir 👍' }).click();
    const ownerChip = article(owner, 'Réunion demain').getByTestId('reactions').getByRole('button');
    await ownerChip.filter({ hasText: '1' }).waitFor({ timeout: 15_000 });
    expect(await ownerChip.getAttribute('aria-pressed')).toBe('false');
    await ownerChip.click();
    for (const page of [owner, bob])
      await article(page, 'Réunion demain')
        .getByTestId('reactions')
        .getByRole('button', { name: /^👍 2/ })
        .waitFor({ timeout: 15_000 });
    expect(await ownerChip.getAttribute('aria-pressed')).toBe('true');

    // The owner edits her message: the box starts from its text; both read the new one, « modifié ».
    const mine = article(owner, 'Réunion demain');
    await (await openActions(mine)).getByRole('menuitem', { name: 'Modifier' }).click();
    const box = roomChat(owner).getByRole('textbox', { name: 'Message' });
    expect(await box.inputValue()).toBe(`Réunion demain à 10 h ${CANARY}`);
    await roomChat(owner).getByText('Modification du message').waitFor();
    await send(owner, `Réunion demain à 11 h ${CANARY}`);
    for (const page of [owner, bob]) {
      const edited = article(page, 'Réunion demain à 11 h');
      await edited.getByTestId('message-edited').waitFor({ timeout: 15_000 });
      expect(await article(page, 'Réunion demain à 10 h').count()).toBe(0);
      // Reactions stay; the reply quotes the text as edited.
      await edited.getByTestId('reactions').getByRole('button', { name: /^👍 2/ }).waitFor();
      expect(await article(page, 'Je serai là').getByTestId('reply-quote').innerText()).toContain('11 h');
      // Two bubbles: the message and the reply (the reactions and the edit show as none).
      expect(await log(page).getByRole('article').count()).toBe(2);
    }
    await screenshot(owner, 'message-actions-desktop');
    await screenshot(bob, 'message-actions-phone');
    // No toast for any of it on the owner's side.
    expect(await owner.getByText('Message envoyé').count()).toBe(0);
  }, 180_000);

  it('[ACTIONS] deleting one’s message: « Message supprimé » for both, after a reload too', async () => {
    await send(owner, `À effacer ${CANARY}`);
    await article(bob, 'À effacer').waitFor({ timeout: 15_000 });
    await send(owner, `Après ${CANARY}`);
    await article(bob, 'Après').waitFor({ timeout: 15_000 });
    // Bob has no « Supprimer » nor « Modifier » on the owner's message.
    const theirs = await openActions(article(bob, 'À effacer'));
    expect(await theirs.getByRole('menuitem', { name: 'Supprimer' }).count()).toBe(0);
    expect(await theirs.getByRole('menuitem', { name: 'Modifier' }).count()).toBe(0);
    await bob.keyboard.press('Escape');

    const deleted = await Promise.all([
      owner.waitForResponse((r) => r.url().includes('/api/messages/delete.php')),
      (async () => {
        const menu = await openActions(article(owner, 'À effacer'));
        // The viewport only (a full-page capture resizes the window, which closes the menu).
        await owner.screenshot({ path: path.join(SCREENSHOT_DIR, 'message-actions-menu-desktop.png') });
        await menu.getByRole('menuitem', { name: 'Supprimer' }).click();
        await menu.getByText('Supprimer ce message pour tous').waitFor();
        await menu.getByRole('menuitem', { name: 'Supprimer' }).click();
      })(),
    ]);
    expect(deleted[0].status()).toBe(200);
    for (const page of [owner, bob]) {
      await log(page).getByTestId('message-deleted').waitFor({ timeout: 15_000 });
      expect(await article(page, 'À effacer').count()).toBe(0);
    }

    // Bob reloads: the server no longer has the ciphertext, the signed deletion fills its place.
    await bob.reload();
    const dialog = bob.getByRole('dialog', { name: 'Phrase secrète' });
    await dialog.getByLabel('Phrase secrète', { exact: true }).fill(PHRASES.bob);
    await dialog.getByRole('button', { name: 'Déverrouiller' }).click();
    await bob.locator('[data-e2ee-state="active"]').first().waitFor({ timeout: 30_000 });
    // A phone opens on its conversations, or on the conversation it showed last.
    const list = bob.locator('[data-room-layout="phone"]').getByRole('list', { name: 'Conversations' });
    await roomChat(bob).or(list).first().waitFor({ timeout: 15_000 });
    if (await list.isVisible()) await list.getByRole('button', { name: /Salon du ring/ }).click();
    await article(bob, 'Après').waitFor({ timeout: 15_000 });
    await log(bob).getByTestId('message-deleted').waitFor();
    expect(await log(bob).getByTestId('message-missing').count()).toBe(0);
    expect(await article(bob, 'À effacer').count()).toBe(0);
    // Where it was: before « Après », not at the end where the deletion arrived.
    const order = await log(bob)
      .getByRole('article')
      .evaluateAll((els) =>
        els.map((el) => (el.hasAttribute('data-deleted') ? '×' : (el.textContent ?? ''))),
      );
    expect(order.indexOf('×')).toBeGreaterThan(-1);
    expect(order.indexOf('×')).toBeLessThan(order.findIndex((text) => text.includes('Après')));
    await screenshot(bob, 'message-actions-deleted-phone');
  }, 180_000);

  it('[ACTIONS] an @mention picked from the list notifies bob even with notifications muted', async () => {
    // Bob mutes every notification and looks at the files.
    await roomChat(bob).getByRole('button', { name: 'Couper les notifications' }).click();
    await bob.getByRole('button', { name: 'Jusqu’à réactivation' }).click();
    await roomChat(bob).getByRole('button', { name: 'Réactiver les notifications' }).waitFor();
    await bob.getByRole('tab', { name: /Fichiers du ring/ }).click();

    const title = `${OWNER_NAME} • Salon • ${RING}`;
    await send(owner, `Sans mention ${CANARY}`);
    await article(owner, 'Sans mention').and(owner.locator('[data-status="sent"]')).waitFor();
    await bob.waitForTimeout(1500);
    expect(await bob.getByText(title, { exact: false }).count()).toBe(0);

    // « @bo » offers bob; Enter picks him.
    const box = roomChat(owner).getByRole('textbox', { name: 'Message' });
    await box.fill('Peux-tu relire, @bo');
    const list = roomChat(owner).getByRole('listbox', { name: 'Mentionner un membre' });
    await list.getByRole('option', { name: '@bob' }).waitFor();
    await box.press('Enter');
    expect(await box.inputValue()).toBe('Peux-tu relire, @bob ');
    await box.pressSequentially(`merci ${CANARY}`);
    await roomChat(owner).getByRole('button', { name: 'Envoyer' }).click();
    await bob.getByText(title, { exact: false }).first().waitFor({ timeout: 15_000 });
    await bob.getByText('Peux-tu relire, @bob merci', { exact: false }).first().waitFor();
    await screenshot(bob, 'message-actions-mention-muted-phone');

    // Nothing of any text (messages, replies, edits, mentions) left either browser in clear, came
    // back from the server in clear, or landed in its files or log (the canary, issue 29).
    expect(traffic.owner!.requests.some((url) => url.includes('/api/messages/delete.php'))).toBe(true);
    for (const side of [traffic.owner!, traffic.bob!]) {
      const all = [...side.sent, ...side.received].join('\n');
      expect(all).not.toContain(CANARY);
      expect(all).not.toContain('Réunion');
    }
    // The scan finds a known plaintext (the Ring's name), so it would find the canary.
    expect(filesHolding(suite.server.dataDir, RING).length).toBeGreaterThan(0);
    expect(filesHolding(suite.server.dataDir, CANARY)).toEqual([]);
    expect(suite.server.output()).not.toContain(CANARY);
    for (const list of errors) expect(list).toEqual([]);
  }, 180_000);
});
