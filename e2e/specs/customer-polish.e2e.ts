import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, saveSettings } from '../support/api';
import { SCREENSHOT_DIR as SCREENSHOTS, newContext, screenshot, trackPageErrors } from '../support/browser';
import { CUSTOMER_PASSWORD } from '../support/customer';
import { linkIn, type SmtpCatcher } from '../support/mailbox';
import { E2E_ADMIN, PAYMENT_TEST_MODE_ENV, type RunningServer } from '../support/server';
import { useSuite } from '../support/suite';

const EMAIL = 'lea.moreau@example.com';
const PHONE = { width: 375, height: 812 };

/** Registers through the API contract and verifies from the mailed link, as a person would. */
async function registerAndVerify(page: Page, server: RunningServer, mailbox: SmtpCatcher): Promise<void> {
  const res = await fetch(`${server.url}/api/auth/register.php`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email: EMAIL,
      first_name: 'Léa',
      last_name: 'Moreau',
      password: CUSTOMER_PASSWORD,
      confirm_password: CUSTOMER_PASSWORD,
      accept_terms: true,
      accept_privacy: true,
    }),
  });
  expect(res.status).toBe(200);
  const mail = await mailbox.waitFor((m) => m.to.includes(EMAIL));
  await page.goto(linkIn(mail.text, '/verify-email?token='));
  await page.getByRole('heading', { name: 'Bienvenue, Léa\u202f!' }).waitFor();
}

/** A phone: 375×812, touch screen (coarse pointer), cookie banner answered. */
async function phone(
  browser: Browser,
  server: RunningServer,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 1,
    locale: 'fr-FR',
    timezoneId: 'Europe/Paris',
  });
  await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: server.url }]);
  return { context, page: await context.newPage() };
}

