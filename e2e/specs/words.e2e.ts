import { describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser';
import { apiJson, invitedMember } from '../support/api';
import { CUSTOMER_PASSWORD, customerSignIn, customerWithRing } from '../support/customer';
import { filesTab, openFilesTab } from '../support/files';
import { enterRoomWithSession, saveRecoveryKey } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'wanda.words@example.com';
const RING = 'Équipe Mots';

/**
 * Issue 28 « Words »: the product speaks French where the old one did not, greets by name, writes
 * numbers as French readers do, offers delay presets, says who is online now, explains each
 * protection level, and keeps the back-office link away from customers.
 */
describe('[WORDS] French words, numbers and presence in the public site and the customer space', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });

  it('[WORDS] a visitor reads French plan features and sees the « Admin » link; a signed-in customer does not', async () => {
    const visitor = await suite.page();
    await visitor.goto(suite.server.url);
    const nav = visitor.getByRole('navigation', { name: 'Navigation principale' });
    await nav.getByRole('link', { name: 'Admin' }).waitFor();
    await visitor.getByText('Journal d’audit').first().waitFor();
    await visitor.getByText('Tableau de bord analytique').first().waitFor();
    expect(await visitor.getByText(/Audit logs|Dashboard analytics/).count()).toBe(0);

    const { customerToken, ringId } = await customerWithRing(suite.server, suite.mailbox, OWNER, RING);
    const owner = await suite.page();
    await customerSignIn(owner, suite.server, OWNER);
    await owner.getByRole('heading', { name: 'Bienvenue, Claire Fontaine' }).waitFor();
    await owner.goto(suite.server.url);
    await owner.getByRole('link', { name: 'Accès Ring' }).first().waitFor();
    expect(
      await owner
        .getByRole('navigation', { name: 'Navigation principale' })
        .getByRole('link', { name: 'Admin' })
        .count(),
    ).toBe(0);
    await screenshot(owner, 'words-home-customer-no-admin-link');

    // « En ligne » for a member with the room open now, its last visit otherwise.
    const login = await invitedMember(suite.server.url, customerToken, ringId, 'ines', 'Membre-Pass-123');
    await owner.goto(`${suite.server.url}/client`);
    const row = owner.getByRole('row', { name: /ines/ });
    await row.waitFor();
    expect(await row.getByText('En ligne', { exact: true }).count()).toBe(0);
    const room = await suite.page();
    await enterRoomWithSession(room, suite.server.url, login);
    await owner.reload();
    await owner.getByRole('row', { name: /ines/ }).getByText('En ligne', { exact: true }).waitFor();
    await screenshot(owner, 'words-users-online');
    await room.close();

    // The self-destruct delay: French thousands, presets.
    await owner.getByRole('tab', { name: 'Paramètres Ring' }).click();
    await owner.getByLabel('Messages éphémères').click();
    await owner.getByText('Entre 10 et 86\u202f400 secondes (1\u00a0jour)', { exact: false }).waitFor();
    const presets = owner.getByRole('group', { name: 'Délais courants' });
    await presets.getByRole('button', { name: '1\u00a0jour' }).click();
    expect(await owner.getByLabel('Délai d’autodestruction (secondes)').inputValue()).toBe('86400');
    await presets.getByRole('button', { name: '30\u00a0s' }).click();
    expect(await owner.getByLabel('Délai d’autodestruction (secondes)').inputValue()).toBe('30');
    expect(await presets.getByRole('button', { name: '30\u00a0s' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await screenshot(owner, 'words-delay-presets');

    // Each protection level's effect is said next to it.
    await owner.getByRole('tab', { name: 'Protection anti-capture' }).click();
    const effects = owner.getByRole('list', { name: 'Effet de chaque niveau' });
    for (const text of [
      'aucune protection',
      'raccourcis de capture',
      'filigrane',
      'sélection du texte bloquée',
    ])
      await effects.getByText(text, { exact: false }).waitFor();
    expect(await effects.getByRole('listitem').count()).toBe(4);
  }, 180_000);

  it('[WORDS] on a touch phone the file space offers no drag and drop, says the size limit, and follows a new limit live', async () => {
    const phoneContext = await suite.browser.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    await phoneContext.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
    try {
      const phone = await phoneContext.newPage();
      await phone.goto(`${suite.server.url}/ring`);
      await phone.getByLabel('Email').fill(OWNER);
      await phone.getByLabel('Mot de passe', { exact: true }).fill(CUSTOMER_PASSWORD);
      await phone.getByRole('button', { name: 'Se connecter' }).click();
      const dialog = phone.getByRole('dialog', { name: 'Phrase secrète' });
      await dialog.waitFor();
      const phrase = 'Girafe orange, 17 parapluies sous la grêle de mars';
      await dialog.getByLabel('Phrase secrète', { exact: true }).fill(phrase);
      await dialog.getByLabel('Confirmer la phrase secrète').fill(phrase);
      await dialog.getByRole('button', { name: 'Créer ma phrase secrète' }).click();
      await saveRecoveryKey(phone);
      await phone.locator('[data-e2ee-state="active"]').first().waitFor();
      await openFilesTab(phone);
      const tab = filesTab(phone);
      await tab.getByText('Choisissez les fichiers à envoyer.', { exact: true }).waitFor();
      expect(await tab.getByText('Glissez-déposez vos fichiers ici').count()).toBe(0);
      await tab.getByText('Taille maximale par fichier\u202f: 10\u00a0Mo', { exact: true }).waitFor();
      await screenshot(phone, 'words-phone-files');

      // The owner raises the limit in the customer space: the open room follows without a reload.
      const { token } = await apiJson<{ token: string }>(
        suite.server.url,
        'POST',
        '/api/auth/customer-login.php',
        {
          email: OWNER,
          password: CUSTOMER_PASSWORD,
        },
      );
      const rings = await apiJson<{ data: Array<{ id: string }> }>(
        suite.server.url,
        'GET',
        '/api/customer/rings.php',
        undefined,
        token,
      );
      await apiJson(
        suite.server.url,
        'PUT',
        '/api/customer/rings.php',
        { ring_id: rings.data[0]!.id, max_file_size: 25 },
        token,
      );
      await tab.getByText('Taille maximale par fichier\u202f: 25\u00a0Mo', { exact: true }).waitFor();
    } finally {
      await phoneContext.close();
    }
  }, 180_000);
});
