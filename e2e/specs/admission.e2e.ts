import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiJson as api, invitedMember, type RingLogin } from '../support/api';
import { downloadOf, fileRow, openFilesTab, upload } from '../support/files';
import { qrCameraFlag } from '../support/qr-camera';
import { admitInRoom, memberAction, membersList, openUnlockedRoom } from '../support/room';
import { launchBrowser, newContext, screenshot, trackPageErrors } from '../support/browser';
import { CUSTOMER_PASSWORD, customerWithRing } from '../support/customer';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'agathe.admission@example.com';
const RING = 'Équipe Admise';
const MEMBER_PASSWORD = 'Membre-Pass-123';
const PHRASES = {
  owner: 'la propriétaire garde la clé',
  alice: 'alice relit chaque numéro',
  bob: 'bob arrive après tout le monde',
  mallory: 'mallory se fait passer pour le support',
};

const PLAN = {
  name: 'plan-avant-bob.txt',
  mimeType: 'text/plain',
  buffer: Buffer.from('Plan de la semaine, déposé avant l’arrivée de bob.\n'),
};

const roomChat = (page: Page) => page.getByRole('region', { name: `Salon • ${RING}` });
const messages = (page: Page) => roomChat(page).getByRole('log', { name: 'Messages' });
const stateOf = (page: Page) => page.locator('[data-e2ee-state]').first();

async function waitForState(page: Page, value: string, timeout = 20_000) {
  await page.locator(`[data-e2ee-state="${value}"]`).first().waitFor({ timeout });
}

async function say(page: Page, text: string) {
  const chat = roomChat(page);
  await chat.getByRole('textbox', { name: 'Message' }).fill(text);
  await chat.getByRole('button', { name: 'Envoyer' }).click();
  await messages(page).getByText(text).waitFor();
}

/**
 * Issue 24 in the browser: nobody reads a Ring before a member admits it in the room — admission by
 * the owner with the history, by a Ring admin without it, and a refusal that ends the newcomer's
 * membership at once.
 */
