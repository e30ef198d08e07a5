import { describe, expect, it } from 'vitest';
import { adminSession, saveSettings } from '../support/api';
import { newContext, screenshot, trackPageErrors } from '../support/browser';
import { sessionDataCookie, sessionTokenCookie } from '../support/room';
import { useSuite } from '../support/suite';

describe('[SHELL] global behaviours of the web app', () => {
  const suite = useSuite();

  it('[SHELL] shows the header, footer and cookie banner, and remembers the consent', async () => {
    const context = await newContext(suite.browser);
    const page = await context.newPage();
    const errors = trackPageErrors(page);
    await page.goto(`${suite.server.url}/`);
    const header = page.getByRole('banner');
    await expect.poll(() => header.getByText('SecureRing').first().isVisible()).toBe(true);
    for (const label of ['Accueil', 'Contact', 'Espace Client', 'Admin', 'Accès Ring']) {
      expect(await header.getByRole('link', { name: label, exact: true }).isVisible()).toBe(true);
    }
    const footer = page.getByRole('contentinfo');
    for (const label of ['Contact', 'CGU', 'Confidentialité', 'Mentions légales']) {
      expect(await footer.getByRole('link', { name: label }).isVisible()).toBe(true);
    }
    expect(await footer.getByText('© 2026 SecureRing. Tous droits réservés.').isVisible()).toBe(true);
    expect(await page.title()).toContain('SecureRing');

    const banner = page.getByRole('region', { name: 'Consentement aux cookies' });
    // The banner's code loads only while no consent is stored: wait for it, then it must show.
    await banner.waitFor();
    expect(await banner.isVisible()).toBe(true);
    await screenshot(page, 'shell-home-desktop');
    await banner.getByRole('button', { name: 'Personnaliser' }).click();
    const dialog = page.getByRole('dialog');
    // The preferences dialog is loaded when first asked for.
    await dialog.getByText('Personnaliser les cookies').waitFor();
    expect(await dialog.getByText('Personnaliser les cookies').isVisible()).toBe(true);
    expect(await dialog.getByRole('switch', { name: 'Nécessaires (toujours actifs)' }).isDisabled()).toBe(
      true,
    );
    await dialog.getByRole('switch', { name: 'Statistiques' }).click();
    await screenshot(page, 'shell-cookie-dialog');
    await dialog.getByRole('button', { name: 'Sauvegarder' }).click();
    expect(await banner.isVisible()).toBe(false);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'cookie_consent')?.value).toBe('custom');
    const prefs = JSON.parse(decodeURIComponent(cookies.find((c) => c.name === 'cookie_preferences')!.value));
    expect(prefs).toEqual({ necessary: true, functional: false, analytics: true, marketing: false });
    const consent = cookies.find((c) => c.name === 'cookie_consent')!;
    expect(consent.expires * 1000 - Date.now()).toBeGreaterThan(364 * 86_400_000);
    expect(consent.sameSite).toBe('Lax');

    await page.reload();
    await page.getByRole('banner').waitFor();
    expect(await page.getByRole('region', { name: 'Consentement aux cookies' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('[SHELL] collapses the header into a drawer from the right at 375 px, without the admin link', async () => {
    const context = await newContext(suite.browser, 375, 740);
    const page = await context.newPage();
    await page.goto(`${suite.server.url}/`);
    const header = page.getByRole('banner');
    await header.getByRole('button', { name: 'Ouvrir le menu' }).waitFor();
    expect(await header.getByRole('link', { name: 'Admin', exact: true }).isVisible()).toBe(false);
    await header.getByRole('button', { name: 'Ouvrir le menu' }).click();
    const drawer = page.getByRole('dialog');
    await drawer.getByRole('link', { name: 'Espace Client' }).waitFor();
    const box = await drawer.boundingBox();
    expect(box!.x + box!.width).toBeGreaterThanOrEqual(374);
    expect(await drawer.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await screenshot(page, 'shell-mobile-drawer');
    await drawer.getByRole('link', { name: 'Contact' }).click();
    await page.waitForURL(`${suite.server.url}/contact`);
    await context.close();
  });

  it('[SHELL] shows "Page introuvable" with a 404 for unknown routes and links back home', async () => {
    const context = await newContext(suite.browser);
    const page = await context.newPage();
    const response = await page.goto(`${suite.server.url}/cette-page-n-existe-pas`);
    expect(response?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Page introuvable' }).waitFor();
    await screenshot(page, 'shell-404');
    await page.getByRole('link', { name: 'Retour à l’accueil' }).click();
    await page.waitForURL(`${suite.server.url}/`);
    await context.close();
  });

  it('[SHELL] redirects any page opened with an invite to /ring-access, keeping the invite', async () => {
    const context = await newContext(suite.browser);
    const page = await context.newPage();
    await page.goto(`${suite.server.url}/?invite=ABC123XYZ`);
    await page.waitForURL(`${suite.server.url}/ring-access?invite=ABC123XYZ`);
    await page.goto(`${suite.server.url}/contact?invite=K%26Z`);
    await page.waitForURL(/\/ring-access\?invite=K%26Z$/);
    await context.close();
  });

  it('[SHELL] shows back-to-top after 300 px of scroll', async () => {
    const context = await newContext(suite.browser, 1280, 400);
    const page = await context.newPage();
    await page.goto(`${suite.server.url}/`);
    await page.getByRole('banner').waitFor();
    await page.evaluate(() => {
      document.body.style.minHeight = '3000px';
    });
    expect(await page.getByRole('button', { name: 'Retour en haut' }).count()).toBe(0);
    await page.mouse.wheel(0, 600);
    await page.getByRole('button', { name: 'Retour en haut' }).waitFor();
    await page.getByRole('button', { name: 'Retour en haut' }).click();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await context.close();
  });

  it('[SHELL] maintenance mode hides every page but /admin, and admins see the site', async () => {
    const { token, admin } = await adminSession(suite.server.url);
    await saveSettings(suite.server.url, token, 'maintenance', { maintenance_mode: '1' });
    try {
      const context = await newContext(suite.browser);
      const page = await context.newPage();
      for (const path of ['/', '/contact', '/client', '/ring', '/register']) {
        await page.goto(`${suite.server.url}${path}`);
        await page.getByRole('heading', { name: 'Site en maintenance' }).waitFor();
      }
      await screenshot(page, 'shell-maintenance');
      await page.goto(`${suite.server.url}/admin`);
      await page.getByRole('heading', { name: 'Site en maintenance' }).waitFor({ state: 'detached' });
      expect(await page.getByRole('heading', { name: 'Site en maintenance' }).count()).toBe(0);

      // A signed-in admin (the admin cookies set) sees the public pages.
      await context.addCookies([
        sessionTokenCookie('admin_token', token, suite.server.url),
        sessionDataCookie('admin_user', admin, suite.server.url),
      ]);
      await page.goto(`${suite.server.url}/contact`);
      await page.getByRole('banner').waitFor();
      expect(await page.getByRole('heading', { name: 'Site en maintenance' }).count()).toBe(0);
      await context.close();
    } finally {
      await saveSettings(suite.server.url, token, 'maintenance', { maintenance_mode: '0' });
    }
  });
});
