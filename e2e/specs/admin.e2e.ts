import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot, trackPageErrors } from '../support/browser';
import { E2E_ADMIN } from '../support/server';
import { useSuite } from '../support/suite';

const CUSTOMER = { first: 'Marc', last: 'Leroy', email: 'marc.leroy@example.com', password: 'Client-Pass-1' };

async function adminSignIn(page: Page, url: string, username: string, password: string): Promise<void> {
  await page.goto(`${url}/admin`);
  await page.getByLabel('Nom d’utilisateur').fill(username);
  await page.getByLabel('Mot de passe', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();
}

describe('[ADMIN] the back office on real data', () => {
  const suite = useSuite();
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await suite.page(1400, 900);
    errors = trackPageErrors(page);
  });

  it('[ADMIN] signs in, with the spec message for wrong credentials, and sees the console', async () => {
    await page.goto(`${suite.server.url}/admin`);
    await page.getByLabel('Nom d’utilisateur').fill(E2E_ADMIN.username);
    await page.getByLabel('Mot de passe', { exact: true }).fill('pas-le-bon');
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByText('Identifiants invalides').waitFor();
    await screenshot(page, 'admin-login');
    await adminSignIn(page, suite.server.url, E2E_ADMIN.username, E2E_ADMIN.password);
    await page.getByText('Système opérationnel').waitFor();
    const cards = page.getByRole('region', { name: 'Indicateurs' });
    await cards.getByText('comptes au total').waitFor();
    for (const tab of [
      'Tableau de bord',
      'Clients',
      'Emails',
      'Plans',
      'Paiements',
      'Transactions',
      'Sauvegarde',
      'Site',
      'Rings',
      'Administrateurs',
      'Journaux',
    ]) {
      expect(await page.getByRole('tab', { name: tab, exact: true }).isVisible()).toBe(true);
    }
    await screenshot(page, 'admin-dashboard');
  });

  it('[ADMIN] creates a plan that the public site lists', async () => {
    await page.getByRole('tab', { name: 'Plans', exact: true }).click();
    await page.getByRole('button', { name: 'Nouveau plan' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Nom du plan').fill('Équipe Pro');
    await dialog.getByLabel('Prix (€ / mois)').fill('49,90');
    await dialog.getByLabel('Utilisateurs max').fill('25');
    await dialog.getByLabel('Rings max').fill('5');
    await dialog.getByLabel('Espace disque', { exact: true }).fill('100');
    await screenshot(page, 'admin-plan-editor');
    await dialog.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByRole('article', { name: 'Plan Équipe Pro' }).waitFor();
    await screenshot(page, 'admin-plans');
    const plans = (await (await fetch(`${suite.server.url}/api/subscriptions/plans.php`)).json()) as {
      data: Array<{ name: string; price: number; features: string[] }>;
    };
    const created = plans.data.find((p) => p.name === 'Équipe Pro');
    expect(created).toMatchObject({ price: 49.9 });
    expect(created!.features).toEqual(
      expect.arrayContaining(['Rings\u202f: 5', 'Espace disque\u202f: 100 Go']),
    );
  });

  it('[ADMIN] creates a customer with a manual subscription to that plan', async () => {
    await page.getByRole('tab', { name: 'Clients', exact: true }).click();
    await page.getByRole('button', { name: 'Nouveau client' }).click();
    const card = page.getByRole('region', { name: 'Nouveau client' });
    await card.getByRole('button', { name: 'Créer le client' }).click();
    await page.getByText('Mot de passe requis').first().waitFor();
    await card.getByText('Veuillez saisir un mot de passe pour créer le client').waitFor();
    await card.getByLabel('Prénom').fill(CUSTOMER.first);
    await card.getByLabel('Nom', { exact: true }).fill(CUSTOMER.last);
    await card.getByLabel('Email', { exact: true }).fill(CUSTOMER.email);
    await card.getByLabel('Mot de passe', { exact: true }).fill(CUSTOMER.password);
    await card.getByRole('button', { name: 'Créer le client' }).click();
    const editor = page.getByRole('region', { name: `Client ${CUSTOMER.first} ${CUSTOMER.last}` });
    await editor.waitFor();
    await editor.getByRole('tab', { name: 'Abonnements' }).click();
    await editor.getByRole('button', { name: 'Nouvel abonnement' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Créer l’abonnement' }).click();
    await dialog.getByText('Veuillez sélectionner un plan').waitFor();
    const planSelect = dialog.getByLabel('Plan', { exact: true });
    const planId = await planSelect.locator('option', { hasText: 'Équipe Pro' }).getAttribute('value');
    await planSelect.selectOption(planId!);
    await screenshot(page, 'admin-manual-subscription');
    await dialog.getByRole('button', { name: 'Créer l’abonnement' }).click();
    const subscriptions = editor.getByRole('region', { name: 'Abonnements du client' });
    await subscriptions.getByText('Équipe Pro').waitFor();
    await subscriptions.getByText('Actif').first().waitFor();
    await screenshot(page, 'admin-client-subscriptions');

    // The customer can sign in to the customer space with it.
    const res = await fetch(`${suite.server.url}/api/auth/customer-login.php`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: CUSTOMER.email, password: CUSTOMER.password }),
    });
    const login = (await res.json()) as { token: string };
    const dashboard = (await (
      await fetch(`${suite.server.url}/api/customer/dashboard-data.php`, {
        headers: { Authorization: `Bearer ${login.token}` },
      })
    ).json()) as {
      data: { subscription: { plan: string; status: string } };
    };
    expect(dashboard.data.subscription).toMatchObject({ plan: 'Équipe Pro', status: 'active' });
  });

  it('[ADMIN] creates an admin with only the Plans module, who then sees only the dashboard and Plans', async () => {
    await page.getByRole('tab', { name: 'Administrateurs', exact: true }).click();
    await page.getByRole('button', { name: 'Nouvel administrateur' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Nom d’utilisateur').fill('plans.only');
    await form.getByLabel('Email').fill('plans@example.com');
    await form.getByLabel('Mot de passe', { exact: true }).fill('Plans-Only-1');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByRole('cell', { name: 'plans.only', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Permissions de plans.only' }).click();
    const permissions = page.getByRole('dialog');
    await permissions.getByRole('switch', { name: 'Tout le module Plans' }).click();
    await screenshot(page, 'admin-permissions');
    await permissions.getByRole('button', { name: 'Enregistrer les permissions' }).click();
    await page.getByText('Permissions mises à jour').first().waitFor();

    const other = await suite.page(1400, 900);
    await adminSignIn(other, suite.server.url, 'plans.only', 'Plans-Only-1');
    await other.getByRole('tab', { name: 'Plans', exact: true }).waitFor();
    const tabs = await other.getByRole('tab').allTextContents();
    expect(tabs.map((t) => t.trim())).toEqual(['Tableau de bord', 'Plans']);
    await screenshot(other, 'admin-plans-only');
  });

  it('[ADMIN] changes the site colours and the public site shows them', async () => {
    await page.getByRole('tab', { name: 'Site', exact: true }).click();
    await page.getByRole('tab', { name: 'Apparence' }).click();
    // A red dark enough for white text (WCAG AA): shown as chosen. A lighter one would be darkened
    // until it is readable (lib/colors.ts, unit-tested in colors.test.ts).
    await page.getByLabel('Couleur principale', { exact: true }).fill('#b91c1c');
    await page.getByText('Aperçu — #b91c1c / #64748b').waitFor();
    await screenshot(page, 'admin-site-appearance');
    await page.getByRole('button', { name: 'Enregistrer les couleurs' }).click();
    await page.getByText('Paramètres enregistrés').first().waitFor();

    const visitor = await suite.page();
    await visitor.goto(`${suite.server.url}/`);
    const button = visitor.getByRole('banner').getByRole('link', { name: 'Accès Ring' });
    await button.waitFor();
    await expect
      .poll(() => button.evaluate((el) => getComputedStyle(el).backgroundColor))
      .toBe('rgb(185, 28, 28)');
  });

  it('[ADMIN] exports the transactions as CSV', async () => {
    await page.getByRole('tab', { name: 'Transactions', exact: true }).click();
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Exporter (CSV)' }).click(),
    ]);
    expect(csv.suggestedFilename()).toMatch(/\.csv$/);
    const text = fs.readFileSync((await csv.path())!, 'utf8');
    // French Excel: BOM, ';' separator, CRLF line ends.
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text.split('\r\n')[0]).toContain(';');
  });

  it('[ADMIN] locks polling while the WebSocket is required, and saves the realtime settings', async () => {
    await page.getByRole('tab', { name: 'Rings', exact: true }).click();
    await page.getByText('Service temps réel').waitFor();
    const wsRequired = page.getByRole('switch', { name: 'WebSocket obligatoire' });
    const polling = page.getByRole('switch', { name: 'Repli en interrogation périodique (polling)' });
    await wsRequired.waitFor();
    expect(await wsRequired.getAttribute('aria-checked')).toBe('true');
    expect(await polling.isDisabled()).toBe(true);
    expect(await page.getByLabel('Intervalle initial de polling').isDisabled()).toBe(true);
    await screenshot(page, 'admin-rings');

    await wsRequired.click();
    expect(await polling.isDisabled()).toBe(false);
    await polling.click();
    await page.getByLabel('Intervalle initial de polling').fill('30');
    const realtime = page.locator('form', { hasText: 'Paramètres temps réel' });
    await realtime.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByText('Paramètres enregistrés').first().waitFor();

    await page.reload();
    await page.getByRole('tab', { name: 'Rings', exact: true }).click();
    await wsRequired.waitFor();
    expect(await wsRequired.getAttribute('aria-checked')).toBe('false');
    expect(await polling.getAttribute('aria-checked')).toBe('true');
    expect(await page.getByLabel('Intervalle initial de polling').inputValue()).toBe('30');
  });

  it('[ADMIN] makes a backup, deletes the customer, restores, and the customer is back', async () => {
    await page.getByRole('tab', { name: 'Sauvegarde', exact: true }).click();
    await page.getByRole('button', { name: 'Créer une sauvegarde' }).click();
    const restoreButton = page.getByRole('button', { name: /^Restaurer securering-backup-/ });
    await restoreButton.first().waitFor();
    await screenshot(page, 'admin-backups');
    const [backupFile] = await Promise.all([
      page.waitForEvent('download'),
      page
        .getByRole('button', { name: /^Télécharger securering-backup-/ })
        .first()
        .click(),
    ]);
    expect(backupFile.suggestedFilename()).toMatch(/^securering-backup-\d{8}-\d{6}\.zip$/);
    const zip = fs.readFileSync((await backupFile.path())!);
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');

    await page.getByRole('tab', { name: 'Clients', exact: true }).click();
    await page.getByRole('button', { name: `Supprimer ${CUSTOMER.first} ${CUSTOMER.last}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Supprimer' }).click();
    await page
      .getByRole('button', { name: `Supprimer ${CUSTOMER.first} ${CUSTOMER.last}` })
      .waitFor({ state: 'detached' });
    const gone = await fetch(`${suite.server.url}/api/auth/customer-login.php`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: CUSTOMER.email, password: CUSTOMER.password }),
    });
    expect(gone.status).toBe(401);

    await page.getByRole('tab', { name: 'Sauvegarde', exact: true }).click();
    await restoreButton.first().click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Restaurer' }).click();
    await page.getByText('Restauration terminée : reconnectez-vous').first().waitFor();
    // The restore ended every session: the console reloads by itself on the sign-in form.
    await page.waitForEvent('load', { timeout: 15_000 });
    await page.getByRole('button', { name: 'Se connecter' }).waitFor();
    await adminSignIn(page, suite.server.url, E2E_ADMIN.username, E2E_ADMIN.password);
    await page.getByRole('tab', { name: 'Clients', exact: true }).click();
    await page.getByRole('button', { name: `Modifier ${CUSTOMER.first} ${CUSTOMER.last}` }).waitFor();
    const back = await fetch(`${suite.server.url}/api/auth/customer-login.php`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: CUSTOMER.email, password: CUSTOMER.password }),
    });
    expect(back.status).toBe(200);
    await screenshot(page, 'admin-after-restore');
    expect(errors.filter((e) => !/Failed to load resource|status of 4\d\d/.test(e))).toEqual([]);
  });
});