async function customerSignIn(page: Page, server: RunningServer): Promise<void> {
  await page.goto(`${server.url}/client`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Mot de passe', { exact: true }).fill(CUSTOMER_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('heading', { name: 'Bienvenue, Léa Moreau' }).waitFor();
}

async function adminSignIn(page: Page, server: RunningServer): Promise<void> {
  await page.goto(`${server.url}/admin`);
  await page.getByLabel('Nom d’utilisateur').fill(E2E_ADMIN.username);
  await page.getByLabel('Mot de passe', { exact: true }).fill(E2E_ADMIN.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();
}

/**
 * How far the page is wider than the screen it was opened on (0 or less: it never widens past
 * it). A phone's layout viewport grows with the content, so the width compared is the device's.
 */
async function horizontalOverflow(page: Page): Promise<number> {
  const width = page.viewportSize()!.width;
  const { overflow, culprits } = await page.evaluate((screen) => {
    const culprits = Array.from(document.querySelectorAll('body *'))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        if (r.right <= screen + 0.5 || r.width === 0) return false;
        // Inside a box that scrolls on its own: that box holds it.
        for (let p = el.parentElement; p; p = p.parentElement)
          if (getComputedStyle(p).overflowX !== 'visible' && p.getBoundingClientRect().right <= screen + 0.5)
            return false;
        return true;
      })
      .slice(0, 5)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 60)} → ${Math.round(el.getBoundingClientRect().right)}`,
      );
    return { overflow: document.documentElement.scrollWidth - screen, culprits };
  }, width);
  if (overflow > 0) console.log('overflow', overflow, culprits);
  return overflow;
}

/** Plain spaces for the no-break ones of French typography, to compare texts. */
const plain = (text: string | null) =>
  (text ?? '')
    .replace(/[\u00a0\u202f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('[POLISH] what a new customer trips over: honest prices, one Ring selector, mobile layouts', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let page: Page;
  let errors: string[];
  let inviteLink = '';
  let secondInviteLink = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    page = await suite.page();
    errors = trackPageErrors(page);
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  it('[POLISH] public prices use one money format (fr-FR), and the yearly saving reads "2 mois offerts"', async () => {
    await page.goto(suite.server.url);
    const starter = page.getByRole('article', { name: 'Plan Starter' });
    await starter.getByText('9,90 €', { exact: true }).waitFor();
    expect(plain(await starter.getByText(/\+4,90/).textContent())).toBe('+4,90 € / mois');
    // Starter Rings have no file space: the plan does not claim it.
    expect(await starter.getByText('Partage de fichiers').count()).toBe(0);
    expect(plain(await starter.getByText(/^Rings/).textContent())).toBe('Rings : 1');
    const html = await page.content();
    expect(html).not.toContain('+€');
    expect(html).not.toContain('-10%');
    await screenshot(page, 'polish-home-plans-1280');
  });

  it('[POLISH] buys Professional yearly with the video option: the checkout, the cards and "Abonnement" show what is billed', async () => {
    await registerAndVerify(page, suite.server, suite.mailbox);
    await page.waitForURL(`${suite.server.url}/subscribe`, { timeout: 8000 });
    const yearly = page.getByRole('radio', { name: /Annuel/ });
    expect(plain(await yearly.textContent())).toBe('Annuel2 mois offerts');
    await yearly.click();
    const pro = page.getByRole('article', { name: 'Plan Professional' });
    await pro.getByText('299,00 €', { exact: true }).waitFor();
    expect(await pro.locator('s').textContent()).toBe('358,80\u00a0€');
    expect(await pro.getByText('2 mois offerts').isVisible()).toBe(true);
    await pro.getByRole('switch').click();
    await pro.getByText('398,00 €', { exact: true }).waitFor();
    expect(plain(await pro.getByText(/\+99,00/).textContent())).toBe('+99,00 € / an');
    expect(await page.getByText('-10%').count()).toBe(0);
    await screenshot(page, 'polish-subscribe-yearly-1280');
    await pro.getByRole('button', { name: 'Choisir ce plan' }).click();

    const order = page.getByRole('definition');
    await page.getByText('Finaliser votre abonnement').waitFor();
    expect(await order.filter({ hasText: 'Annuel (2 mois offerts)' }).count()).toBe(1);
    expect(await order.filter({ hasText: '398,00 €' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Paiement de test' }).click();
    await page.waitForURL(/\/test-checkout\?session_id=test_/);
    await page.getByText('Annuel (2 mois offerts)', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Approuver le paiement' }).click();
    await page.waitForURL(/\/payment-success\?session_id=test_/);
    await page.getByRole('heading', { name: 'Paiement réussi !' }).waitFor();
    await page.getByRole('link', { name: 'Accéder à mon espace client' }).click();
    await page.waitForURL(`${suite.server.url}/client`);

    const cards = page.getByRole('region', { name: 'Résumé' });
    await cards.getByText('Plan actuel').waitFor();
    const planCard = plain(await cards.locator('> div').first().textContent());
    expect(planCard).toContain('398,00 € / an');
    expect(planCard).toContain('option vidéo incluse (+9,90 € / mois)');
    expect(planCard).toContain('2 mois offerts');
    expect(planCard).not.toContain('29,90');
    await screenshot(page, 'polish-client-cards-1280');

    await page.getByRole('tab', { name: 'Abonnement' }).click();
    const billing = page.getByRole('definition').filter({ hasText: '398,00' });
    expect(plain(await billing.textContent())).toBe(
      '398,00 € / an · option vidéo incluse (+9,90 € / mois) · 2 mois offerts',
    );
    await page.getByText('Paiement de test (aucun débit réel)').waitFor();
    // Paid once with the test provider: no payment portal, and cancelling is impossible, with why.
    expect(await page.getByRole('button', { name: 'Ouvrir le portail de paiement' }).count()).toBe(0);
    const cancel = page.getByRole('button', { name: 'Annuler l’abonnement' });
    expect(await cancel.isDisabled()).toBe(true);
    expect(plain(await page.locator('#cancel-reason').textContent())).toMatch(
      /^Rien à annuler : ce paiement ne se renouvelle pas, l’abonnement prendra fin le /,
    );
    await screenshot(page, 'polish-client-subscription-1280');
  });

  it('[POLISH] one Ring selector at the top of /client drives the cards and every tab; user counts agree', async () => {
    await page.getByRole('tab', { name: 'Mes Utilisateurs' }).click();
    await page.getByLabel('Nom du Ring').fill('Équipe Alpha');
    await page.getByRole('button', { name: 'Créer le Ring' }).click();
    await page.getByText('«\u202fÉquipe Alpha\u202f»', { exact: false }).first().waitFor();
    await page.getByLabel('Nom d’utilisateur').fill('alice');
    await page.getByLabel('Email (facultatif)').fill('alice@example.com');
    await page.getByRole('button', { name: 'Inviter' }).click();
    const mail = await suite.mailbox.waitFor((m) => m.to.includes('alice@example.com'));
    inviteLink = linkIn(mail.text, '/ring-access?invite=');

    await page.getByLabel('Nom du Ring').fill('Équipe Bêta');
    await page.getByRole('button', { name: 'Créer le Ring' }).click();
    const selector = page.getByLabel('Ring', { exact: true });
    await selector.waitFor();
    // There is one selector, at the top, above the cards; the new Ring is selected.
    expect(await page.locator('select#ring-select').count()).toBe(1);
    expect(await selector.locator('option:checked').textContent()).toBe('Équipe Bêta');
    const cards = page.getByRole('region', { name: 'Résumé' });
    await cards.getByText('Ring «\u202fÉquipe Bêta\u202f»').waitFor();
    const users = page.getByText(/utilisateurs? et vous \(propriétaire\)/);
    expect(plain(await users.textContent())).toBe('« Équipe Bêta » : 0 utilisateur et vous (propriétaire)');
    // The plan counts seats over all Rings, the owner not counted: alice is the one seat.
    expect(plain(await cards.getByText(/^\d+ \/ 50$/).textContent())).toBe('1 / 50');
    await cards.getByText('49 disponibles · tous Rings, propriétaire non compté').waitFor();

    await selector.selectOption({ label: 'Équipe Alpha' });
    await cards.getByText('Ring «\u202fÉquipe Alpha\u202f»').waitFor();
    await page.getByText('«\u202fÉquipe Alpha\u202f»\u202f: 1 utilisateur et vous (propriétaire)').waitFor();
    expect(await page.getByRole('cell', { name: 'alice', exact: true }).count()).toBe(1);
    expect(page.url()).toContain('ring=');
    await screenshot(page, 'polish-client-selector-1280');

    await page.getByRole('tab', { name: 'Paramètres Ring' }).click();
    await page.locator('strong', { hasText: 'Équipe Alpha' }).waitFor();
    await selector.selectOption({ label: 'Équipe Bêta' });
    await page.locator('strong', { hasText: 'Équipe Bêta' }).waitFor();
    expect(page.url()).toContain('tab=settings');
    await page.getByRole('tab', { name: 'Statistiques' }).click();
    await page.getByRole('img', { name: /Messages par jour/ }).waitFor();
    expect(await selector.locator('option:checked').textContent()).toBe('Équipe Bêta');
    await selector.selectOption({ label: 'Équipe Alpha' });
    await page.getByRole('tab', { name: 'Mes Utilisateurs' }).click();
    await page.getByRole('cell', { name: 'alice', exact: true }).waitFor();
    await page.getByLabel('Nom d’utilisateur').fill('bruno');
    await page.getByLabel('Email (facultatif)').fill('bruno@example.com');
    await page.getByRole('button', { name: 'Inviter' }).click();
    const second = await suite.mailbox.waitFor((m) => m.to.includes('bruno@example.com'));
    secondInviteLink = linkIn(second.text, '/ring-access?invite=');
  });

  it('[POLISH] "Accéder à mon Ring" takes the owner into the selected Ring without a second login', async () => {
    await page.getByRole('button', { name: 'Accéder à mon Ring' }).click();
    await page.waitForURL(`${suite.server.url}/ring`);
    // The room asks for the owner's personal passphrase (end-to-end encryption); no login form.
    await page.getByRole('dialog', { name: 'Phrase secrète' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Connexion au Ring' }).count()).toBe(0);
    expect(await page.getByLabel('Mot de passe', { exact: true }).count()).toBe(0);
    await screenshot(page, 'polish-owner-enters-ring-1280');
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { level: 1, name: 'Équipe Alpha' }).waitFor();
    await page.goto(`${suite.server.url}/client`);
    await page.getByRole('region', { name: 'Résumé' }).waitFor();
  });

  it('[POLISH] invite acceptance is prefilled, shows each error once and drops it once fixed; same on Ring login', async () => {
    const visitor = await suite.page();
    await visitor.goto(inviteLink);
    await visitor
      .getByText('Vous avez été invité à rejoindre «\u202fÉquipe Alpha\u202f»', { exact: false })
      .waitFor();
    await expect.poll(() => visitor.getByLabel('Nom d’utilisateur').inputValue()).toBe('alice');
    expect(await visitor.getByLabel('Email (facultatif)').inputValue()).toBe('alice@example.com');
    await screenshot(visitor, 'polish-accept-invite-prefilled-1280');

    await visitor.getByLabel('Mot de passe', { exact: true }).fill('court');
    await visitor.getByLabel('Confirmer le mot de passe').fill('court');
    await visitor.getByRole('button', { name: 'Rejoindre le Ring' }).click();
    await visitor.getByRole('alert').getByText('Mot de passe trop court').waitFor();
    // Once, in the form: no toast repeats it.
    expect(await visitor.getByText('Mot de passe trop court').count()).toBe(1);
    await visitor.getByLabel('Mot de passe', { exact: true }).fill('Alice-Pass-1');
    await expect.poll(() => visitor.getByText('Mot de passe trop court').count()).toBe(0);
    await visitor.getByLabel('Confirmer le mot de passe').fill('Alice-Pass-1');
    await visitor.getByRole('button', { name: 'Rejoindre le Ring' }).click();
    await visitor.getByRole('dialog', { name: 'Phrase secrète' }).waitFor();

    const member = await suite.page();
    await member.goto(`${suite.server.url}/ring-access`);
    await member.getByLabel('Email').fill('alice@example.com');
    await member.getByLabel('Mot de passe', { exact: true }).fill('Pas-le-bon-1');
    await member.getByRole('button', { name: 'Se connecter' }).click();
    await member.getByRole('alert').getByText('Identifiants incorrects').waitFor();
    expect(await member.getByText('Identifiants incorrects').count()).toBe(1);
    await screenshot(member, 'polish-ring-login-error-1280');
    await member.getByLabel('Mot de passe', { exact: true }).fill('Alice-Pass-1');
    expect(await member.getByText('Identifiants incorrects').count()).toBe(0);
    await member.getByRole('button', { name: 'Se connecter' }).click();
    await member.getByRole('dialog', { name: 'Phrase secrète' }).waitFor();
  });

  it('[POLISH] the reset-password page without a valid token says so and offers a new link', async () => {
    const visitor = await suite.page();
    await visitor.goto(`${suite.server.url}/reset-password`);
    await visitor.getByRole('alert').getByText('Lien invalide').waitFor();
    expect(await visitor.getByLabel('Nouveau mot de passe').count()).toBe(0);
    await screenshot(visitor, 'polish-reset-no-token-1280');
    await visitor.goto(`${suite.server.url}/reset-password?token=${'ab'.repeat(32)}`);
    await visitor.getByLabel('Nouveau mot de passe').fill('Nouveau-Pass-1');
    await visitor.getByLabel('Confirmer le mot de passe').fill('Nouveau-Pass-1');
    await visitor.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
    await visitor
      .getByText('Ce lien de réinitialisation a expiré ou a déjà servi.', { exact: false })
      .waitFor();
    await visitor.getByRole('link', { name: 'Demander un nouveau lien' }).click();
    await visitor.waitForURL(`${suite.server.url}/forgot-password`);
  });

  it('[POLISH] at 375 px: no page wider than the screen, tabs in the first screen, 44 px tap targets', async () => {
    const { context, page: mobile } = await phone(suite.browser, suite.server);
    contexts.push(context);
    const mobileErrors = trackPageErrors(mobile);

    await customerSignIn(mobile, suite.server);
    expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
    const tabs = await mobile.getByRole('tablist').boundingBox();
    expect(tabs).not.toBeNull();
    expect(tabs!.y + tabs!.height).toBeLessThanOrEqual(PHONE.height);
    await screenshot(mobile, 'polish-client-375');
    // "Utilisateurs du Ring" scrolls inside its own box.
    const table = mobile.getByRole('region', { name: 'Tableau des utilisateurs' });
    await table.waitFor();
    expect(await table.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
    for (const tab of ['Abonnement', 'Paramètres Ring', 'Statistiques']) {
      await mobile.getByRole('tab', { name: tab }).click();
      await mobile.getByRole('tabpanel').first().waitFor();
      await mobile.waitForTimeout(300);
      expect(await horizontalOverflow(mobile), tab).toBeLessThanOrEqual(0);
      await screenshot(
        mobile,
        `polish-client-${tab === 'Abonnement' ? 'subscription' : tab === 'Statistiques' ? 'statistics' : 'settings'}-375`,
      );
    }
    const tabBox = await mobile.getByRole('tab', { name: 'Abonnement' }).boundingBox();
    expect(tabBox!.height).toBeGreaterThanOrEqual(44);

    await mobile.goto(`${suite.server.url}/subscribe`);
    // The stored selection may reopen the checkout: back to the plans.
    const plans = mobile.getByRole('article', { name: 'Plan Professional' });
    const checkout = mobile.getByRole('button', { name: 'Changer de plan' });
    await plans.or(checkout).first().waitFor();
    if (await checkout.isVisible()) {
      expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'polish-subscribe-checkout-375');
      await checkout.click();
    }
    await plans.waitFor();
    expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
    for (const radio of await mobile.getByRole('radio').all())
      expect((await radio.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await screenshot(mobile, 'polish-subscribe-375');

    // The footer links and the drawer's close button are 44 px targets.
    await mobile.goto(suite.server.url);
    for (const name of ['Contact', 'CGU', 'Confidentialité', 'Mentions légales']) {
      const box = await mobile.getByRole('contentinfo').getByRole('link', { name }).boundingBox();
      expect(box!.height, name).toBeGreaterThanOrEqual(44);
      expect(box!.width, name).toBeGreaterThanOrEqual(44);
    }
    await mobile.getByRole('button', { name: 'Ouvrir le menu' }).click();
    const close = mobile.getByRole('dialog').getByRole('button', { name: 'Fermer' });
    const closeBox = await close.boundingBox();
    expect(closeBox!.width).toBeGreaterThanOrEqual(44);
    expect(closeBox!.height).toBeGreaterThanOrEqual(44);
    await screenshot(mobile, 'polish-home-drawer-375');
    await close.click();
    await screenshot(mobile, 'polish-home-375');

    // The other screens this work changed, at phone size.
    await mobile.goto(secondInviteLink);
    await mobile.getByText('Vous avez été invité à rejoindre', { exact: false }).waitFor();
    await expect.poll(() => mobile.getByLabel('Nom d’utilisateur').inputValue()).toBe('bruno');
    expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
    await screenshot(mobile, 'polish-accept-invite-prefilled-375');
    await mobile.goto(`${suite.server.url}/ring-access`);
    await mobile.getByLabel('Email').fill('alice@example.com');
    await mobile.getByLabel('Mot de passe', { exact: true }).fill('Pas-le-bon-1');
    await mobile.getByRole('button', { name: 'Se connecter' }).click();
    await mobile.getByRole('alert').getByText('Identifiants incorrects').waitFor();
    await screenshot(mobile, 'polish-ring-login-error-375');
    await mobile.goto(`${suite.server.url}/reset-password`);
    await mobile.getByRole('link', { name: 'Demander un nouveau lien' }).waitFor();
    expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
    await screenshot(mobile, 'polish-reset-no-token-375');
    expect(mobileErrors).toEqual([]);
  });

  it('[POLISH] at 375 px the registration steps fit, each step starts at its top, and back-to-top never covers a control', async () => {
    const { context, page: mobile } = await phone(suite.browser, suite.server);
    contexts.push(context);
    await mobile.goto(`${suite.server.url}/register`);
    const steps = mobile.getByRole('list', { name: 'Étapes de l’inscription' });
    await steps.waitFor();
    expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
    for (const item of await steps.getByRole('listitem').all()) {
      const box = (await item.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      expect(await item.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    }
    await screenshot(mobile, 'polish-register-375');
    await page.goto(`${suite.server.url}/register`);
    await page.getByRole('list', { name: 'Étapes de l’inscription' }).waitFor();
    await screenshot(page, 'polish-register-1280');

    await mobile.getByLabel('Prénom').fill('Paul');
    await mobile.getByLabel('Nom', { exact: true }).fill('Martin');
    await mobile.getByLabel('Email').fill('paul.martin@example.com');
    await mobile.getByLabel('Mot de passe', { exact: true }).fill('Secret123');
    await mobile.getByLabel('Confirmer le mot de passe').fill('Secret123');
    await mobile.getByRole('button', { name: 'Suivant' }).click();
    await mobile.getByRole('group', { name: 'Étape 2 : adresse de facturation' }).waitFor();
    // The new step starts at its top: the step list is on screen, below the sticky header (the
    // scroll is smooth: wait for it to end there).
    const header = mobile.getByRole('banner').first();
    await expect
      .poll(async () => {
        const y = (await steps.boundingBox())!.y;
        const below = (await header.boundingBox())!;
        return y >= below.y + below.height && y < PHONE.height / 3;
      })
      .toBe(true);
    await mobile.screenshot({ path: `${SCREENSHOTS}/polish-register-step2-first-screen-375.png` });
    await screenshot(mobile, 'polish-register-step2-375');

    // Scrolled down a long form: the back-to-top button is hidden or clear of every control.
    await mobile.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await mobile.waitForTimeout(200);
    const clash = await mobile.evaluate(() => {
      const button = document.querySelector<HTMLButtonElement>('button[aria-label="Retour en haut"]');
      if (!button || getComputedStyle(button).opacity === '0') return null;
      const r = button.getBoundingClientRect();
      for (const [x, y] of [
        [r.left, r.top],
        [r.right, r.bottom],
        [r.left + r.width / 2, r.top + r.height / 2],
      ])
        for (const el of document.elementsFromPoint(x!, y!))
          if (!button.contains(el) && el.closest('input, textarea, select, button, a[href], label'))
            return el.outerHTML.slice(0, 120);
      return null;
    });
    expect(clash).toBeNull();
  });

  it('[POLISH] a loading shell while a page’s code arrives, and focus rings for the keyboard only', async () => {
    const context = await newContext(suite.browser);
    contexts.push(context);
    await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
    const visitor = await context.newPage();
    // The customer space's code arrives slowly: the first paint is the shell, not a white page.
    // (The shell must show before the code arrives; the margin absorbs a loaded test machine.)
    const CODE_DELAY_MS = 3000;
    await visitor.route(/\/assets\/client-page-[^/]*\.js$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, CODE_DELAY_MS));
      await route.continue();
    });
    await visitor.goto(`${suite.server.url}/client`, { waitUntil: 'commit' });
    await visitor
      .getByRole('status')
      .getByText('Chargement…')
      .waitFor({ timeout: CODE_DELAY_MS - 500 });
    await visitor.getByRole('heading', { name: 'Connexion Client' }).waitFor();

    // A link to a page whose code is not there yet: a loading bar says the page is coming.
    await visitor.route(/\/assets\/contact-page-[^/]*\.js$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, CODE_DELAY_MS));
      await route.continue();
    });
    await visitor.goto(suite.server.url);
    await visitor.getByRole('banner').getByRole('link', { name: 'Contact' }).click();
    await visitor.getByText('Chargement de la page…').waitFor({ timeout: CODE_DELAY_MS - 500 });
    await visitor.getByRole('heading', { name: 'Contactez-nous' }).waitFor();

    // Clicking shows no focus ring; the keyboard does.
    await visitor.goto(`${suite.server.url}/client`);
    const submit = visitor.getByRole('button', { name: 'Se connecter' });
    await submit.click();
    expect(await submit.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('none');
    await visitor.keyboard.press('Tab');
    expect(
      await visitor.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle),
    ).not.toBe('none');
  });

  it('[POLISH] back office: maintenance and missing SMTP banners, French tab and template names, provider switches that say their state', async () => {
    await adminSignIn(page, suite.server);
    for (const tab of ['Tableau de bord', 'Administrateurs', 'Journaux'])
      expect(await page.getByRole('tab', { name: tab, exact: true }).isVisible()).toBe(true);
    for (const tab of ['Dashboard', 'Admins', 'Logs'])
      expect(await page.getByRole('tab', { name: tab, exact: true }).count()).toBe(0);
    await page.getByText('Système opérationnel').waitFor();
    expect(await page.getByText('SMTP non configuré').count()).toBe(0);

    await page.getByRole('switch', { name: 'Maintenance' }).click();
    await page.getByText('Le site public affiche la page de maintenance', { exact: false }).waitFor();
    await page.getByRole('banner').getByText('Maintenance active').waitFor();
    expect(await page.getByText('Système opérationnel').count()).toBe(0);
    await screenshot(page, 'polish-admin-maintenance-1280');
    await page.getByRole('switch', { name: 'Maintenance' }).click();
    await page.getByText('Système opérationnel').waitFor();

    await page.getByRole('tab', { name: 'Emails', exact: true }).click();
    const invitation = page.getByRole('listitem').filter({ hasText: 'Invitation à rejoindre un Ring' });
    await invitation.waitFor();
    expect(await invitation.getByText('Mot de passe', { exact: true }).count()).toBe(0);
    const reset = page.getByRole('listitem').filter({ hasText: 'Réinitialisation du mot de passe' });
    expect(await reset.getByText('Mot de passe', { exact: true }).count()).toBe(1);
    await screenshot(page, 'polish-admin-emails-1280');

    await page.getByRole('tab', { name: 'Paiements', exact: true }).click();
    const card = page.locator('[aria-label="PayPal"]');
    await card.getByText('Désactivé', { exact: true }).waitFor();
    expect(await card.getByRole('switch').getAttribute('aria-checked')).toBe('false');

    // Without an SMTP host, mails stay in the outbox: the console says so.
    await saveSettings(suite.server.url, await adminLogin(suite.server.url), 'smtp', { host: '' });
    await page.reload();
    await page.getByText('SMTP non configuré — les emails restent dans la file').waitFor();
    await screenshot(page, 'polish-admin-smtp-1280');

    const { context, page: mobile } = await phone(suite.browser, suite.server);
    contexts.push(context);
    await adminSignIn(mobile, suite.server);
    expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
    await mobile.screenshot({ path: `${SCREENSHOTS}/polish-admin-first-screen-375.png` });
    await screenshot(mobile, 'polish-admin-375');
    await mobile.getByRole('tab', { name: 'Emails', exact: true }).click();
    await mobile.getByText('Invitation à rejoindre un Ring').waitFor();
    expect(await horizontalOverflow(mobile)).toBeLessThanOrEqual(0);
    await screenshot(mobile, 'polish-admin-emails-375');
    for (const tab of ['Administrateurs', 'Clients', 'Transactions']) {
      await mobile.getByRole('tab', { name: tab, exact: true }).click();
      await mobile.getByRole('tabpanel').getByRole('table').first().waitFor();
      expect(await horizontalOverflow(mobile), tab).toBeLessThanOrEqual(0);
      await screenshot(mobile, `polish-admin-${tab.toLowerCase()}-375`);
    }
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});
