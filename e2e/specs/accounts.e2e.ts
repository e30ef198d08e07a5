import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot, trackPageErrors } from '../support/browser';
import { useSuite } from '../support/suite';
import { linkIn } from '../support/mailbox';

const EMAIL = 'lea.martin@example.com';
const PASSWORD = 'Secret123';

describe('[ACCOUNTS] register, verify, log in and out, reset a forgotten password', () => {
  const suite = useSuite({ mailbox: true });
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await suite.page();
    errors = trackPageErrors(page);
  });

  it('[ACCOUNTS] registers through the three-step wizard with every step-1 message', async () => {
    await page.goto(`${suite.server.url}/register`);
    await page.getByRole('button', { name: 'Suivant' }).click();
    for (const message of ['Email requis', 'Prénom requis', 'Nom requis', 'Mot de passe requis']) {
      await page.getByText(message, { exact: true }).waitFor();
    }
    await screenshot(page, 'register-step1-errors');

    await page.getByLabel('Prénom').fill('Léa');
    await page.getByLabel('Nom', { exact: true }).fill('Martin');
    await page.getByLabel('Email').fill('pas-un-email');
    await page.getByLabel('Mot de passe', { exact: true }).fill('secret12');
    await page.getByRole('button', { name: 'Suivant' }).click();
    await page.getByText('Email invalide').waitFor();
    await page.getByText('Mot de passe : 1 majuscule requise').waitFor();

    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirmer le mot de passe').fill('Secret124');
    await page.getByRole('button', { name: 'Suivant' }).click();
    await page.getByText('Les mots de passe ne correspondent pas').waitFor();
    await page.getByLabel('Confirmer le mot de passe').fill(PASSWORD);
    await page.getByLabel('Entreprise').fill('Martin Conseil');
    await page.getByRole('button', { name: 'Afficher le mot de passe' }).first().click();
    expect(await page.getByLabel('Mot de passe', { exact: true }).getAttribute('type')).toBe('text');
    await screenshot(page, 'register-step1');
    await page.getByRole('button', { name: 'Suivant' }).click();

    await page.getByRole('group', { name: 'Étape 2 : adresse de facturation' }).waitFor();
    await page.getByLabel('Adresse', { exact: true }).fill('12 rue de la République');
    await page.getByLabel('Ville').fill('Lyon');
    await page.getByLabel('Code postal').fill('69002');
    await screenshot(page, 'register-step2');
    await page.getByRole('button', { name: 'Retour' }).click();
    expect(await page.getByLabel('Prénom').inputValue()).toBe('Léa');
    await page.getByRole('button', { name: 'Suivant' }).click();
    await page.getByRole('button', { name: 'Suivant' }).click();

    const summary = page.getByRole('definition');
    await page.getByRole('group', { name: 'Étape 3 : récapitulatif' }).waitFor();
    expect(await summary.filter({ hasText: EMAIL }).count()).toBe(1);
    expect(await summary.filter({ hasText: '12 rue de la République, 69002 Lyon, France' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Créer mon compte' }).click();
    await page
      .getByText('Vous devez accepter les conditions générales et la politique de confidentialité')
      .waitFor();
    await page.getByLabel('J’accepte les conditions générales d’utilisation').click();
    await page.getByLabel('J’accepte la politique de confidentialité').click();
    await screenshot(page, 'register-step3');
    await page.getByRole('button', { name: 'Créer mon compte' }).click();

    await page.getByRole('heading', { name: 'Inscription réussie !' }).waitFor();
    await screenshot(page, 'register-success');
    // The follow-up, 2 seconds later: the login screen, with the address filled in.
    await page.waitForURL(`${suite.server.url}/client`, { timeout: 5000 });
    await page.getByRole('heading', { name: 'Connexion Client' }).waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(EMAIL);
  });

  it('[ACCOUNTS] verifies the email from the mailed link, logs in automatically and lands on /subscribe', async () => {
    const mail = await suite.mailbox.waitFor((m) => m.to.includes(EMAIL) && m.subject.includes('confirmez'));
    const link = linkIn(mail.text, '/verify-email?token=');
    expect(link.startsWith(suite.server.url)).toBe(true);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Bienvenue, Léa\u202f!' }).waitFor();
    expect(await page.getByRole('link', { name: 'Procéder à la souscription' }).isVisible()).toBe(true);
    await screenshot(page, 'verify-success');
    await page.waitForURL(`${suite.server.url}/subscribe`, { timeout: 8000 });
    await page.getByRole('heading', { name: 'Choisissez votre plan' }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'customer_token')?.value).toBeTruthy();
    const data = JSON.parse(decodeURIComponent(cookies.find((c) => c.name === 'customer_data')!.value));
    expect(data).toMatchObject({ email: EMAIL, email_verified: true });

    // The link works once only.
    await page.goto(link);
    await page.getByText('Ce lien de vérification a déjà été utilisé. Connectez-vous.').waitFor();
    await screenshot(page, 'verify-error');
  });

  it('[ACCOUNTS] logs out, then logs in again with the password', async () => {
    // Without a subscription yet, the customer space sends the customer to /subscribe.
    await page.goto(`${suite.server.url}/client`);
    await page.waitForURL(`${suite.server.url}/subscribe`);
    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.getByRole('heading', { name: 'Authentification requise' }).waitFor();
    expect((await page.context().cookies()).find((c) => c.name === 'customer_token')).toBeUndefined();

    await page.goto(`${suite.server.url}/client`);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByText('Veuillez remplir tous les champs').waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Mot de passe', { exact: true }).fill('Mauvais123');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByText('Email ou mot de passe incorrect').waitFor();
    await screenshot(page, 'customer-login-error');
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForURL(`${suite.server.url}/subscribe`);
    await page.getByText(`Connecté en tant que ${EMAIL}`).waitFor();
  });

  it('[ACCOUNTS] follows the redirect parameter after login and refuses foreign ones', async () => {
    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.getByRole('heading', { name: 'Authentification requise' }).waitFor();
    await screenshot(page, 'subscribe-login-gate');
    await page.getByRole('link', { name: 'Se connecter' }).click();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForURL(`${suite.server.url}/subscribe`);
    await page.getByRole('heading', { name: 'Choisissez votre plan' }).waitFor();

    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.goto(`${suite.server.url}/client?redirect=${encodeURIComponent('https://evil.example/')}`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForURL(`${suite.server.url}/subscribe`);
    expect(new URL(page.url()).origin).toBe(suite.server.url);
  });

  it('[ACCOUNTS] resets a forgotten password from the mailed link', async () => {
    await page.context().clearCookies({ name: /^customer_(token|data|csrf)$/ });
    await page.goto(`${suite.server.url}/forgot-password`);
    await page.getByRole('button', { name: 'Envoyer le lien' }).click();
    await page.getByText('Veuillez entrer votre adresse email').waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Envoyer le lien' }).click();
    await page.getByRole('heading', { name: 'Email envoyé !' }).waitFor();
    await screenshot(page, 'forgot-sent');
    await page.getByRole('button', { name: 'Renvoyer l’email' }).click();
    await page.getByRole('button', { name: 'Envoyer le lien' }).waitFor();

    const mail = await suite.mailbox.waitFor(
      (m) => m.to.includes(EMAIL) && m.subject.includes('Réinitialisation'),
    );
    await page.goto(linkIn(mail.text, '/reset-password?token='));
    await page.getByLabel('Nouveau mot de passe').fill('Nouveau123');
    await page.getByLabel('Confirmer le mot de passe').fill('Nouveau124');
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
    await page.getByText('Les mots de passe ne correspondent pas').waitFor();
    await page.getByLabel('Confirmer le mot de passe').fill('Nouveau123');
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
    await page.getByText('Votre mot de passe a été réinitialisé').waitFor();
    await page.getByRole('link', { name: 'Se connecter' }).click();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Mot de passe', { exact: true }).fill('Nouveau123');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForURL(`${suite.server.url}/subscribe`);
    await page.getByText(`Connecté en tant que ${EMAIL}`).waitFor();
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
  });

  it('[ACCOUNTS] sends a customer whose email is not verified from /client to /verify-email', async () => {
    const email = 'pas.verifie@example.com';
    await fetch(`${suite.server.url}/api/auth/register.php`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email,
        first_name: 'Noé',
        last_name: 'Petit',
        password: PASSWORD,
        confirm_password: PASSWORD,
        accept_terms: true,
        accept_privacy: true,
      }),
    });
    await page.context().clearCookies({ name: /^customer_(token|data|csrf)$/ });
    await page.goto(`${suite.server.url}/client`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForURL(`${suite.server.url}/verify-email`);
    await page.getByText('Token de vérification manquant').waitFor();
    await page.getByRole('heading', { name: 'Recevoir un nouveau lien' }).waitFor();
  });

  it('[ACCOUNTS] keeps the plan chosen on the home page through registration and verification, onto /subscribe', async () => {
    const email = 'choix.plan@example.com';
    const visitor = await suite.page();
    await visitor.goto(`${suite.server.url}/`);
    const enterprise = visitor.getByRole('article', { name: 'Plan Enterprise' });
    await enterprise.getByRole('button', { name: 'Commencer' }).click();
    await visitor.waitForURL(`${suite.server.url}/register`);
    await visitor.getByLabel('Prénom').fill('Inès');
    await visitor.getByLabel('Nom', { exact: true }).fill('Durand');
    await visitor.getByLabel('Email').fill(email);
    await visitor.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await visitor.getByLabel('Confirmer le mot de passe').fill(PASSWORD);
    await visitor.getByRole('button', { name: 'Suivant' }).click();
    await visitor.getByRole('group', { name: 'Étape 2 : adresse de facturation' }).waitFor();
    await visitor.getByRole('button', { name: 'Suivant' }).click();
    await visitor.getByRole('group', { name: 'Étape 3 : récapitulatif' }).waitFor();
    await visitor.getByRole('definition').filter({ hasText: 'Enterprise · 99,00 € / mois' }).waitFor();
    await screenshot(visitor, 'register-step3-chosen-plan');
    await visitor.getByLabel('J’accepte les conditions générales d’utilisation').click();
    await visitor.getByLabel('J’accepte la politique de confidentialité').click();
    await visitor.getByRole('button', { name: 'Créer mon compte' }).click();
    await visitor.getByRole('heading', { name: 'Inscription réussie !' }).waitFor();

    // The link is opened in another browser (no visitor cookie there): the account kept the choice.
    const mail = await suite.mailbox.waitFor((m) => m.to.includes(email) && m.subject.includes('confirmez'));
    const other = await suite.page();
    await other.goto(linkIn(mail.text, '/verify-email?token='));
    await other.getByRole('heading', { name: 'Bienvenue, Inès\u202f!' }).waitFor();
    await other.waitForURL(`${suite.server.url}/subscribe`, { timeout: 8000 });
    await other.getByText('Finaliser votre abonnement').waitFor();
    const order = other.getByRole('definition');
    await order
      .filter({ hasText: /^Enterprise$/ })
      .first()
      .waitFor();
    await order
      .filter({ hasText: /^Mensuel$/ })
      .first()
      .waitFor();
    await screenshot(other, 'subscribe-with-home-choice');
  });
});
