import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot, trackPageErrors } from '../support/browser';
import { customerSignIn, subscribedCustomer } from '../support/customer';
import { waitForInvitePrefill } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'paul.phrases@example.com';
const RING = 'Phrases Solides';
/** Bob's Ring account password: long and strong, so only the account check refuses it. */
const BOB_PASSWORD = 'le phare veille sur la baie';
const BOB_PHRASE = 'bob garde ses secrets au chaud';
const BOB_NEW_PHRASE = 'une toute nouvelle phrase de bob';

const roomTitle = (page: Page) => page.locator('h1', { hasText: RING });
const waitForKeys = (page: Page) =>
  page
    .locator('[data-e2ee-state="active"], [data-e2ee-state="waiting_keys"]')
    .first()
    .waitFor({ timeout: 30_000 });

describe('[E2EE] passphrases: strength, account password, recovery key (issue 27)', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let bob: Page;
  let bobCode = '';
  let recoveryKey = '';
  const errors: string[][] = [];

  beforeAll(async () => {
    await subscribedCustomer(suite.server, suite.mailbox, OWNER);
    const dashboard = await suite.page();
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

  it('[E2EE] a guessable passphrase and the account password are refused; a strong one gets a recovery key shown once', async () => {
    bob = await suite.page();
    errors.push(trackPageErrors(bob));
    await bob.goto(`${suite.server.url}/accept-invite?invite=${bobCode}`);
    await waitForInvitePrefill(bob);
    await bob.getByLabel('Nom d’utilisateur').fill('bob');
    await bob.getByLabel('Mot de passe', { exact: true }).fill(BOB_PASSWORD);
    await bob.getByLabel('Confirmer le mot de passe').fill(BOB_PASSWORD);
    await bob.getByRole('button', { name: 'Rejoindre le Ring' }).click();
    await roomTitle(bob).waitFor();

    const dialog = bob.getByRole('dialog', { name: 'Phrase secrète' });
    const phrase = dialog.getByLabel('Phrase secrète', { exact: true });
    const confirm = dialog.getByLabel('Confirmer la phrase secrète');
    // Twelve characters, but guessable: the meter says so and the dialog refuses it.
    await phrase.fill('aaaaaaaaaaaa');
    await confirm.fill('aaaaaaaaaaaa');
    await dialog.getByText('Robustesse\u202f: Très faible (très forte exigée)').waitFor({ timeout: 30_000 });
    await dialog
      .getByText(/Les caractères répétés/)
      .first()
      .waitFor();
    await dialog.getByRole('button', { name: 'Créer ma phrase secrète' }).click();
    await dialog.getByText(/^Phrase secrète trop facile à deviner/).waitFor();
    await screenshot(bob, 'passphrase-too-weak');
    expect(await bob.locator('[data-e2ee-state="locked"]').count()).toBe(1);

    // The Ring account password the server saw at sign-in: strong, but refused.
    await phrase.fill(BOB_PASSWORD);
    await confirm.fill(BOB_PASSWORD);
    await dialog.getByText('Robustesse\u202f: Très forte').waitFor();
    await dialog.getByRole('button', { name: 'Créer ma phrase secrète' }).click();
    await dialog.getByText(/différente du mot de passe de votre compte/).waitFor();
    expect(await bob.locator('[data-e2ee-state="locked"]').count()).toBe(1);

    await phrase.fill(BOB_PHRASE);
    await confirm.fill(BOB_PHRASE);
    await dialog.getByRole('button', { name: 'Créer ma phrase secrète' }).click();

    const shown = bob.getByRole('dialog', { name: 'Clé de secours' });
    await shown.waitFor({ timeout: 30_000 });
    recoveryKey = (await shown.getByTestId('recovery-key').textContent())!.trim();
    expect(recoveryKey).toMatch(/^([0-9A-Z]{4}-){7}[0-9A-Z]{4}$/);
    for (const name of ['Imprimer', 'Copier', 'Télécharger'])
      await shown.getByRole('button', { name }).waitFor();
    const download = bob.waitForEvent('download');
    await shown.getByRole('button', { name: 'Télécharger' }).click();
    expect((await download).suggestedFilename()).toBe('cle-de-secours-securering.txt');
    const done = shown.getByRole('button', { name: 'Terminer' });
    expect(await done.isDisabled()).toBe(true);
    await screenshot(bob, 'passphrase-recovery-key');
    await bob.keyboard.press('Escape');
    expect(await shown.isVisible()).toBe(true);
    await shown.getByLabel('J’ai imprimé ou enregistré ma clé de secours en lieu sûr.').check();
    await done.click();
    await shown.waitFor({ state: 'detached' });
    await waitForKeys(bob);
    // The key is nowhere in the page any more.
    expect(await bob.content()).not.toContain(recoveryKey);
  });

  it('[E2EE] a forgotten passphrase: the recovery key reopens the same keys under a new passphrase', async () => {
    await bob.reload();
    await roomTitle(bob).waitFor();
    const unlock = bob.getByRole('dialog', { name: 'Phrase secrète' });
    await unlock.getByRole('button', { name: 'J’ai oublié ma phrase secrète' }).click();
    const recover = bob.getByRole('dialog', { name: 'J’ai oublié ma phrase secrète' });
    await recover.getByText(/demandez au propriétaire ou à un administrateur du Ring/).waitFor();
    await recover.getByLabel('Clé de secours').fill('0000-0000-0000-0000-0000-0000-0000-0000');
    await recover.getByLabel('Nouvelle phrase secrète').fill(BOB_NEW_PHRASE);
    await recover.getByLabel('Confirmer la phrase secrète').fill(BOB_NEW_PHRASE);
    await recover.getByRole('button', { name: 'Rouvrir mes clés' }).click();
    await recover.getByText('Clé de secours incorrecte.').waitFor({ timeout: 30_000 });

    // Typed by hand: lower case with spaces.
    await recover.getByLabel('Clé de secours').fill(recoveryKey.toLowerCase().replace(/-/g, ' '));
    await recover.getByLabel('Nouvelle phrase secrète').fill(BOB_NEW_PHRASE);
    await recover.getByLabel('Confirmer la phrase secrète').fill(BOB_NEW_PHRASE);
    await screenshot(bob, 'passphrase-recover');
    await recover.getByRole('button', { name: 'Rouvrir mes clés' }).click();
    await recover.waitFor({ state: 'detached', timeout: 30_000 });
    await waitForKeys(bob);
    // The old passphrase no longer opens; the new one does.
    await bob.reload();
    await roomTitle(bob).waitFor();
    const again = bob.getByRole('dialog', { name: 'Phrase secrète' });
    await again.getByLabel('Phrase secrète', { exact: true }).fill(BOB_PHRASE);
    await again.getByRole('button', { name: 'Déverrouiller' }).click();
    await again.getByText('Déverrouillage E2EE échoué').waitFor({ timeout: 30_000 });
    await again.getByLabel('Phrase secrète', { exact: true }).fill(BOB_NEW_PHRASE);
    await again.getByRole('button', { name: 'Déverrouiller' }).click();
    await waitForKeys(bob);
    expect(errors.flat()).toEqual([]);
  });
});
