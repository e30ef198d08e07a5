import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiJson as api } from '../support/api';
import { screenshot } from '../support/browser';
import { recordSent } from '../support/canary';
import { ownerAndMember } from '../support/ring-setup';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'tina.texte@example.com';
const OWNER_NAME = 'Claire Fontaine';
const RING = 'Atelier Texte';
const PHRASES = { owner: 'les mots longs passent à la ligne', bob: 'bob lit tout sur son téléphone' };
/** In every message: it must never leave a browser in clear. */
const CANARY = `canari${Math.random().toString(36).slice(2, 10)}x`;
const LONG_LINK = `https://exemple.fr/dossier/${CANARY}/${'a1b2c3d4e5'.repeat(15)}`.slice(0, 184);
const PHONE_LINK = `https://www.exemple.org/chemin/${'x'.repeat(44)}`.slice(0, 75);

const roomChat = (page: Page) => page.getByRole('region', { name: `Salon • ${RING}` });
const article = (page: Page, text: string) =>
  roomChat(page).getByRole('log', { name: 'Messages' }).getByRole('article').filter({ hasText: text });

async function send(scope: Locator, text: string) {
  await scope.getByRole('textbox', { name: 'Message' }).fill(text);
  await scope.getByRole('button', { name: 'Envoyer' }).click();
}

/** The element's box lies inside its bubble's and its bubble scrolls nothing sideways. */
async function fitsInBubble(link: Locator) {
  return link.evaluate((el) => {
    const bubble = el.closest('article')!.querySelector('div')!;
    const a = el.getBoundingClientRect();
    const b = bubble.getBoundingClientRect();
    const log = el.closest('[role="log"]')!.getBoundingClientRect();
    return {
      inside: a.left >= b.left - 0.5 && a.right <= b.right + 0.5,
      bubbleInLog: b.left >= log.left - 0.5 && b.right <= log.right + 0.5,
      noScroll: bubble.scrollWidth <= bubble.clientWidth + 1,
      inViewport: b.right <= window.innerWidth,
    };
  });
}

/** Triple-clicks the text and returns what the page selected. */
async function selectByMouse(page: Page, text: Locator): Promise<string> {
  await page.evaluate(() => window.getSelection()?.removeAllRanges());
  await text.click({ clickCount: 3 });
  return page.evaluate(() => window.getSelection()?.toString() ?? '');
}

/**
 * Issue 29, "Text" and "Fewer toasts": long links wrap and open (after a warning for another site),
 * nothing previews them, text is selectable except at the strict level (« Copier » there), long
 * messages fold behind « Afficher plus », an over-long text gets a limit message, and toasts are
 * quieter. The owner is on a desktop, bob on a 390 px phone.
 */
