import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { adminLogin, apiJson } from '../support/api';
import { newContext, screenshot, trackPageErrors } from '../support/browser';
import { useSuite } from '../support/suite';

describe('[PUBLIC] home, contact and legal pages', () => {
  const suite = useSuite();

  it('[PUBLIC] home shows the hero badges, the security levels, the plans with the popular plan, and the advanced features', async () => {
    const context = await newContext(suite.browser);
    await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
    const page = await context.newPage();
    const errors = trackPageErrors(page);
    await page.goto(`${suite.server.url}/`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const features = page.getByRole('list', { name: 'Fonctionnalités' });
    for (const badge of ['Chat Sécurisé', 'Appels Vocaux', 'Visioconférence']) {
      expect(await features.getByText(badge).isVisible()).toBe(true);
    }
    for (const level of ['Basic', 'Standard', 'Militaire']) {
      expect(await page.getByRole('heading', { name: level, exact: true }).isVisible()).toBe(true);
    }
    const plans = page.locator('article[aria-label^="Plan "]');
    await plans.first().waitFor();
    expect(await plans.count()).toBe(3);
    const pro = page.getByRole('article', { name: 'Plan Professional' });
    await pro.getByText('Populaire').waitFor();
    expect(await pro.getByText('29,90 €').isVisible()).toBe(true);
    expect(await pro.getByText('+9,90 € / mois').isVisible()).toBe(true);
    const enterprise = page.getByRole('article', { name: 'Plan Enterprise' });
    expect(await enterprise.getByText('Utilisateurs : Illimité').isVisible()).toBe(true);
    expect(await enterprise.getByText('✓ Vidéo incluse').isVisible()).toBe(true);
    expect(await page.getByRole('article', { name: 'Plan Starter' }).getByText('Populaire').count()).toBe(0);
    for (const title of ['Passphrase personnelle', 'Messages éphémères', 'Gestion d’équipe']) {
      expect(await page.getByRole('heading', { name: title }).isVisible()).toBe(true);
    }
    // The product derives keys from each member's own passphrase, not one per Ring (issue 25).
    expect(
      await page.getByText('Chaque membre a sa propre phrase secrète', { exact: false }).isVisible(),
    ).toBe(true);
    expect(await page.getByText(/Chaque Ring a sa propre phrase/).count()).toBe(0);
    // Meta from settings, rendered by the suite.server for link previews.
    expect(await page.title()).toBe('SecureRing — Communication privée chiffrée de bout en bout');
    expect(await page.locator('meta[name="description"]').getAttribute('content')).toContain(
      'chiffrés de bout en bout',
    );
    expect(await page.locator('meta[property="og:title"]').getAttribute('content')).toContain('SecureRing');
    await screenshot(page, 'home-desktop');
    await pro.getByRole('button', { name: 'Commencer' }).click();
    await page.waitForURL(`${suite.server.url}/register`);
    expect(errors).toEqual([]);

    const mobile = await newContext(suite.browser, 375, 800);
    await mobile.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
    const small = await mobile.newPage();
    await small.goto(`${suite.server.url}/`);
    await small.locator('article[aria-label^="Plan "]').first().waitFor();
    const width = await small.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(375);
    await screenshot(small, 'home-mobile-375');
    await mobile.close();
    await context.close();
  });

  it('[PUBLIC] contact validates with the spec messages, then sends', async () => {
    const context = await newContext(suite.browser);
    await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
    const page = await context.newPage();
    await page.goto(`${suite.server.url}/contact`);
    await page.getByText('contact@securering.fr').waitFor();
    expect(await page.getByText(/réponse dans les 24 heures ouvrables/).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Envoyer' }).click();
    for (const message of [
      'Le nom est requis',
      'Email invalide',
      'Le sujet est requis',
      'Le message doit contenir au moins 10 caractères',
    ]) {
      await page.getByText(message).waitFor();
    }
    await page.getByLabel('Nom').fill('Jeanne Martin');
    await page.getByLabel('Email').fill('jeanne@example.com');
    await page.getByLabel('Sujet').fill('Question sur les Rings');
    await page.getByLabel('Message').fill('Combien de Rings puis-je créer avec le plan Professional ?');
    await screenshot(page, 'contact');
    await page.getByRole('button', { name: 'Envoyer' }).click();
    await page.getByRole('status').filter({ hasText: 'Message envoyé' }).first().waitFor();
    expect(await page.getByLabel('Nom').inputValue()).toBe('');
    await context.close();
  });

  it('[PUBLIC] legal pages ship a French model, say when an operator emptied them, and render stored HTML without anything hostile', async () => {
    const context = await newContext(suite.browser);
    await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
    const page = await context.newPage();
    await page.goto(`${suite.server.url}/legal`);
    await page.getByText('Modèle à adapter.').waitFor();
    await page.getByRole('heading', { name: 'Directeur de la publication' }).waitFor();

    // Bypass the server's own sanitising to prove the page sanitises again when rendering.
    const db = new Database(path.join(suite.server.dataDir, 'securering.sqlite'));
    db.prepare(
      "update settings set setting_value = '' where category = 'legal' and key = 'privacy_content'",
    ).run();
    await page.goto(`${suite.server.url}/privacy`);
    await page.getByText('Le contenu de cette page n’a pas encore été configuré').waitFor();
    db.prepare(
      "update settings set setting_value = ? where category = 'legal' and key = 'terms_content'",
    ).run(
      '<h2>Article 1 — Objet</h2><p style="position:fixed;inset:0">Les présentes CGU régissent SecureRing.</p>' +
        '<img src="x" onerror="window.__xss=1"><script>window.__xss=2</script>' +
        '<a id="bad" href="javascript:window.__xss=3">lien</a><a id="good" href="https://example.org/cgu">source</a>',
    );
    db.close();
    await page.goto(`${suite.server.url}/terms`);
    await page.getByRole('heading', { name: 'Article 1 — Objet' }).waitFor();
    const article = page.locator('article.rich-content');
    expect(await article.locator('img, script').count()).toBe(0);
    expect(await article.locator('[style]').count()).toBe(0);
    expect(await article.locator('#bad').getAttribute('href')).toBeNull();
    expect(await article.locator('#good').getAttribute('href')).toBe('https://example.org/cgu');
    await page.locator('#bad').click();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await screenshot(page, 'terms');
    await context.close();
  });

  it('[PUBLIC] highlights the plans the back office marks popular, in the back office’s order', async () => {
    const token = await adminLogin(suite.server.url);
    const admin = await apiJson<{ data: Array<{ id: string; slug: string }> }>(
      suite.server.url,
      'GET',
      '/api/admin/plans.php',
      undefined,
      token,
    );
    const id = (slug: string) => admin.data.find((p) => p.slug === slug)!.id;
    const put = (body: object) => apiJson(suite.server.url, 'PUT', '/api/admin/plans.php', body, token);
    expect(await put({ id: id('professional'), popular: false })).toMatchObject({ success: true });
    expect(await put({ id: id('enterprise'), popular: true })).toMatchObject({ success: true });
    expect(
      await apiJson(
        suite.server.url,
        'POST',
        '/api/admin/plans-order.php',
        { ids: [id('enterprise'), id('starter'), id('professional')] },
        token,
      ),
    ).toMatchObject({ success: true });

    const context = await newContext(suite.browser);
    await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
    const page = await context.newPage();
    await page.goto(`${suite.server.url}/`);
    const plans = page.locator('article[aria-label^="Plan "]');
    await plans.first().waitFor();
    expect(await plans.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('aria-label')))).toEqual([
      'Plan Enterprise',
      'Plan Starter',
      'Plan Professional',
    ]);
    // The flag decides, not the position: the first plan is the popular one, the second is not.
    await page.getByRole('article', { name: 'Plan Enterprise' }).getByText('Populaire').waitFor();
    for (const name of ['Plan Starter', 'Plan Professional']) {
      expect(await page.getByRole('article', { name }).getByText('Populaire').count()).toBe(0);
    }
    await screenshot(page, 'home-popular-from-back-office');
    await context.close();
  });
});