describe('[ADMISSION] members admit newcomers in the room; the server and the customer account cannot', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  const logins = {} as Record<'owner' | 'alice' | 'bob' | 'mallory', RingLogin>;
  const pages = {} as Record<'owner' | 'alice' | 'bob' | 'mallory', Page>;
  const errors: string[][] = [];
  let customerToken = '';
  let ringId = '';

  /** The room in its own browser context, signed in with the session cookies, passphrase chosen. */
  async function openRoom(login: RingLogin, phrase: string): Promise<Page> {
    const page = await suite.page();
    errors.push(trackPageErrors(page));
    await openUnlockedRoom(page, suite.server.url, login, phrase);
    return page;
  }

  beforeAll(async () => {
    ({ customerToken, ringId } = await customerWithRing(suite.server, suite.mailbox, OWNER, RING));
    // The customer space offers « Partager l'historique » in the admission dialog.
    await api(
      suite.server.url,
      'PUT',
      '/api/customer/rings.php',
      { ring_id: ringId, share_history: true },
      customerToken,
    );
    logins.owner = await api<RingLogin>(suite.server.url, 'POST', '/api/rings/login.php', {
      email: OWNER,
      password: CUSTOMER_PASSWORD,
    });
    for (const name of ['alice', 'bob', 'mallory'] as const)
      logins[name] = await invitedMember(suite.server.url, customerToken, ringId, name, MEMBER_PASSWORD);
  });

  it('[ADMISSION] the owner admits alice with the history: she reads what was said before her', async () => {
    pages.owner = await openRoom(logins.owner, PHRASES.owner);
    await waitForState(pages.owner, 'active');
    await say(pages.owner, 'Dit avant toute admission');

    pages.alice = await openRoom(logins.alice, PHRASES.alice);
    await waitForState(pages.alice, 'waiting_keys');
    await stateOf(pages.alice).getByText('En attente d’admission').waitFor();
    expect(await messages(pages.alice).getByText('Dit avant toute admission').count()).toBe(0);

    // On a phone: the request in the users panel and the dialog fit 375 px.
    await pages.owner.setViewportSize({ width: 375, height: 812 });
    await membersList(pages.owner);
    await pages.owner.getByTestId('admission-request').scrollIntoViewIfNeeded();
    await screenshot(pages.owner, 'admission-request-375');
    await admitInRoom(pages.owner, 'alice', {
      newcomer: pages.alice,
      shareHistory: true,
      onDialog: async (dialog) => {
        // « Donner accès aux fichiers existants » is ticked by default, and the history carries
        // the files too: the box goes once « Partager l'historique » is ticked.
        expect(
          await dialog.getByRole('checkbox', { name: 'Donner accès aux fichiers existants' }).count(),
        ).toBe(0);
        await screenshot(pages.owner, 'admission-dialog-375');
      },
    });
    await pages.owner.setViewportSize({ width: 1280, height: 800 });
    await waitForState(pages.alice, 'active');
    await messages(pages.alice).getByText('Dit avant toute admission').waitFor({ timeout: 20_000 });
    await screenshot(pages.alice, 'admission-history-shared');
  });

  it('[ADMISSION] the owner names alice Ring admin; she admits bob without the history: he reads from his admission on', async () => {
    await memberAction(pages.owner, 'alice', 'Nommer alice admin du Ring');
    await pages.alice
      .getByRole('list', { name: 'Membres du Ring' })
      .getByRole('listitem', { name: 'alice' })
      .getByText('Admin')
      .waitFor({ timeout: 15_000 });
    await say(pages.owner, 'Dit avant bob');
    // A file of the shared drive from before bob: « Donner accès aux fichiers existants » is ticked.
    await openFilesTab(pages.owner);
    await upload(pages.owner, [PLAN]);
    await fileRow(pages.owner, PLAN.name).waitFor({ timeout: 30_000 });
    await pages.owner.getByRole('tab', { name: /Salon du ring/ }).click();

    pages.bob = await openRoom(logins.bob, PHRASES.bob);
    await waitForState(pages.bob, 'waiting_keys');
    await admitInRoom(pages.alice, 'bob', {
      newcomer: pages.bob,
      onDialog: async (dialog) => {
        const files = dialog.getByRole('checkbox', { name: 'Donner accès aux fichiers existants' });
        expect(await files.getAttribute('data-state')).toBe('checked');
        expect(
          await dialog.getByRole('checkbox', { name: 'Partager l’historique' }).getAttribute('data-state'),
        ).toBe('unchecked');
      },
    });
    await waitForState(pages.bob, 'active');
    // He opens the file from before his admission (its key wrapped again for his epoch)...
    await openFilesTab(pages.bob);
    const { bytes } = await downloadOf(pages.bob, fileRow(pages.bob, PLAN.name));
    expect(bytes.equals(PLAN.buffer)).toBe(true);
    await screenshot(pages.bob, 'admission-existing-files');
    await pages.bob.getByRole('tab', { name: /Salon du ring/ }).click();
    await say(pages.alice, 'Bienvenue bob');
    await messages(pages.bob).getByText('Bienvenue bob').waitFor({ timeout: 20_000 });
    // ...but not the messages from before it.
    expect(await messages(pages.bob).getByText('Dit avant bob').count()).toBe(0);
    expect(await messages(pages.bob).getByText('Dit avant toute admission').count()).toBe(0);
    // Not even as undecryptable bubbles: the server serves no history from before his admission.
    expect(await messages(pages.bob).getByText('En attente de la clé de chiffrement…').count()).toBe(0);
    await screenshot(pages.bob, 'admission-by-ring-admin');
  });

  it('[ADMISSION] bob verifies alice by scanning the QR code her page shows: she is marked « Vérifié »', async () => {
    await pages.alice.bringToFront();
    await memberAction(pages.alice, 'alice', 'Afficher mon code QR');
    const qr = pages.alice.getByTestId('my-verification-qr');
    const payload = (await qr.getAttribute('data-payload'))!;
    expect(payload).toMatch(/^SECURERING-VERIFY:1:/);
    await screenshot(pages.alice, 'verification-my-qr');
    await pages.alice.keyboard.press('Escape');

    // Bob's phone: another browser whose camera films alice's screen.
    const phone = await launchBrowser([qrCameraFlag(payload)]);
    try {
      const context = await newContext(phone, 375, 812);
      await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
      const bobPhone = await context.newPage();
      errors.push(trackPageErrors(bobPhone));
      await openUnlockedRoom(bobPhone, suite.server.url, logins.bob, PHRASES.bob);
      await memberAction(bobPhone, 'alice', 'Marquer alice comme vérifié');
      const dialog = bobPhone.getByRole('dialog', { name: 'Vérifier alice' });
      await dialog.getByRole('button', { name: 'Scanner son code QR' }).click();
      await dialog.waitFor({ state: 'detached', timeout: 20_000 });
      await bobPhone
        .getByRole('list', { name: 'Membres du Ring' })
        .getByRole('listitem', { name: 'alice' })
        .getByTestId('verified-badge')
        .waitFor();
      await screenshot(bobPhone, 'verification-scanned');
    } finally {
      await phone.close();
    }
  });

  it('[ADMISSION] a refused newcomer loses its room within seconds and cannot sign in again', async () => {
    pages.mallory = await openRoom(logins.mallory, PHRASES.mallory);
    await waitForState(pages.mallory, 'waiting_keys');
    await pages.owner.getByRole('button', { name: 'Refuser mallory' }).click();
    const confirm = pages.owner.getByRole('dialog', { name: /Refuser mallory/ });
    // The dialog loads with its first opening: shown before the screenshot is taken.
    await confirm.getByRole('button', { name: 'Refuser', exact: true }).waitFor();
    await screenshot(pages.owner, 'admission-refuse-dialog');
    const started = Date.now();
    await confirm.getByRole('button', { name: 'Refuser', exact: true }).click();
    await pages.mallory.getByRole('heading', { name: 'Connexion au Ring' }).waitFor({ timeout: 10_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    const state = await api<{ success: boolean }>(
      suite.server.url,
      'GET',
      '/api/rings/keys/state.php',
      undefined,
      logins.mallory.token,
    );
    expect(state.success).toBe(false);
    // The customer space says so.
    const users = await api<{ data: Array<{ username: string; admission: string | null }> }>(
      suite.server.url,
      'GET',
      `/api/customer/ring-users.php?ring_id=${ringId}`,
      undefined,
      customerToken,
    );
    expect(Object.fromEntries(users.data.map((u) => [u.username, u.admission]))).toMatchObject({
      alice: 'admitted',
      bob: 'admitted',
      mallory: 'refused',
    });
    expect(errors.flat().filter((e) => !/Failed to load resource|401|409/.test(e))).toEqual([]);
  });
});
