import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiJson, type RingLogin } from '../support/api';
import { screenshot, trackPageErrors } from '../support/browser';
import { customerSignIn, customerWithRing } from '../support/customer';
import { linkIn } from '../support/mailbox';
import { admitInRoom, enterRoomWithSession, saveRecoveryKey } from '../support/room';
import { PAYMENT_TEST_MODE_ENV, ROOT } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'odile.acces@example.com';
const RING = 'Équipe Accès';
const OWNER_PHRASE = 'la propriétaire garde sa phrase';
const MARC = 'Marc';
const MARC_EMAIL = 'marc.acces@example.com';
const MARC_PASSWORD = 'Marc-Pass-123';
const MARC_NEW_PASSWORD = 'Marc-Nouveau-456';
const MARC_PHRASE = 'marc retient une longue phrase';
const SUSPENDED = 'Votre accès à ce Ring a été suspendu par son administrateur';

/** Screenshots of the deactivation flow kept with the docs (issue 28: looked at, not just taken). */
const DOCS_DIR = path.join(ROOT, 'docs/screenshots/deactivation');
async function docShot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(DOCS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(DOCS_DIR, `${name}.png`), fullPage: false });
  await screenshot(page, `access-${name}`);
}

const roomTitle = (page: Page) => page.locator('h1', { hasText: RING });
const stateOf = (page: Page) => page.locator('[data-e2ee-state]').first().getAttribute('data-e2ee-state');
async function waitForState(page: Page, value: string, timeout = 20_000) {
  await page.locator(`[data-e2ee-state="${value}"]`).first().waitFor({ timeout });
}

/** Types the passphrase in the room's dialog (creating it the first time). */
async function unlock(page: Page, phrase: string) {
  const dialog = page.getByRole('dialog', { name: 'Phrase secrète' });
  await dialog.waitFor();
  await dialog.getByLabel('Phrase secrète', { exact: true }).fill(phrase);
  const confirm = dialog.getByLabel('Confirmer la phrase secrète');
  const creating = (await confirm.count()) > 0;
  if (creating) await confirm.fill(phrase);
  await dialog.getByRole('button', { name: /^(Créer ma phrase secrète|Déverrouiller)$/ }).click();
  if (creating) await saveRecoveryKey(page);
  await page.locator('[data-e2ee-state="active"], [data-e2ee-state="waiting_keys"]').first().waitFor();
}

async function signInToRing(page: Page, email: string, password: string) {
  const form = page.getByRole('heading', { name: 'Connexion au Ring' });
  await form.waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
}

