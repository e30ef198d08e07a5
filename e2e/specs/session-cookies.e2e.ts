import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, trackPageErrors } from '../support/browser';
import { customerSignIn, customerWithRing } from '../support/customer';
import { E2E_ADMIN, PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const EMAIL = 'ines.cookie@example.com';

/**
 * The session cookie `name` as the browser holds it: set by the server HttpOnly and SameSite=Strict.
 * Its value is returned to check that page scripts never see it.
 */
async function httpOnlySession(page: Page, name: string): Promise<string> {
  const cookie = (await page.context().cookies()).find((c) => c.name === name);
  expect(cookie, `${name} cookie`).toBeDefined();
  expect(cookie!.httpOnly).toBe(true);
  expect(cookie!.sameSite).toBe('Strict');
  return decodeURIComponent(cookie!.value);
}

/** What page scripts read of the cookies holds neither the token nor its cookie. */
async function expectHiddenFromScripts(page: Page, name: string, token: string): Promise<void> {
  const visible = await page.evaluate(() => document.cookie);
  expect(visible).not.toContain(`${name}=`);
  expect(visible).not.toContain(token);
  expect(visible).not.toContain(encodeURIComponent(token));
}

describe('[AUTH] session tokens out of page scripts (issue 27, L5)', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });

  it('[AUTH] the customer space and the Ring room work while document.cookie holds no session token', async () => {
    await customerWithRing(suite.server, suite.mailbox, EMAIL, 'Cercle Opaque');
    const page = await suite.page();
    const errors = trackPageErrors(page);
    await customerSignIn(page, suite.server, EMAIL);
    await page.getByRole('heading', { name: /^Bienvenue/ }).waitFor();
    const customerToken = await httpOnlySession(page, 'customer_token');
    await expectHiddenFromScripts(page, 'customer_token', customerToken);
    expect(await page.evaluate(() => document.cookie)).toContain('customer_csrf=');

    // « Accéder à mon Ring » is a cookie-authenticated write (with the CSRF header): the room opens.
    await page.getByRole('button', { name: 'Accéder à mon Ring' }).click();
    await page.waitForURL(`${suite.server.url}/ring`);
    await page.getByRole('dialog', { name: 'Phrase secrète' }).waitFor();
    const ringToken = await httpOnlySession(page, 'secureChat_token');
    await expectHiddenFromScripts(page, 'secureChat_token', ringToken);
    await expectHiddenFromScripts(page, 'customer_token', customerToken);
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { level: 1, name: 'Cercle Opaque' }).waitFor();
    // The realtime connection's stream token is minted by a POST with the cookie and CSRF header.
    await page.getByText('Temps réel :').locator('..').getByText('connecté').waitFor();
    await screenshot(page, 'auth-room-httponly-session');

    // A script's write without the CSRF header is refused, though the browser adds the cookie.
    const refused = await page.evaluate(async () => {
      const res = await fetch('/api/rings/mint-stream-token.php', { method: 'POST' });
      return { status: res.status, body: (await res.json()) as { error?: string } };
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/^Requête refusée/);

    // A reload keeps the room (the HttpOnly cookie lasts 7 days).
    await page.reload();
    await page.getByRole('dialog', { name: 'Phrase secrète' }).waitFor();

    // Logging out of the room ends the session and the server clears the cookie — even when the
    // page lost its CSRF cookie: the refusal brings it back and the client tries once more.
    await page.keyboard.press('Escape');
    await page.context().clearCookies({ name: 'secureChat_csrf' });
    await page.getByRole('button', { name: 'Déconnexion' }).click();
    await page.getByRole('heading', { name: 'Connexion au Ring' }).waitFor();
    await expect
      .poll(async () => (await page.context().cookies()).some((c) => c.name === 'secureChat_token'))
      .toBe(false);
    expect(errors).toEqual([]);
  });

  it('[AUTH] the admin console signs in, survives a reload and signs out with the HttpOnly cookie only', async () => {
    const page = await suite.page(1400, 900);
    const errors = trackPageErrors(page);
    await page.goto(`${suite.server.url}/admin`);
    await page.getByLabel('Nom d’utilisateur').fill(E2E_ADMIN.username);
    await page.getByLabel('Mot de passe', { exact: true }).fill(E2E_ADMIN.password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();
    const adminToken = await httpOnlySession(page, 'admin_token');
    await expectHiddenFromScripts(page, 'admin_token', adminToken);

    await page.reload();
    await page.getByText('Système opérationnel').waitFor();
    await expectHiddenFromScripts(page, 'admin_token', adminToken);
    await screenshot(page, 'auth-admin-httponly-session');

    await page.getByRole('button', { name: 'Déconnexion' }).click();
    await page.getByLabel('Nom d’utilisateur').waitFor();
    await expect
      .poll(async () => (await page.context().cookies()).some((c) => c.name === 'admin_token'))
      .toBe(false);
    expect(errors).toEqual([]);
  });
});
