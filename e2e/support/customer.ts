import type { Page } from 'playwright-core';
import { linkIn, type SmtpCatcher } from './mailbox';
import { apiJson } from './api';
import type { RunningServer } from './server';

export const CUSTOMER_PASSWORD = 'Secret123';

/**
 * A verified customer with an active subscription to `planName`, made through the public calls
 * (register, mailed verification link, test provider checkout). The server must run with
 * PAYMENT_TEST_MODE=1 (`PAYMENT_TEST_MODE_ENV`).
 */
export async function subscribedCustomer(
  server: RunningServer,
  mailbox: SmtpCatcher,
  email: string,
  planName = 'Enterprise',
): Promise<void> {
  const post = async (path: string, body: object, token?: string) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  await post('/api/auth/register.php', {
    email,
    first_name: 'Claire',
    last_name: 'Fontaine',
    password: CUSTOMER_PASSWORD,
    confirm_password: CUSTOMER_PASSWORD,
    company: 'Fontaine & Associés',
    accept_terms: true,
    accept_privacy: true,
  });
  const mail = await mailbox.waitFor((m) => m.to.includes(email) && m.subject.includes('confirmez'));
  await fetch(
    linkIn(mail.text, '/verify-email?token=').replace('/verify-email?', '/api/auth/verify-email.php?'),
  );
  const login = await post('/api/auth/customer-login.php', { email, password: CUSTOMER_PASSWORD });
  const token = String(login.token);
  const plans = (await (await fetch(`${server.url}/api/subscriptions/plans.php`)).json()) as {
    data: Array<{ id: string; name: string }>;
  };
  const plan = plans.data.find((p) => p.name === planName)!;
  const providers = (await (await fetch(`${server.url}/api/subscriptions/providers.php`)).json()) as {
    providers: { test: boolean };
  };
  if (!providers.providers.test)
    throw new Error('subscribedCustomer needs the test provider: start the server with PAYMENT_TEST_MODE=1');
  const checkout = await post(
    '/api/subscriptions/create-test-checkout.php',
    { plan_id: plan.id, billing_period: 'yearly', video_option: true },
    token,
  );
  const sessionId = new URL(String(checkout.checkout_url), server.url).searchParams.get('session_id');
  await post('/api/subscriptions/test-checkout.php', { session_id: sessionId, action: 'approve' }, token);
}

/** Signs the customer in through the login screen. */
export async function customerSignIn(page: Page, server: RunningServer, email: string): Promise<void> {
  await page.goto(`${server.url}/client`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(CUSTOMER_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
}

/**
 * A subscribed customer (see {@link subscribedCustomer}) signed in through the API, with one Ring
 * of `ringName` created: what most room specs start from.
 */
export async function customerWithRing(
  server: RunningServer,
  mailbox: SmtpCatcher,
  email: string,
  ringName: string,
): Promise<{ customerToken: string; ringId: string }> {
  await subscribedCustomer(server, mailbox, email);
  const { token: customerToken } = await apiJson<{ token: string }>(
    server.url,
    'POST',
    '/api/auth/customer-login.php',
    { email, password: CUSTOMER_PASSWORD },
  );
  const ring = await apiJson<{ data: { id: string } }>(
    server.url,
    'POST',
    '/api/customer/rings.php',
    { name: ringName },
    customerToken,
  );
  return { customerToken, ringId: ring.data.id };
}
