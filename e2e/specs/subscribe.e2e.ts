import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot, trackPageErrors } from '../support/browser';
import { useSuite } from '../support/suite';
import { linkIn, type SmtpCatcher } from '../support/mailbox';
import { PAYMENT_TEST_MODE_ENV, type RunningServer } from '../support/server';

const EMAIL = 'paul.durand@example.com';

/** Registers through the API contract and verifies from the mailed link, as a person would. */
async function registerAndVerify(page: Page, server: RunningServer, mailbox: SmtpCatcher): Promise<void> {
  const res = await fetch(`${server.url}/api/auth/register.php`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email: EMAIL,
      first_name: 'Paul',
      last_name: 'Durand',
      password: 'Secret123',
      confirm_password: 'Secret123',
      accept_terms: true,
      accept_privacy: true,
    }),
  });
  expect(res.status).toBe(200);
  const mail = await mailbox.waitFor((m) => m.to.includes(EMAIL));
  await page.goto(linkIn(mail.text, '/verify-email?token='));
  await page.getByRole('heading', { name: 'Bienvenue, Paul\u202f!' }).waitFor();
}

describe('[SUBSCRIBE] plan choice and checkout with the test provider', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await suite.page();
    errors = trackPageErrors(page);
  });

  it('[SUBSCRIBE] chooses the second plan yearly with video, pays with the test provider and lands on /client with the plan active', async () => {
    await registerAndVerify(page, suite.server, suite.mailbox);
    await page.waitForURL(`${suite.server.url}/subscribe`, { timeout: 8000 });
    const pro = page.getByRole('article', { name: 'Plan Professional' });
    await pro.waitFor();
    expect(await pro.getByText('Populaire').isVisible()).toBe(true);
    expect(await pro.getByText('29,90 €').isVisible()).toBe(true);
    await screenshot(page, 'subscribe-monthly');

    await page.getByRole('radio', { name: /Annuel/ }).click();
    await pro.getByText('299,00 €').waitFor();
    expect(await pro.locator('s').textContent()).toBe('358,80\u00a0€');
    await pro.getByRole('switch').click();
    await pro.getByText('398,00 €').waitFor();
    expect(await pro.getByText('+99,00 € / an').isVisible()).toBe(true);
    await screenshot(page, 'subscribe-yearly-video');
    await pro.getByRole('button', { name: 'Choisir ce plan' }).click();

    await page.getByText('Finaliser votre abonnement').waitFor();
    const order = page.getByRole('definition');
    expect(await order.filter({ hasText: 'Professional' }).count()).toBe(1);
    expect(await order.filter({ hasText: 'Annuel' }).count()).toBe(1);
    expect(await order.filter({ hasText: '398,00 €' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Payer par carte' }).count()).toBe(0);
    await screenshot(page, 'subscribe-checkout');

    // The stored selection survives a reload.
    await page.reload();
    await page.getByText('Finaliser votre abonnement').waitFor();

    await page.getByRole('button', { name: 'Paiement de test' }).click();
    await page.waitForURL(/\/test-checkout\?session_id=test_/);
    await page.getByText('398,00 €').waitFor();
    await screenshot(page, 'test-checkout');
    await page.getByRole('button', { name: 'Approuver le paiement' }).click();

    await page.waitForURL(/\/payment-success\?session_id=test_/);
    await page.getByRole('heading', { name: 'Paiement réussi !' }).waitFor();
    expect(await page.getByText(/^SR-[0-9A-F]{10}$/).isVisible()).toBe(true);
    await screenshot(page, 'payment-success');
    const mail = await suite.mailbox.waitFor(
      (m) => m.to.includes(EMAIL) && m.subject.includes('Confirmation de paiement'),
    );
    expect(mail.text).toMatch(/398,00\s€/);

    await page.getByRole('link', { name: 'Accéder à mon espace client' }).click();
    await page.waitForURL(`${suite.server.url}/client`);
    await page.getByText('Professional').first().waitFor();
    await page.getByText('Actif').first().waitFor();
    expect(errors).toEqual([]);
  });

  it('[SUBSCRIBE] opens the checkout directly from plan_id, and a cancelled payment offers to resume', async () => {
    const plans = (await (await fetch(`${suite.server.url}/api/subscriptions/plans.php`)).json()) as {
      data: Array<{ id: string; name: string }>;
    };
    const starter = plans.data.find((p) => p.name === 'Starter')!;
    await page.goto(`${suite.server.url}/subscribe?plan_id=${starter.id}&billing=monthly`);
    await page.getByText('Finaliser votre abonnement').waitFor();
    expect(await page.getByRole('definition').filter({ hasText: '9,90 €' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Paiement de test' }).click();
    await page.getByRole('button', { name: 'Annuler' }).click();
    await page.waitForURL(`${suite.server.url}/payment-cancelled`);
    await screenshot(page, 'payment-cancelled');
    await page.getByRole('link', { name: 'Reprendre ma souscription' }).click();
    await page.waitForURL(`${suite.server.url}/subscribe?resume=1`);
    await page.getByText('Finaliser votre abonnement').waitFor();
    expect(await page.getByRole('definition').filter({ hasText: 'Starter' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Changer de plan' }).click();
    await page.getByRole('article', { name: 'Plan Enterprise' }).getByText('✓ Vidéo incluse').waitFor();
  });

  it('[SUBSCRIBE] says before payment what happens to the time left of the current plan, and the payment does just that', async () => {
    const plans = (await (await fetch(`${suite.server.url}/api/subscriptions/plans.php`)).json()) as {
      data: Array<{ id: string; name: string }>;
    };
    const starter = plans.data.find((p) => p.name === 'Starter')!;
    const pro = plans.data.find((p) => p.name === 'Professional')!;
    const notice = page.getByRole('status').filter({ hasText: 'Votre abonnement actuel' });

    // Paul holds Professional for a year: the same plan again keeps the time left…
    await page.goto(`${suite.server.url}/subscribe?plan_id=${pro.id}&billing=yearly`);
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(
      /Vous avez déjà le plan Professional jusqu’au .+\. La période payée s’ajoute à la suite\. Les 36\d\u00a0jours restants sont conservés\./,
    );

    // …another plan replaces it at once, and the time left is lost: said before any payment button.
    await page.goto(`${suite.server.url}/subscribe?plan_id=${starter.id}&billing=monthly`);
    await notice.filter({ hasText: 'sera remplacé dès le paiement' }).waitFor();
    expect(await notice.textContent()).toMatch(
      /Votre plan Professional \(jusqu’au .+\) sera remplacé dès le paiement\. Les 36\d\u00a0jours restants sont perdus, ni remboursés ni reportés\./,
    );
    await screenshot(page, 'subscribe-plan-change');

    await page.getByRole('button', { name: 'Paiement de test' }).click();
    await page.getByRole('button', { name: 'Approuver le paiement' }).click();
    await page.getByRole('heading', { name: 'Paiement réussi !' }).waitFor();
    // Starter is now the one subscription, for a month: Professional's year is gone, as announced.
    await page.goto(`${suite.server.url}/subscribe?plan_id=${starter.id}&billing=monthly`);
    await notice.filter({ hasText: 'Vous avez déjà le plan Starter' }).waitFor();
    expect(await notice.textContent()).toMatch(/Les (2\d|3[01])\u00a0jours restants sont conservés\./);
    expect(errors).toEqual([]);
  });
});
