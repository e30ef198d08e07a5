import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NowPaymentsStub } from '../../apps/server/test/stubs/nowpayments-stub';
import { PaypalStub } from '../../apps/server/test/stubs/paypal-stub';
import { StripeStub } from '../../apps/server/test/stubs/stripe-stub';
import { adminLogin, saveSettings } from '../support/api';
import { launchBrowser, newContext, screenshot } from '../support/browser';
import { connectMailbox, linkIn, type SmtpCatcher } from '../support/mailbox';
import { startServer, type RunningServer } from '../support/server';

describe('[PROVIDERS] card, PayPal and crypto checkouts against local provider stubs', () => {
  let server: RunningServer;
  let browser: Browser;
  let mailbox: SmtpCatcher;
  let stripe: StripeStub;
  let paypal: PaypalStub;
  let nowpayments: NowPaymentsStub;
  let page: Page;

  async function signUp(email: string): Promise<void> {
    await fetch(`${server.url}/api/auth/register.php`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email,
        first_name: 'Inès',
        last_name: 'Roy',
        password: 'Secret123',
        confirm_password: 'Secret123',
        accept_terms: 1,
        accept_privacy: 1,
      }),
    });
    const mail = await mailbox.waitFor((m) => m.to.includes(email));
    await page.goto(linkIn(mail.text, '/verify-email?token='));
    await page.waitForURL(`${server.url}/subscribe`, { timeout: 8000 });
  }

  async function openCheckout(planName: string): Promise<void> {
    await page.goto(`${server.url}/subscribe`);
    const card = page.getByRole('article', { name: `Plan ${planName}` });
    const checkout = page.getByText('Finaliser votre abonnement');
    await Promise.race([card.waitFor(), checkout.waitFor()]);
    if (await checkout.isVisible()) await page.getByRole('button', { name: 'Changer de plan' }).click();
    await card.getByRole('button', { name: 'Choisir ce plan' }).click();
    await checkout.waitFor();
  }

  beforeAll(async () => {
    stripe = await new StripeStub().start();
    paypal = await new PaypalStub('pp-client', 'pp-secret', 'WH-E2E').start();
    nowpayments = await new NowPaymentsStub('np-key').start();
    server = await startServer({
      env: {
        STRIPE_API_BASE: stripe.base,
        PAYPAL_API_BASE: paypal.base,
        NOWPAYMENTS_API_BASE: nowpayments.base,
      },
    });
    mailbox = await connectMailbox(server.url);
    const token = await adminLogin(server.url);
    await saveSettings(server.url, token, 'stripe', {
      enabled: '1',
      secret_key_test: 'sk_test_e2e',
      webhook_secret: 'whsec_e2e',
    });
    await saveSettings(server.url, token, 'paypal', {
      enabled: '1',
      client_id_test: 'pp-client',
      client_secret_test: 'pp-secret',
      webhook_id: 'WH-E2E',
    });
    await saveSettings(server.url, token, 'nowpayments', {
      enabled: '1',
      api_key: 'np-key',
      ipn_secret: 'ipn',
    });
    browser = await launchBrowser();
    const context = await newContext(browser);
    await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: server.url }]);
    page = await context.newPage();
    await signUp('ines.roy@example.com');
  });
  afterAll(async () => {
    await browser?.close();
    await mailbox?.stop();
    await server?.stop();
    await Promise.all([stripe?.stop(), paypal?.stop(), nowpayments?.stop()]);
  });

  it('[PROVIDERS] shows one button per enabled provider and no test button', async () => {
    await openCheckout('Starter');
    for (const label of ['Payer par carte', 'Payer avec PayPal', 'Payer en crypto-monnaie']) {
      expect(await page.getByRole('button', { name: label }).isVisible()).toBe(true);
    }
    expect(await page.getByRole('button', { name: 'Paiement de test' }).count()).toBe(0);
  });

  it('[PROVIDERS] crypto: pay stays disabled until a coin is chosen, then the invoice opens in a new tab with a notice', async () => {
    await page.getByRole('button', { name: 'Payer en crypto-monnaie' }).click();
    const panel = page.getByRole('region', { name: 'Paiement en crypto-monnaie' });
    await panel.waitFor();
    const pay = panel.getByRole('button', { name: /^Payer / });
    expect(await pay.isDisabled()).toBe(true);
    expect(await panel.getByText('9,90 € (EUR)').isVisible()).toBe(true);
    await panel.getByLabel('Crypto-monnaie').selectOption('BTC');
    expect(await pay.isDisabled()).toBe(false);
    await screenshot(page, 'subscribe-crypto-panel');
    const [tab] = await Promise.all([page.context().waitForEvent('page'), pay.click()]);
    await tab.waitForURL(new RegExp(`^${nowpayments.base}/payment/\\?iid=`));
    await page.getByText('Page de paiement ouverte').first().waitFor();
    expect(
      await page
        .getByText(/0\.000165 BTC/)
        .first()
        .isVisible(),
    ).toBe(true);
    await tab.close();
    // The notice goes away by itself after 10 seconds.
    await expect
      .poll(() => page.getByText('Page de paiement ouverte').count(), { timeout: 15_000, interval: 500 })
      .toBe(0);
  });

  it('[PROVIDERS] card: redirects to Stripe Checkout, and the return page activates the subscription', async () => {
    await page.getByRole('button', { name: 'Payer par carte' }).click();
    await page.waitForURL(new RegExp(`^${stripe.base}/checkout/cs_test_`));
    const sessionId = page.url().split('/').pop()!;
    const session = stripe.pay(sessionId);
    await page.goto(session.success_url);
    await page.getByRole('heading', { name: 'Paiement réussi !' }).waitFor();
    expect(await page.getByText('Starter (mensuel)').isVisible()).toBe(true);
  });

  it('[PROVIDERS] PayPal: redirects to the approval page, and the return with ?token= captures and activates', async () => {
    await openCheckout('Professional');
    await page.getByRole('button', { name: 'Payer avec PayPal' }).click();
    await page.waitForURL(new RegExp(`^${paypal.base}/checkoutnow\\?token=`));
    const orderId = new URL(page.url()).searchParams.get('token')!;
    paypal.approve(orderId);
    await page.goto(`${server.url}/payment-success?token=${orderId}&PayerID=PAYER1`);
    await page.getByRole('heading', { name: 'Paiement réussi !' }).waitFor();
    expect(await page.getByText('Professional (mensuel)').isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Accéder à mon espace client' }).click();
    await page.getByText('Professional').first().waitFor();
  });
});
