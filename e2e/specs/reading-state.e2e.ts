import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser';
import { recordSent } from '../support/canary';
import { ownerAndMember } from '../support/ring-setup';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'lea.lecture@example.com';
const RING = 'Atelier Lecture';
const PHRASES = { owner: 'la lecture reste chiffrée', bob: 'bob tape sans se trahir' };

const signalFrames = (sent: readonly string[]) => sent.filter((f) => f.includes('"reading_signal"'));

const roomChat = (page: Page) => page.getByRole('region', { name: `Salon • ${RING}` });
const log = (page: Page) => roomChat(page).getByRole('log', { name: 'Messages' });
const article = (page: Page, text: string) => log(page).getByRole('article').filter({ hasText: text });

/** Whether the message is within the visible part of its scrolling list. */
const inLogView = (message: Locator) =>
  message.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const list = el.closest('[role="log"]')!.getBoundingClientRect();
    return box.top >= list.top && box.bottom <= list.bottom;
  });

async function send(page: Page, text: string) {
  await roomChat(page).getByRole('textbox', { name: 'Message' }).fill(text);
  await roomChat(page).getByRole('button', { name: 'Envoyer' }).click();
  await article(page, text).first().waitFor({ timeout: 15_000 });
}

/**
 * Issue 29, "Reading state": typing indicators and read receipts are off until the owner signs
 * them on in the membership log (nothing is sent before: no `reading_signal` frame), then « bob
 * écrit… » and « Lu par 1 » come from encrypted signals; search finds an older message without
 * accents or case and jumps to it.
 */
describe('[READING] typing indicators, read receipts, search', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let owner: Page;
  let bob: Page;
  const sent: Record<'owner' | 'bob', string[]> = { owner: [], bob: [] };
  const errors: string[][] = [];

  beforeAll(async () => {
    // Frames are recorded from the start: a socket opened before would go unseen.
    ({ owner, member: bob } = await ownerAndMember(suite, {
      email: OWNER,
      ring: RING,
      member: 'bob',
      phrases: { owner: PHRASES.owner, member: PHRASES.bob },
      errors,
      prepare: (page, who) => {
        sent[who === 'owner' ? 'owner' : 'bob'] = recordSent(page.context(), { requests: false });
      },
    }));
  }, 240_000);

  it('[READING] off by default: typing and reading send nothing', async () => {
    await roomChat(bob).getByRole('textbox', { name: 'Message' }).fill('Je tape');
    await send(bob, 'Rendez-vous devant l’École à 8 h 30');
    await send(owner, 'Bien reçu, merci');
    await article(bob, 'Bien reçu').waitFor({ timeout: 15_000 });
    await bob.waitForTimeout(1500);
    // The sockets were seen (join_ring went out), and no signal among their frames.
    expect(sent.bob.some((f) => f.includes('"join_ring"'))).toBe(true);
    expect(sent.owner.some((f) => f.includes('"join_ring"'))).toBe(true);
    expect(signalFrames(sent.bob)).toEqual([]);
    expect(signalFrames(sent.owner)).toEqual([]);
    expect(await log(owner).getByTestId('read-receipt').count()).toBe(0);
  }, 60_000);

  it('[READING] the owner switches them on: « bob écrit… », then « Lu par 1 », encrypted', async () => {
    await owner.getByRole('button', { name: 'Paramètres' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Paramètres du Ring' });
    const typing = dialog.getByRole('switch', { name: /Indicateurs de saisie/ });
    const receipts = dialog.getByRole('switch', { name: /Accusés de lecture/ });
    expect(await typing.getAttribute('aria-checked')).toBe('false');
    await typing.click();
    await expect.poll(() => typing.getAttribute('aria-checked'), { timeout: 20_000 }).toBe('true');
    await expect.poll(() => typing.isEnabled(), { timeout: 20_000 }).toBe(true);
    await receipts.click();
    await expect.poll(() => receipts.getAttribute('aria-checked'), { timeout: 20_000 }).toBe('true');
    await screenshot(owner, 'reading-settings-owner');
    await owner.keyboard.press('Escape');

    // Bob's browser follows the signed log: his typing reaches the owner as « bob écrit… ».
    const line = roomChat(owner).getByTestId('typing-line');
    const box = roomChat(bob).getByRole('textbox', { name: 'Message' });
    await expect
      .poll(
        async () => {
          await box.fill(`J’écris ${Date.now()}`);
          return line.innerText();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe('bob écrit…');
    await screenshot(owner, 'reading-typing');
    // It goes after 5 s without a new signal.
    await expect.poll(() => line.innerText(), { timeout: 10_000 }).toBe('');

    // The owner's new message, displayed by bob: « Lu par 1 » under it.
    await send(owner, 'Tu as vu le plan ?');
    await article(bob, 'Tu as vu le plan').waitFor({ timeout: 15_000 });
    const receipt = article(owner, 'Tu as vu le plan').getByTestId('read-receipt');
    await receipt.waitFor({ timeout: 20_000 });
    expect(await receipt.innerText()).toBe('Lu par 1');
    await screenshot(owner, 'reading-receipt');

    // Signals went out, encrypted: no plaintext marker in any frame.
    expect(signalFrames(sent.bob).length).toBeGreaterThan(0);
    for (const frame of [...signalFrames(sent.bob), ...signalFrames(sent.owner)]) {
      expect(frame).not.toContain('securering-signal');
      expect(frame).not.toContain('typing');
      expect(frame).not.toContain('écrit');
    }
  }, 120_000);

  it('[READING] search finds an older message without accents and jumps to it', async () => {
    for (let i = 1; i <= 12; i++) await send(owner, `Point ${i} de l’ordre du jour`);
    const old = article(owner, 'Rendez-vous devant');
    // Scrolled out of the list by the newer messages.
    expect(await inLogView(old)).toBe(false);
    await owner.getByRole('button', { name: 'Rechercher' }).first().click();
    const dialog = owner.getByRole('dialog', { name: 'Rechercher dans la conversation' });
    await dialog.getByRole('searchbox', { name: 'Texte à rechercher' }).fill('ecole');
    const results = dialog.getByRole('list', { name: 'Résultats' }).getByRole('button');
    await results.first().waitFor({ timeout: 10_000 });
    expect(await results.count()).toBe(1);
    expect(await results.first().innerText()).toContain('bob');
    expect(await results.first().locator('mark').innerText()).toBe('École');
    await screenshot(owner, 'reading-search');
    await results.first().click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => old.getAttribute('data-search-hit'), { timeout: 5000 }).toBe('');
    expect(await inLogView(old)).toBe(true);
    await screenshot(owner, 'reading-search-jump');
    expect(errors.flat()).toEqual([]);
  }, 120_000);
});
