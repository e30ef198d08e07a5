import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot, trackPageErrors } from '../support/browser';
import { CUSTOMER_PASSWORD, customerSignIn, subscribedCustomer } from '../support/customer';
import { memberAction, memberSafetyNumber, saveRecoveryKey, waitForInvitePrefill } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'helene.e2ee@example.com';
const RING = 'Équipe Chiffrée';
const OWNER_PHRASE = 'la mer est calme ce soir';
const BOB_PASSWORD = 'Bob-Pass-123';
const BOB_PHRASE = 'bob aime les phrases longues';
const BOB_NEW_PHRASE = 'une toute nouvelle phrase de bob';
const OWNER_NEW_PHRASE = 'la propriétaire recommence avec une phrase neuve';

/** The room's title (a modal dialog hides it from the accessibility tree, hence no role query). */
const roomTitle = (page: Page) => page.locator('h1', { hasText: RING });

/** The element that carries the room's encryption state. */
const state = (page: Page) => page.locator('[data-e2ee-state]').first();

async function waitForState(page: Page, value: string, timeout = 15_000) {
  await page.locator(`[data-e2ee-state="${value}"]`).first().waitFor({ timeout });
}

/** Records every `data-e2ee-state` the page shows, in order, from the first paint. */
async function recordStates(page: Page) {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __e2eeStates: string[] }).__e2eeStates = seen;
    const record = () => {
      const value = document.querySelector('[data-e2ee-state]')?.getAttribute('data-e2ee-state');
      if (value && seen[seen.length - 1] !== value) seen.push(value);
    };
    new MutationObserver(record).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-e2ee-state'],
    });
  });
}
const statesOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { __e2eeStates: string[] }).__e2eeStates);

async function choosePassphrase(page: Page, phrase: string) {
  const dialog = page.getByRole('dialog', { name: 'Phrase secrète' });
  await dialog.waitFor();
  await dialog.getByLabel('Phrase secrète', { exact: true }).fill(phrase);
  await dialog.getByLabel('Confirmer la phrase secrète').fill(phrase);
  await dialog.getByRole('button', { name: 'Créer ma phrase secrète' }).click();
  await saveRecoveryKey(page);
}

async function unlockWith(page: Page, phrase: string) {
  const dialog = page.getByRole('dialog', { name: 'Phrase secrète' });
  await dialog.waitFor();
  expect(await dialog.getByLabel('Confirmer la phrase secrète').count()).toBe(0);
  await dialog.getByLabel('Phrase secrète', { exact: true }).fill(phrase);
  await dialog.getByRole('button', { name: 'Déverrouiller' }).click();
}