describe('[CHAT] text and toasts', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let customerToken = '';
  let ringId = '';
  let owner: Page;
  let bob: Page;
  const sent: Record<'owner' | 'bob', string[]> = { owner: [], bob: [] };
  const errors: string[][] = [];

  const setLevel = (level: 'standard' | 'maximum') =>
    api(
      suite.server.url,
      'PUT',
      '/api/customer/rings.php',
      {
        ring_id: ringId,
        screen_protection_level: level,
        // Nothing that would mask the content of a headless window.
        screen_devtools_protection: false,
        screen_visibility_protection: false,
        screen_experimental_features: false,
        screen_recording_detection: false,
      },
      customerToken,
    );

  beforeAll(async () => {
    const pair = await ownerAndMember(suite, {
      email: OWNER,
      ring: RING,
      member: 'bob',
      phrases: { owner: PHRASES.owner, member: PHRASES.bob },
      memberViewport: { width: 390, height: 844 },
      errors,
      prepare: async (page, who) => {
        sent[who === 'owner' ? 'owner' : 'bob'] = recordSent(page.context());
        await page
          .context()
          .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server.url });
        // Outside sites answer locally (the sandbox has no network); any request to them is recorded.
        await page
          .context()
          .route(/exemple\.(fr|org)/, (route) =>
            route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Exemple</title>' }),
          );
      },
    });
    ({ owner, member: bob } = pair);
    ({ customerToken, ringId } = pair.logins);
  }, 240_000);

  it('[CHAT] long links wrap inside their bubble and open after a warning naming the domain', async () => {
    await send(roomChat(owner), `Le dossier : ${LONG_LINK}, et sur mobile ${PHONE_LINK}.`);
    for (const [page, name] of [
      [owner, 'desktop'],
      [bob, 'phone'],
    ] as const) {
      const message = article(page, 'Le dossier');
      await message.waitFor({ timeout: 15_000 });
      for (const href of [LONG_LINK, PHONE_LINK]) {
        const link = message.getByRole('link', { name: href.replace('https://', '') }).first();
        expect(await link.getAttribute('target')).toBe('_blank');
        expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
        expect(await fitsInBubble(link)).toEqual({
          inside: true,
          bubbleInLog: true,
          noScroll: true,
          inViewport: true,
        });
      }
      await screenshot(page, `chat-text-links-${name}`);
    }
    // The sentence's punctuation is not part of the link.
    const first = article(bob, 'Le dossier').getByRole('link').first();
    expect(await first.getAttribute('href')).toBe(LONG_LINK);
    // Nobody fetched a preview: no request to the site before a click.
    expect(
      [...sent.owner, ...sent.bob].some((s) => s.includes('exemple.fr') || s.includes('exemple.org')),
    ).toBe(false);

    // Bob clicks: a one-line warning names the domain; « Annuler » closes it, « Ouvrir » opens a new tab.
    await first.click();
    const warning = article(bob, 'Le dossier').getByTestId('link-warning');
    await warning.getByText('Ce lien mène à exemple.fr').waitFor();
    expect(bob.context().pages()).toHaveLength(1);
    await screenshot(bob, 'chat-text-link-warning-phone');
    await warning.getByRole('button', { name: 'Annuler' }).click();
    await warning.waitFor({ state: 'detached' });
    await first.click();
    const [tab] = await Promise.all([
      bob.context().waitForEvent('page'),
      warning.getByRole('button', { name: 'Ouvrir' }).click(),
    ]);
    await tab.waitForURL(LONG_LINK);
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    expect(await tab.evaluate(() => document.referrer)).toBe('');
    await tab.close();

    // The canary: nothing of the text left either browser in clear.
    expect(sent.owner.filter((s) => !s.includes('exemple.')).join('\n')).not.toContain(CANARY);
    expect(sent.bob.filter((s) => !s.includes('exemple.')).join('\n')).not.toContain(CANARY);
    expect(sent.owner.join('\n')).not.toContain('Le dossier');
  }, 120_000);

  it('[CHAT] text is selectable at the default level; at maximum only « Copier » copies it', async () => {
    await send(roomChat(owner), `IBAN FR76 3000 6000 0112 3456 7890 189 ${CANARY}`);
    const text = article(bob, 'IBAN FR76').getByTestId('message-text');
    await text.waitFor({ timeout: 15_000 });
    await bob.locator('[data-protection-level="standard"]').first().waitFor({ state: 'attached' });
    expect(await selectByMouse(bob, text)).toContain('FR76 3000 6000 0112 3456 7890 189');
    expect(await article(bob, 'IBAN FR76').getByRole('button', { name: 'Copier' }).count()).toBe(0);

    await setLevel('maximum');
    await bob
      .locator('[data-protection-level="maximum"]')
      .first()
      .waitFor({ state: 'attached', timeout: 15_000 });
    expect(await selectByMouse(bob, text)).not.toContain('FR76');
    const copy = article(bob, 'IBAN FR76').getByRole('button', { name: 'Copier' });
    await copy.click();
    await article(bob, 'IBAN FR76').getByRole('button', { name: 'Copié' }).waitFor();
    expect(await bob.evaluate(() => navigator.clipboard.readText())).toBe(
      `IBAN FR76 3000 6000 0112 3456 7890 189 ${CANARY}`,
    );
    await screenshot(bob, 'chat-text-copy-maximum-phone');
    await setLevel('standard');
    await bob
      .locator('[data-protection-level="standard"]')
      .first()
      .waitFor({ state: 'attached', timeout: 15_000 });
  }, 120_000);

  it('[CHAT] « Afficher plus » past 1,500 characters; a clear message past the limit, nothing cut', async () => {
    const long = `Début ${CANARY} ${'lorem ipsum '.repeat(150)}FIN-DU-MESSAGE`;
    await send(roomChat(owner), long);
    for (const [page, name] of [
      [owner, 'desktop'],
      [bob, 'phone'],
    ] as const) {
      const message = article(page, 'Début');
      await message.waitFor({ timeout: 15_000 });
      expect(await message.getByText('FIN-DU-MESSAGE').count()).toBe(0);
      await message.getByRole('button', { name: 'Afficher plus' }).click();
      await message.getByText(/FIN-DU-MESSAGE/).waitFor();
      expect((await message.getByTestId('message-text').textContent())?.trim()).toBe(long);
      await screenshot(page, `chat-text-show-more-${name}`);
    }

    const box = roomChat(bob).getByRole('textbox', { name: 'Message' });
    const tooLong = 'é'.repeat(20_001);
    await box.fill(tooLong);
    const alert = roomChat(bob).getByRole('alert').filter({ hasText: 'Message trop long' });
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'Message trop long\u202f: 20\u202f001 caractères pour 20\u202f000 au maximum. Raccourcissez-le ou envoyez-le en plusieurs fois.',
    );
    expect(await box.inputValue()).toHaveLength(20_001);
    expect(await roomChat(bob).getByRole('button', { name: 'Envoyer' }).isDisabled()).toBe(true);
    await box.press('Enter');
    expect(await box.inputValue()).toHaveLength(20_001);
    await screenshot(bob, 'chat-text-limit-phone');
    await box.press('Backspace');
    await alert.waitFor({ state: 'detached' });
    expect(await roomChat(bob).getByRole('button', { name: 'Envoyer' }).isDisabled()).toBe(false);
    await box.fill('');
  }, 120_000);

  it('[CHAT] no toast for one’s own message; incoming ones grouped per conversation', async () => {
    // Bob looks at the files: the room's messages reach him as notices.
    await bob.getByRole('tab', { name: /Fichiers du ring/ }).click();
    for (const n of [1, 2, 3]) {
      await send(roomChat(owner), `Point ${n} ${CANARY}`);
      await article(owner, `Point ${n}`).and(owner.locator('[data-status="sent"]')).waitFor();
    }
    await owner.waitForTimeout(1000);
    expect(await owner.getByText('Message envoyé').count()).toBe(0);

    const title = `${OWNER_NAME} • Salon • ${RING}`;
    await bob.getByText(`${title} · 3 nouveaux messages`).waitFor({ timeout: 10_000 });
    expect(await bob.getByText(title, { exact: false }).count()).toBe(1);
    await screenshot(bob, 'chat-text-grouped-toast-phone');
    for (const list of errors) expect(list).toEqual([]);
  }, 120_000);
});
