import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot, trackPageErrors } from '../support/browser';
import { useSuite } from '../support/suite';
import { customerSignIn, subscribedCustomer } from '../support/customer';
import { linkIn } from '../support/mailbox';
import { waitForInvitePrefill } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';

const OWNER = 'claire.fontaine@example.com';

/**
 * Lands in the room: it first asks for the member's passphrase (end-to-end encryption, issue 10,
 * tested in e2ee.e2e.ts); these tests do not use encryption and close that dialog.
 */
async function enterRoom(page: Page, ringName: string) {
  await page.getByRole('dialog', { name: 'Phrase secrète' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('heading', { level: 1, name: ringName }).waitFor();
}

describe('[RINGS] customer space, invitations, Ring login and the room', () => {
  // The owner subscribes through the test provider (subscribedCustomer).
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let owner: Page;
  let ownerErrors: string[];
  let bobCode = '';
  const visitor = () => suite.page();

  async function acceptInvite(page: Page, url: string, username: string, password: string, email?: string) {
    await page.goto(url);
    await page.getByRole('heading', { name: 'Rejoindre un Ring' }).waitFor();
    await waitForInvitePrefill(page);
    await page.getByLabel('Nom d’utilisateur').fill(username);
    if (email) await page.getByLabel('Email (facultatif)').fill(email);
    await page.getByLabel('Mot de passe', { exact: true }).fill(password);
    await page.getByLabel('Confirmer le mot de passe').fill(password);
    await page.getByRole('button', { name: 'Rejoindre le Ring' }).click();
    await page.waitForURL(`${suite.server.url}/ring`).catch(async (error: Error) => {
      // Say what the page showed instead of the room (an error alert, the fields as they were).
      const alerts = await page
        .getByRole('alert')
        .allInnerTexts()
        .catch(() => []);
      const fields = await page
        .locator('form input')
        .evaluateAll((inputs) => inputs.map((i) => `${i.id}=${(i as HTMLInputElement).value.length}`))
        .catch(() => []);
      throw new Error(
        `${error.message}\nURL: ${page.url()}\nAlerts: ${alerts.join(' | ')}\nField lengths: ${fields.join(', ')}`,
      );
    });
  }

  beforeAll(async () => {
    await subscribedCustomer(suite.server, suite.mailbox, OWNER);
    owner = await visitor();
    ownerErrors = trackPageErrors(owner);
  });

  it('[RINGS] the subscribed customer sees its dashboard, creates a Ring and invites two users', async () => {
    await customerSignIn(owner, suite.server, OWNER);
    await owner.getByRole('heading', { name: 'Bienvenue, Claire Fontaine' }).waitFor();
    const summary = owner.getByRole('region', { name: 'Résumé' });
    await summary.getByText('Enterprise').first().waitFor();
    expect(await summary.getByText('0 / ∞').isVisible()).toBe(true);
    expect(await owner.getByText('Email vérifié').isVisible()).toBe(true);
    expect(await owner.getByText('Support prioritaire').isVisible()).toBe(true);

    await owner.getByRole('button', { name: 'Créer le Ring' }).click();
    await owner.getByText('Nom du ring requis').waitFor();
    await owner.getByLabel('Nom du Ring').fill('Équipe Alpha');
    await owner.getByRole('button', { name: 'Créer le Ring' }).click();
    await owner.getByRole('heading', { name: 'Inviter un utilisateur' }).waitFor();

    await owner.getByRole('button', { name: 'Inviter' }).click();
    await owner.getByText('Veuillez entrer un nom d’utilisateur').waitFor();
    await owner.getByLabel('Nom d’utilisateur').fill('alice');
    await owner.getByLabel('Email (facultatif)').fill('alice@example.com');
    await owner.getByLabel('Message (facultatif)').fill('Bienvenue dans l’équipe !');
    await owner.getByRole('button', { name: 'Inviter' }).click();
    await owner.getByText('Lien d’invitation :').waitFor();
    await owner.getByLabel('Nom d’utilisateur').fill('bob');
    await owner.getByRole('button', { name: 'Inviter' }).click();
    const bobRow = owner.getByRole('row').filter({ hasText: 'bob' });
    await bobRow.waitFor();
    bobCode = (await bobRow.locator('.font-mono').textContent())!.trim();
    expect(bobCode).toMatch(/^[A-Z2-9]{16}$/);
    expect(await owner.getByRole('row').filter({ hasText: 'alice' }).getByText('Invité').isVisible()).toBe(
      true,
    );
    await screenshot(owner, 'client-users-tab');
  });

  it('[RINGS] an expired invitation shows « Invitation expirée », its code is refused, « Renvoyer » renews it', async () => {
    // Seven days pass for bob's invitation (INVITATION_TTL_DAYS): its expiry is moved to the past.
    const database = new Database(path.join(suite.server.dataDir, 'securering.sqlite'));
    try {
      database
        .prepare('update ring_members set invite_expires_at = ? where invite_code = ?')
        .run(new Date(Date.now() - 60_000).toISOString(), bobCode);
    } finally {
      database.close();
    }
    await owner.reload();
    const bobRow = owner.getByRole('row').filter({ hasText: 'bob' });
    await bobRow.getByText('Invitation expirée').waitFor();
    expect(
      await owner.getByRole('row').filter({ hasText: 'alice' }).getByText('Invitation expirée').count(),
    ).toBe(0);
    await screenshot(owner, 'client-users-invitation-expired');

    // The code no longer opens the Ring, and the page says why.
    const late = await visitor();
    await late.goto(`${suite.server.url}/accept-invite?invite=${bobCode}`);
    await late.getByLabel('Nom d’utilisateur').fill('bob');
    await late.getByLabel('Mot de passe', { exact: true }).fill('Bob-Pass-123');
    await late.getByLabel('Confirmer le mot de passe').fill('Bob-Pass-123');
    await late.getByRole('button', { name: 'Rejoindre le Ring' }).click();
    await late
      .getByText('Invitation expirée\u202f: demandez au propriétaire du Ring de vous la renvoyer.')
      .first()
      .waitFor();
    await screenshot(late, 'ring-accept-invite-expired');
    await late.close();

    await bobRow.getByRole('button', { name: 'Renvoyer l’invitation de bob' }).click();
    await owner.getByText('Invitation renouvelée').first().waitFor();
    await expect.poll(() => bobRow.getByText('Invitation expirée').count()).toBe(0);
  });

  it('[RINGS] the customer tunes the Ring settings in the four sub-tabs', async () => {
    await owner.getByRole('tab', { name: 'Paramètres Ring' }).click();
    await owner.getByRole('radio', { name: /Militaire/ }).click();
    await owner.getByLabel('Messages éphémères').click();
    await owner.getByLabel('Délai d’autodestruction (secondes)').fill('5');
    await owner.getByLabel('Délai d’autodestruction (secondes)').blur();
    expect(await owner.getByLabel('Délai d’autodestruction (secondes)').inputValue()).toBe('10');
    await screenshot(owner, 'client-settings-security');

    await owner.getByRole('tab', { name: 'Protection anti-capture' }).click();
    await owner.getByRole('radio', { name: 'Désactivée' }).click();
    expect(
      await owner.getByRole('switch', { name: 'Détection des outils de développement' }).isDisabled(),
    ).toBe(true);
    await owner.getByRole('radio', { name: 'Maximale' }).click();
    expect(
      await owner
        .getByRole('switch', { name: 'Détection d’enregistrement d’écran' })
        .getAttribute('data-state'),
    ).toBe('checked');
    await owner.getByRole('switch', { name: 'Fonctionnalités expérimentales' }).click();
    expect(await owner.getByRole('switch', { name: 'Détection d’enregistrement d’écran' }).isDisabled()).toBe(
      true,
    );
    expect(
      await owner
        .getByRole('switch', { name: 'Détection d’enregistrement d’écran' })
        .getAttribute('data-state'),
    ).toBe('unchecked');
    await screenshot(owner, 'client-settings-protection');

    await owner.getByRole('tab', { name: 'Notifications d’appel' }).click();
    await owner.getByLabel('Sonnerie', { exact: true }).waitFor();
    await screenshot(owner, 'client-settings-notifications');
    await owner.getByRole('tab', { name: 'Options' }).click();
    await owner.getByLabel('Taille maximale des fichiers (Mo)').fill('25');
    await screenshot(owner, 'client-settings-options');

    await owner.getByRole('button', { name: 'Enregistrer les paramètres' }).click();
    await owner.getByText('Paramètres du Ring enregistrés').first().waitFor();
    const summary = owner.getByRole('region', { name: 'Résumé' });
    await summary.getByText('Militaire (double AES)').waitFor();
  });

  it('[RINGS] each invitee accepts — alice from the mailed link, bob with his code — and lands in the room', async () => {
    const mail = await suite.mailbox.waitFor((m) => m.to.includes('alice@example.com'));
    expect(mail.subject).toBe('Invitation à rejoindre le Ring Équipe Alpha');
    expect(mail.text).toContain('Bienvenue dans l’équipe !');
    const alice = await visitor();
    await acceptInvite(alice, linkIn(mail.text, '/ring-access?invite='), 'alice', 'Alice-Pass-1');
    await enterRoom(alice, 'Équipe Alpha');
    await alice.getByText('Double AES').first().waitFor();
    await screenshot(alice, 'ring-accept-invite-done');

    const bob = await visitor();
    // The invitation's prefill arrives while bob is already in the (empty) username field: it
    // leaves that field alone, so what he types is not mixed with the prefilled name.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await bob.route('**/api/rings/invite-info.php*', async (route) => {
      await held;
      await route.continue();
    });
    await bob.goto(`${suite.server.url}/accept-invite?invite=${bobCode}`);
    expect(await bob.getByLabel('Code d’invitation').inputValue()).toBe(bobCode);
    await bob.getByLabel('Nom d’utilisateur').focus();
    release();
    await bob
      .getByText('Vous avez été invité à rejoindre «\u202fÉquipe Alpha\u202f»', { exact: false })
      .waitFor();
    expect(await bob.getByLabel('Nom d’utilisateur').inputValue()).toBe('');
    await bob.unroute('**/api/rings/invite-info.php*');
    await bob.getByLabel('Nom d’utilisateur').fill('bob');
    await bob.getByLabel('Mot de passe', { exact: true }).fill('court');
    await bob.getByLabel('Confirmer le mot de passe').fill('court');
    await bob.getByRole('button', { name: 'Rejoindre le Ring' }).click();
    await bob.getByText('8 caractères minimum.').first().waitFor();
    await screenshot(bob, 'ring-accept-invite');
    await acceptInvite(bob, `${suite.server.url}/accept-invite?invite=${bobCode}`, 'bob', 'Bob-Pass-123');
    await enterRoom(bob, 'Équipe Alpha');
    const users = bob.getByRole('list', { name: 'Membres du Ring' });
    await users.getByText('Propriétaire').waitFor();
    await bob.getByText(/en ligne \/ 3 au total/).waitFor();
    await screenshot(bob, 'ring-room');

    // A reload keeps the Ring session (7-day cookies).
    await bob.reload();
    await enterRoom(bob, 'Équipe Alpha');
    await bob.getByText('Temps réel :').locator('..').getByText('connecté').waitFor();

    // A settings change reaches the open room without reload.
    await owner.getByRole('tab', { name: 'Protection anti-capture' }).click();
    await owner.getByRole('radio', { name: 'Basique' }).click();
    await owner.getByRole('button', { name: 'Enregistrer les paramètres' }).click();
    await bob
      .getByText('Protection anti-capture :')
      .locator('..')
      .getByText('basique')
      .waitFor({ timeout: 10_000 });
    await bob.getByText('Paramètres du Ring mis à jour').first().waitFor();

    // Bob logs out and back in with his invite code.
    await bob.getByRole('button', { name: 'Déconnexion' }).click();
    await bob.getByRole('heading', { name: 'Connexion au Ring' }).waitFor();
    await bob.getByRole('tab', { name: 'Code d’invitation' }).click();
    await bob.getByLabel('Code d’invitation').fill(bobCode);
    await bob.getByLabel('Mot de passe', { exact: true }).fill('Mauvais-123');
    await bob.getByRole('button', { name: 'Se connecter' }).click();
    await bob.getByText('Identifiants incorrects').first().waitFor();
    await bob.getByLabel('Mot de passe', { exact: true }).fill('Bob-Pass-123');
    await bob.getByRole('button', { name: 'Se connecter' }).click();
    await enterRoom(bob, 'Équipe Alpha');
  });

  it('[RINGS] a member in two Rings logs in by email and picks the Ring', async () => {
    await owner.getByRole('tab', { name: 'Mes Utilisateurs' }).click();
    await owner.getByLabel('Nom du Ring').fill('Équipe Bêta');
    await owner.getByRole('button', { name: 'Créer le Ring' }).click();
    // The Ring selector (top of /client, issue 15) switches to the Ring just created.
    await expect
      .poll(() => owner.getByLabel('Ring', { exact: true }).locator('option:checked').textContent())
      .toBe('Équipe Bêta');
    await owner.getByLabel('Nom d’utilisateur').fill('alice');
    await owner.getByLabel('Email (facultatif)').fill('alice@example.com');
    await owner.getByRole('button', { name: 'Inviter' }).click();
    const mail = await suite.mailbox.waitFor(
      (m) => m.to.includes('alice@example.com') && m.subject.includes('Bêta'),
    );
    const alice = await visitor();
    await acceptInvite(
      alice,
      linkIn(mail.text, '/ring-access?invite='),
      'alice',
      'Alice-Pass-1',
      'alice@example.com',
    );
    await enterRoom(alice, 'Équipe Bêta');
    await alice.getByRole('button', { name: 'Déconnexion' }).click();

    await alice.goto(`${suite.server.url}/ring-access`);
    await alice.getByLabel('Email').fill('alice@example.com');
    await alice.getByLabel('Mot de passe', { exact: true }).fill('Alice-Pass-1');
    await alice.getByRole('button', { name: 'Se connecter' }).click();
    const choice = alice.getByLabel('Sélectionnez votre Ring');
    await choice.waitFor();
    expect(await choice.locator('option').allTextContents()).toEqual([
      'Choisissez…',
      'Équipe Alpha (membre)',
      'Équipe Bêta (membre)',
    ]);
    await screenshot(alice, 'ring-login-selection');
    await choice.selectOption({ label: 'Équipe Bêta (membre)' });
    await alice.getByRole('button', { name: 'Se connecter' }).click();
    await enterRoom(alice, 'Équipe Bêta');
    await alice.getByText('Connexion réussie').first().waitFor();
  });

  it('[RINGS] the statistics tab shows real figures and exports CSV; the subscription tab says how it is paid and why it cannot be cancelled', async () => {
    await owner.getByRole('tab', { name: 'Statistiques' }).click();
    await owner.getByRole('img', { name: /Messages par jour/ }).waitFor();
    await screenshot(owner, 'client-statistics');
    const [download] = await Promise.all([
      owner.waitForEvent('download'),
      owner.getByRole('button', { name: 'Exporter les messages (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^securering-[0-9a-f]{8}-messages-30j\.csv$/);

    await owner.getByRole('tab', { name: 'Abonnement' }).click();
    // Paid with the one-off test provider: no payment portal (card only), nothing renews, so there
    // is nothing to cancel, and the page says so.
    await owner.getByText('Paiement de test (aucun débit réel)').waitFor();
    expect(await owner.getByRole('button', { name: 'Ouvrir le portail de paiement' }).count()).toBe(0);
    expect(await owner.getByText(/sans prélèvement automatique/).isVisible()).toBe(true);
    expect(await owner.getByRole('button', { name: 'Annuler l’abonnement' }).isDisabled()).toBe(true);
    expect(await owner.getByText(/^Rien à annuler/).isVisible()).toBe(true);
    await screenshot(owner, 'client-subscription');
    expect(ownerErrors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});