/** « Marquer … comme vérifié » in `page`, after checking the number is the one `peer` shows itself. */
async function markVerified(page: Page, peer: Page, username: string) {
  await memberAction(page, username, `Marquer ${username} comme vérifié`);
  const dialog = page.getByRole('dialog', { name: `Vérifier ${username}` });
  expect((await dialog.getByTestId('verify-safety-number').textContent())!.trim()).toBe(
    await safetyNumberOf(peer, username),
  );
  await dialog.getByRole('button', { name: 'Les numéros sont identiques' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page
    .getByRole('list', { name: 'Membres du Ring' })
    .getByRole('listitem', { name: username })
    .getByTestId('verified-badge')
    .waitFor();
}

async function safetyNumberOf(page: Page, username: string): Promise<string> {
  return memberSafetyNumber(page, username);
}

describe('[E2EE] personal passphrases, admission in the room, safety numbers and member deactivation', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let dashboard: Page;
  let ownerRoom: Page;
  let bob: Page;
  let bobCode = '';
  const errors: string[][] = [];

  beforeAll(async () => {
    await subscribedCustomer(suite.server, suite.mailbox, OWNER);
    dashboard = await suite.page();
    errors.push(trackPageErrors(dashboard));
    await customerSignIn(dashboard, suite.server, OWNER);
    await dashboard.getByLabel('Nom du Ring').fill(RING);
    await dashboard.getByRole('button', { name: 'Créer le Ring' }).click();
    await dashboard.getByRole('heading', { name: 'Inviter un utilisateur' }).waitFor();
    await dashboard.getByLabel('Nom d’utilisateur').fill('bob');
    await dashboard.getByRole('button', { name: 'Inviter' }).click();
    const bobRow = dashboard.getByRole('row').filter({ hasText: 'bob' });
    await bobRow.waitFor();
    bobCode = (await bobRow.locator('.font-mono').textContent())!.trim();
  });

  it('[E2EE] the owner chooses a passphrase and creates the Ring’s first key', async () => {
    // The owner enters its room from a second tab, with its customer email and password.
    ownerRoom = await dashboard.context().newPage();
    errors.push(trackPageErrors(ownerRoom));
    await ownerRoom.goto(`${suite.server.url}/ring`);
    await ownerRoom.getByLabel('Email').fill(OWNER);
    await ownerRoom.getByLabel('Mot de passe', { exact: true }).fill(CUSTOMER_PASSWORD);
    await ownerRoom.getByRole('button', { name: 'Se connecter' }).click();
    await roomTitle(ownerRoom).waitFor();

    // Nothing claims encryption before the passphrase.
    await waitForState(ownerRoom, 'locked');
    expect(await state(ownerRoom).textContent()).toContain('Passphrase manquante');
    expect(await ownerRoom.getByText('Chiffrement de bout en bout actif').count()).toBe(0);

    const dialog = ownerRoom.getByRole('dialog', { name: 'Phrase secrète' });
    await dialog.getByLabel('Phrase secrète', { exact: true }).fill('trop court');
    await dialog.getByLabel('Confirmer la phrase secrète').fill('trop court');
    await dialog.getByRole('button', { name: 'Créer ma phrase secrète' }).click();
    await dialog.getByText('La phrase secrète doit contenir au moins 12 caractères').waitFor();
    await dialog.getByLabel('Phrase secrète', { exact: true }).fill(OWNER_PHRASE);
    await dialog.getByLabel('Confirmer la phrase secrète').fill('autre chose encore');
    await dialog.getByRole('button', { name: 'Créer ma phrase secrète' }).click();
    await dialog.getByText('Les phrases secrètes ne correspondent pas').waitFor();
    await screenshot(ownerRoom, 'e2ee-passphrase-setup');

    await choosePassphrase(ownerRoom, OWNER_PHRASE);
    await waitForState(ownerRoom, 'active');
    expect(await state(ownerRoom).textContent()).toContain('Chiffrement de bout en bout actif');
    // The badge shows the Ring's real level (standard by default).
    await ownerRoom.getByText('AES-256', { exact: true }).waitFor();

    // « À propos de la sécurité » explains who decides who reads (its text loads with the dialog).
    await ownerRoom.getByRole('button', { name: 'À propos de la sécurité' }).click();
    const about = ownerRoom.getByRole('dialog', { name: 'À propos de la sécurité' });
    await about.getByText('Les membres décident qui lit').waitFor();
    await about.getByText('Comparé à Signal, Matrix et MLS').waitFor();
    await screenshot(ownerRoom, 'e2ee-security-dialog');
    await ownerRoom.keyboard.press('Escape');
    await about.waitFor({ state: 'detached' });
  });

  it('[E2EE] an invited member waits for admission; once the owner admits it, it gets the key without any message', async () => {
    bob = await suite.page();
    errors.push(trackPageErrors(bob));
    await recordStates(bob);
    await bob.goto(`${suite.server.url}/accept-invite?invite=${bobCode}`);
    await waitForInvitePrefill(bob);
    await bob.getByLabel('Nom d’utilisateur').fill('bob');
    await bob.getByLabel('Mot de passe', { exact: true }).fill(BOB_PASSWORD);
    await bob.getByLabel('Confirmer le mot de passe').fill(BOB_PASSWORD);
    await bob.getByRole('button', { name: 'Rejoindre le Ring' }).click();
    await roomTitle(bob).waitFor();

    await choosePassphrase(bob, BOB_PHRASE);
    // Bob waits: his room says so and explains, and he reads nothing until a member admits him.
    await waitForState(bob, 'waiting_keys');
    await state(bob).getByText('En attente d’admission').waitFor();
    await bob
      .getByRole('status')
      .filter({ hasText: 'Le propriétaire ou un admin du Ring doit vous admettre' })
      .waitFor();
    await ownerRoom.getByRole('button', { name: 'Admettre bob' }).waitFor({ timeout: 15_000 });
    await screenshot(bob, 'e2ee-waiting-admission');
    await screenshot(ownerRoom, 'e2ee-admission-request');
    await bob.waitForTimeout(1500);
    expect(await state(bob).getAttribute('data-e2ee-state')).toBe('waiting_keys');

    await ownerRoom.getByRole('button', { name: 'Admettre bob' }).click();
    const admission = ownerRoom.getByRole('dialog', { name: 'Admettre bob' });
    await admission.waitFor();
    // The number to compare is the one bob's own browser shows.
    expect((await admission.getByTestId('admission-safety-number').textContent())!.trim()).toBe(
      await safetyNumberOf(bob, 'bob'),
    );
    await screenshot(ownerRoom, 'e2ee-admission-dialog');
    await admission.getByRole('button', { name: 'Admettre', exact: true }).click();
    await admission.waitFor({ state: 'detached' });
    await waitForState(bob, 'active');
    const seen = await statesOf(bob);
    expect(seen.indexOf('waiting_keys')).toBeGreaterThan(seen.indexOf('locked'));
    expect(seen.indexOf('active')).toBeGreaterThan(seen.indexOf('waiting_keys'));

    // Both browsers compute the same safety number for bob from his published keys.
    const bobSeenByBob = await safetyNumberOf(bob, 'bob');
    expect(bobSeenByBob).toMatch(/^\d{5}( \d{5}){5}$/);
    expect(await safetyNumberOf(ownerRoom, 'bob')).toBe(bobSeenByBob);
    expect(await safetyNumberOf(bob, 'Claire Fontaine')).toBe(
      await safetyNumberOf(ownerRoom, 'Claire Fontaine'),
    );
    await screenshot(bob, 'e2ee-room-active');

    // The owner marks bob « Vérifié » after comparing the number bob's own page shows.
    await markVerified(ownerRoom, bob, 'bob');
    await screenshot(ownerRoom, 'e2ee-member-verified');
  });

  it('[E2EE] a popup opened by the room gets its keys without a second passphrase', async () => {
    const [popup] = await Promise.all([
      ownerRoom.waitForEvent('popup'),
      ownerRoom.evaluate(() => {
        window.open('/ring?convId=room:general', 'securering-dm', 'width=520,height=760');
      }),
    ]);
    await waitForState(popup, 'active');
    expect(await popup.getByRole('dialog', { name: 'Phrase secrète' }).count()).toBe(0);
    await popup.close();
  });

  it('[E2EE] a member who forgot its passphrase resets its keys: they get the key only once an admin confirms them', async () => {
    const before = await safetyNumberOf(ownerRoom, 'bob');
    // Forgotten passphrase: the reset starts from the locked room (nothing can sign for the old key).
    await bob.reload();
    await roomTitle(bob).waitFor();
    const unlock = bob.getByRole('dialog', { name: 'Phrase secrète' });
    await unlock.getByRole('button', { name: 'J’ai oublié ma phrase secrète' }).click();
    await bob
      .getByRole('dialog', { name: 'J’ai oublié ma phrase secrète' })
      .getByRole('button', { name: 'Je n’ai pas de clé de secours' })
      .click();
    const reset = bob.getByRole('dialog', { name: 'Réinitialiser mes clés' });
    await reset.getByText(/vous repartage automatiquement l’historique depuis votre admission/).waitFor();
    await reset.getByLabel('Phrase secrète', { exact: true }).fill(BOB_NEW_PHRASE);
    await reset.getByLabel('Confirmer la phrase secrète').fill(BOB_NEW_PHRASE);
    await reset.getByRole('button', { name: 'Réinitialiser mes clés' }).click();
    await saveRecoveryKey(bob);
    await waitForState(bob, 'waiting_keys');

    await ownerRoom.getByText('Le numéro de sécurité de bob a changé').waitFor({ timeout: 15_000 });
    expect(await safetyNumberOf(ownerRoom, 'bob')).not.toBe(before);
    await screenshot(ownerRoom, 'e2ee-safety-number-changed');
    // Unconfirmed: the owner's browser shares nothing with the new key.
    await bob.waitForTimeout(3000);
    expect(await state(bob).getAttribute('data-e2ee-state')).toBe('waiting_keys');
    await screenshot(bob, 'e2ee-waiting-keys');

    await bob.getByText('Nouvelles clés à confirmer').waitFor();
    await ownerRoom.getByRole('button', { name: 'Confirmer la nouvelle clé de bob' }).click();
    await waitForState(bob, 'active');
    expect(await ownerRoom.getByText('Le numéro de sécurité de bob a changé').count()).toBe(0);

    // The owner had verified bob: his new key is in the log now, so the owner sends nothing (the
    // room included) until it compares the new number.
    const note = ownerRoom.getByTestId('chat-footer-note').first();
    await note.getByText(/Envoi bloqué.*bob, que vous aviez vérifié, a changé/).waitFor({ timeout: 15_000 });
    expect(await ownerRoom.getByRole('textbox', { name: 'Message' }).first().isDisabled()).toBe(true);
    expect(await ownerRoom.getByTestId('verified-badge').count()).toBe(0);
    await screenshot(ownerRoom, 'e2ee-verified-key-changed');
    await markVerified(ownerRoom, bob, 'bob');
    const box = ownerRoom.getByRole('textbox', { name: 'Message' }).first();
    await box.and(ownerRoom.locator(':enabled')).waitFor();
    await box.fill('Nouvelle clé comparée');
    await ownerRoom.getByRole('button', { name: 'Envoyer' }).first().click();
    await bob.getByText('Nouvelle clé comparée').waitFor({ timeout: 15_000 });
  });

  it('[E2EE] the owner deactivates the member: its open room loses access at once; it can be reactivated', async () => {
    await dashboard.bringToFront();
    // The dashboard was opened before bob joined: read it again.
    await dashboard.reload();
    await dashboard.getByRole('tab', { name: 'Mes Utilisateurs' }).click();
    const bobRow = dashboard.getByRole('row').filter({ hasText: 'bob' });
    await bobRow.getByText('Actif').waitFor();
    // An accepted member cannot be deleted, only deactivated.
    expect(await bobRow.getByRole('button', { name: 'Supprimer bob' }).count()).toBe(0);
    await bobRow.getByRole('button', { name: 'Désactiver' }).click();
    const confirm = dashboard.getByRole('alertdialog', { name: 'Désactiver l’utilisateur ?' });
    await screenshot(dashboard, 'client-users-deactivate');
    const started = Date.now();
    await confirm.getByRole('button', { name: 'Désactiver' }).click();

    await bob.getByRole('heading', { name: 'Connexion au Ring' }).waitFor({ timeout: 5000 });
    expect(Date.now() - started).toBeLessThan(5000);
    await dashboard.getByText('Utilisateur désactivé').first().waitFor();
    await bobRow.getByText('Inactif').waitFor();

    // The owner's room shows that the log still counts bob; the owner records his departure.
    const departure = ownerRoom.getByRole('button', { name: 'Retirer bob du journal' });
    await departure.waitFor({ timeout: 15_000 });
    await screenshot(ownerRoom, 'e2ee-departed-member');
    await departure.click();
    await departure.waitFor({ state: 'detached', timeout: 15_000 });

    // Login is refused while inactive, saying why once the password matched (issue 28).
    await bob.getByRole('tab', { name: 'Code d’invitation' }).click();
    await bob.getByLabel('Code d’invitation').fill(bobCode);
    await bob.getByLabel('Mot de passe', { exact: true }).fill(BOB_PASSWORD);
    await bob.getByRole('button', { name: 'Se connecter' }).click();
    await bob.getByText('Votre accès à ce Ring a été suspendu par son administrateur').first().waitFor();

    await bobRow.getByRole('button', { name: 'Réactiver' }).click();
    await dashboard.getByText('Utilisateur réactivé').first().waitFor();
    await bobRow.getByRole('button', { name: 'Désactiver' }).waitFor();

    // His account is back, but the log deactivated him: he reads nothing new until the owner
    // signs his reactivation in the room.
    await bob.getByRole('button', { name: 'Se connecter' }).click();
    await roomTitle(bob).waitFor();
    await unlockWith(bob, BOB_NEW_PHRASE);
    await waitForState(bob, 'waiting_keys');
    await bob.getByText('Accès retiré').waitFor();
    const reactivate = ownerRoom.getByRole('button', { name: 'Réactiver bob' });
    await reactivate.waitFor({ timeout: 15_000 });
    await screenshot(ownerRoom, 'e2ee-reactivation-request');
    await reactivate.click();
    await waitForState(bob, 'active', 20_000);
  });

  it('[E2EE] the owner chooses to share the history with new members', async () => {
    await dashboard.getByRole('tab', { name: 'Paramètres Ring' }).click();
    const toggle = dashboard.getByRole('switch', { name: 'Partager l’historique avec les nouveaux membres' });
    expect(await toggle.getAttribute('data-state')).toBe('unchecked');
    await toggle.click();
    await dashboard.getByRole('button', { name: 'Enregistrer les paramètres' }).click();
    await dashboard.getByText('Paramètres du Ring enregistrés').first().waitFor();
    await screenshot(dashboard, 'client-settings-share-history');
    await dashboard.reload();
    await dashboard.getByRole('tab', { name: 'Paramètres Ring' }).click();
    expect(
      await dashboard
        .getByRole('switch', { name: 'Partager l’historique avec les nouveaux membres' })
        .getAttribute('data-state'),
    ).toBe('checked');
  });

  it('[E2EE] after a reload the passphrase is asked again: a wrong one fails, the right one unlocks', async () => {
    await ownerRoom.bringToFront();
    await ownerRoom.reload();
    await roomTitle(ownerRoom).waitFor();
    await waitForState(ownerRoom, 'locked');
    await unlockWith(ownerRoom, 'ce n’est pas la bonne phrase');
    const dialog = ownerRoom.getByRole('dialog', { name: 'Phrase secrète' });
    await dialog.getByText('Déverrouillage E2EE échoué').waitFor();
    await waitForState(ownerRoom, 'failed');
    await screenshot(ownerRoom, 'e2ee-unlock-failed');

    await dialog.getByLabel('Phrase secrète', { exact: true }).fill(OWNER_PHRASE);
    await dialog.getByRole('button', { name: 'Déverrouiller' }).click();
    await waitForState(ownerRoom, 'active');
    expect(await ownerRoom.getByRole('dialog', { name: 'Phrase secrète' }).count()).toBe(0);
  });

  it('[E2EE] the last holder of the Ring’s key resets its keys while unlocked: its browser starts a recovery epoch', async () => {
    // Bob leaves (customer space): the owner is the only member holding the Ring's key.
    await dashboard.bringToFront();
    await dashboard.getByRole('tab', { name: 'Mes Utilisateurs' }).click();
    const bobRow = dashboard.getByRole('row').filter({ hasText: 'bob' });
    await bobRow.getByRole('button', { name: 'Désactiver' }).click();
    await dashboard
      .getByRole('alertdialog', { name: 'Désactiver l’utilisateur ?' })
      .getByRole('button', { name: 'Désactiver' })
      .click();
    await bobRow.getByText('Inactif').waitFor();

    await ownerRoom.bringToFront();
    await memberAction(ownerRoom, 'Claire Fontaine', 'Réinitialiser mes clés');
    const reset = ownerRoom.getByRole('dialog', { name: 'Réinitialiser mes clés' });
    await reset.getByLabel('Phrase secrète', { exact: true }).fill(OWNER_NEW_PHRASE);
    await reset.getByLabel('Confirmer la phrase secrète').fill(OWNER_NEW_PHRASE);
    await reset.getByRole('button', { name: 'Réinitialiser mes clés' }).click();
    await reset.waitFor({ state: 'detached' });
    await saveRecoveryKey(ownerRoom);
    // Nobody else holds the key: no one could share it, so the owner's browser starts a new epoch.
    await waitForState(ownerRoom, 'active', 20_000);
    const box = ownerRoom.getByRole('textbox', { name: 'Message' }).first();
    await box.fill('Après la nouvelle clé');
    await ownerRoom.getByRole('button', { name: 'Envoyer' }).first().click();
    await ownerRoom.getByText('Après la nouvelle clé').waitFor();
    await screenshot(ownerRoom, 'e2ee-recovery-epoch');

    expect(errors.flat().filter((e) => !/Failed to load resource|401|403|409/.test(e))).toEqual([]);
  });
});