describe('[ACCESS] deactivation, expired session and forgotten password of a Ring member', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let customerToken = '';
  let ringId = '';
  let marcId = '';
  let owner: Page;
  let marc: Page;
  const errors: string[][] = [];

  const setStatus = (status: 'active' | 'inactive') =>
    apiJson(
      suite.server.url,
      'PATCH',
      '/api/customer/ring-users.php',
      { user_id: marcId, status },
      customerToken,
    );

  beforeAll(async () => {
    ({ customerToken, ringId } = await customerWithRing(suite.server, suite.mailbox, OWNER, RING));
    const invited = await apiJson<{ data: { inviteCode: string; id: string } }>(
      suite.server.url,
      'POST',
      '/api/customer/ring-users.php',
      { ring_id: ringId, username: MARC, email: MARC_EMAIL },
      customerToken,
    );
    const marcLogin = await apiJson<RingLogin>(suite.server.url, 'POST', '/api/rings/accept-invite.php', {
      invite_code: invited.data.inviteCode,
      username: MARC,
      email: MARC_EMAIL,
      password: MARC_PASSWORD,
    });
    marcId = marcLogin.user.id;
    const ownerLogin = await apiJson<RingLogin>(
      suite.server.url,
      'POST',
      '/api/customer/ring-session.php',
      { ring_id: ringId },
      customerToken,
    );

    owner = await suite.page();
    errors.push(trackPageErrors(owner));
    // The owner is signed in to the customer space too, as when it enters from « Accéder à mon Ring ».
    await customerSignIn(owner, suite.server, OWNER);
    await owner.getByRole('tab', { name: 'Mes Utilisateurs' }).waitFor();
    await enterRoomWithSession(owner, suite.server.url, ownerLogin);
    await unlock(owner, OWNER_PHRASE);
    await waitForState(owner, 'active');

    marc = await suite.page();
    errors.push(trackPageErrors(marc));
    await enterRoomWithSession(marc, suite.server.url, marcLogin);
    await unlock(marc, MARC_PHRASE);
    await admitInRoom(owner, MARC, { newcomer: marc });
    await waitForState(marc, 'active');
  });

  it('[ACCESS] a deactivated member’s open room says at once that its access is suspended; the others see it leave', async () => {
    await docShot(marc, '1-member-room-before');
    const started = Date.now();
    await setStatus('inactive');

    // Not an empty login form: the reason, and the email already filled in.
    await marc.getByText(SUSPENDED).waitFor({ timeout: 5000 });
    expect(Date.now() - started).toBeLessThan(5000);
    await marc.getByRole('heading', { name: 'Connexion au Ring' }).waitFor();
    expect(await marc.getByLabel('Email').inputValue()).toBe(MARC_EMAIL);
    await docShot(marc, '2-member-suspended-live');

    // The others read it in the room's timeline.
    const timeline = owner.getByRole('log', { name: 'Messages' });
    await timeline.getByText(`${MARC} a été retiré du Ring`).waitFor({ timeout: 5000 });
    await docShot(owner, '3-owner-timeline-member-removed');

    // The owner records his departure in the signed log (issue 24), as the room asks.
    const departure = owner.getByRole('button', { name: `Retirer ${MARC} du journal` });
    await departure.waitFor({ timeout: 15_000 });
    await departure.click();
    await departure.waitFor({ state: 'detached', timeout: 15_000 });

    // After a reload the line is still there: the signed log says so, not a live event.
    await owner.reload();
    await roomTitle(owner).waitFor();
    await unlock(owner, OWNER_PHRASE);
    await waitForState(owner, 'active');
    const reloaded = owner.getByRole('log', { name: 'Messages' });
    await reloaded.getByText(`${MARC} a été retiré du Ring`).waitFor({ timeout: 15_000 });
    expect(await reloaded.getByText(`${MARC} a été retiré du Ring`).count()).toBe(1);
    await docShot(owner, '3b-owner-timeline-after-reload');
  });

  it('[ACCESS] at login, a deactivated member reads the same reason, but only with its right password', async () => {
    await marc.goto(`${suite.server.url}/ring`);
    // A guess learns nothing about the account.
    await signInToRing(marc, MARC_EMAIL, 'Pas-le-bon-mot-de-passe');
    await marc.getByText('Identifiants incorrects').first().waitFor();
    expect(await marc.getByText(SUSPENDED).count()).toBe(0);

    await marc.getByLabel('Mot de passe', { exact: true }).fill(MARC_PASSWORD);
    await marc.getByRole('button', { name: 'Se connecter' }).click();
    await marc.getByText(SUSPENDED).waitFor();
    expect(await marc.getByText('Identifiants incorrects').count()).toBe(0);
    await docShot(marc, '4-member-suspended-at-login');

    // The same on a phone.
    const phone = await suite.page(390, 844);
    await phone.goto(`${suite.server.url}/ring`);
    await signInToRing(phone, MARC_EMAIL, MARC_PASSWORD);
    await phone.getByText(SUSPENDED).waitFor();
    await docShot(phone, '4b-member-suspended-at-login-phone');
    await phone.close();
  });

  it('[ACCESS] reactivated, the member is told what it can read and gets its keys without anyone posting', async () => {
    await setStatus('active');
    await owner
      .getByRole('log', { name: 'Messages' })
      .getByText(`${MARC} a été réactivé dans le Ring`)
      .waitFor();

    await marc.getByRole('button', { name: 'Se connecter' }).click();
    await roomTitle(marc).waitFor();
    await unlock(marc, MARC_PHRASE);
    await waitForState(marc, 'waiting_keys');
    const removed = marc.getByRole('alert').filter({ hasText: 'Accès retiré' });
    await removed.getByTestId('reactivation-reading').waitFor();
    expect(await removed.textContent()).toContain('sans que personne n’ait à écrire');
    await docShot(marc, '5-member-back-waiting-log');

    const messagesBefore = await owner.getByRole('log', { name: 'Messages' }).locator('article').count();
    const reactivate = owner.getByRole('button', { name: `Réactiver ${MARC}` });
    await reactivate.waitFor({ timeout: 15_000 });
    await reactivate.click();

    // His keys arrive with the reactivation: nobody posted anything.
    await waitForState(marc, 'active', 30_000);
    expect(await owner.getByRole('log', { name: 'Messages' }).locator('article').count()).toBe(
      messagesBefore,
    );
    const back = marc.getByRole('status').filter({ hasText: 'Vous êtes de nouveau membre du Ring' });
    await back.getByTestId('reactivation-reading').waitFor();
    await docShot(marc, '6-member-back-explained');

    // And he reads what is sent from now on.
    await owner.getByRole('textbox', { name: 'Message' }).first().fill('Bon retour Marc');
    await owner.getByRole('button', { name: 'Envoyer' }).first().click();
    await marc.getByText('Bon retour Marc').waitFor({ timeout: 15_000 });
  });

  it('[ACCESS] an expired session says so, keeps the email and sends the interrupted message after the new login', async () => {
    // The session ends on the server while the page is open (as after 7 days), 5.2 s from now:
    // the page's socket, which re-reads its session at most every 5 s (MEMBER_RECHECK_MS) and
    // checks its end at every event, then refuses the send as send.php does, and the page sends it
    // through send.php, which answers 401. (Ended by hand in the past instead, the session would
    // still be the socket's until its next re-read: SECURITY.md, « Sending over the socket ».)
    const endsAt = Date.now() + 5200;
    const database = new Database(path.join(suite.server.dataDir, 'securering.sqlite'));
    try {
      database
        .prepare(
          "UPDATE sessions SET expires_at = ? WHERE audience = 'ring' AND subject_id = ? AND revoked_at IS NULL",
        )
        .run(new Date(endsAt).toISOString(), marcId);
    } finally {
      database.close();
    }
    await marc.waitForTimeout(endsAt + 200 - Date.now());
    const box = marc.getByRole('textbox', { name: 'Message' }).first();
    await box.fill('Message écrit avant l’expiration');
    await marc.getByRole('button', { name: 'Envoyer' }).first().click();

    await marc.getByText('Session expirée\u202f: reconnectez-vous').waitFor({ timeout: 10_000 });
    expect(await marc.getByLabel('Email').inputValue()).toBe(MARC_EMAIL);
    expect(await marc.getByText('Non authentifié').count()).toBe(0);
    await screenshot(marc, 'access-session-expired');
    // Kept in memory only: nothing of it in this browser's storage.
    const stored = await marc.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
    );
    expect(stored).not.toContain('avant l’expiration');
    expect(await owner.getByText('Message écrit avant l’expiration').count()).toBe(0);

    await marc.getByLabel('Mot de passe', { exact: true }).fill(MARC_PASSWORD);
    await marc.getByRole('button', { name: 'Se connecter' }).click();
    await roomTitle(marc).waitFor();
    await marc.locator('[data-e2ee-state="locked"], [data-e2ee-state="active"]').first().waitFor();
    if ((await stateOf(marc)) === 'locked') await unlock(marc, MARC_PHRASE);
    await owner.getByText('Message écrit avant l’expiration').waitFor({ timeout: 20_000 });
  });

  it('[ACCESS] « Mot de passe oublié »: a link by email, a new password, and the same passphrase still unlocks', async () => {
    const page = await suite.page();
    errors.push(trackPageErrors(page));
    await page.goto(`${suite.server.url}/ring`);
    await page.getByRole('button', { name: 'Mot de passe oublié\u202f?' }).click();
    await page.getByLabel('Email').fill(MARC_EMAIL);
    await page.getByRole('button', { name: 'Envoyer le lien' }).click();
    await page
      .getByText('Si un compte existe pour cette adresse, un email de réinitialisation a été envoyé.')
      .waitFor();
    await page
      .getByTestId('keys-unchanged')
      .getByText(/Vos clés de chiffrement ne changent pas/)
      .waitFor();
    await screenshot(page, 'access-forgot-password');

    const mail = await suite.mailbox.waitFor(
      (m) => m.to.includes(MARC_EMAIL) && m.subject.includes('Réinitialisation'),
    );
    await page.goto(linkIn(mail.text, '/ring-access?reset='));
    await page.getByLabel('Nouveau mot de passe').fill(MARC_NEW_PASSWORD);
    await page.getByLabel('Confirmer le mot de passe').fill(MARC_NEW_PASSWORD);
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
    await page.getByText(/Votre mot de passe a été réinitialisé/).waitFor();
    await screenshot(page, 'access-reset-password-done');
    await page.getByRole('button', { name: 'Se connecter' }).click();

    // The open room's session ended with the reset; the old password no longer works.
    await marc.getByRole('heading', { name: 'Connexion au Ring' }).waitFor({ timeout: 15_000 });
    await signInToRing(page, MARC_EMAIL, MARC_PASSWORD);
    await page.getByText('Identifiants incorrects').first().waitFor();
    await page.getByLabel('Mot de passe', { exact: true }).fill(MARC_NEW_PASSWORD);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await roomTitle(page).waitFor();
    await unlock(page, MARC_PHRASE);
    await waitForState(page, 'active');
    await page.getByText('Bon retour Marc').waitFor({ timeout: 15_000 });
  });

  it('[ACCESS] « Déconnexion » closes the private-message popup with its keys and offers the owner to leave the customer space too', async () => {
    const [popup] = await Promise.all([
      owner.waitForEvent('popup'),
      owner.evaluate(() => {
        window.open('/ring?convId=room:general', 'securering-dm', 'width=520,height=760');
      }),
    ]);
    await waitForState(popup, 'active');
    const closed = popup.waitForEvent('close', { timeout: 10_000 });
    await owner.getByRole('button', { name: 'Déconnexion' }).click();
    await closed;

    await owner.getByRole('heading', { name: 'Connexion au Ring' }).waitFor();
    const notice = owner.getByRole('status').filter({ hasText: 'Vous êtes déconnecté du Ring.' });
    await notice.getByText('Vous êtes toujours connecté à l’espace client.').waitFor();
    await screenshot(owner, 'access-logged-out-owner');
    await notice.getByRole('button', { name: 'Se déconnecter aussi de l’espace client' }).click();
    await notice.getByText('Vous êtes aussi déconnecté de l’espace client.').waitFor();
    await owner.goto(`${suite.server.url}/client`);
    await owner.getByLabel('Mot de passe', { exact: true }).waitFor();

    expect(errors.flat().filter((e) => !/Failed to load resource|401|403|409/.test(e))).toEqual([]);
  });
});
