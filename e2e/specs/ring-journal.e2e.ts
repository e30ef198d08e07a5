import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiJson as api, invitedMember } from '../support/api';
import { screenshot, trackPageErrors } from '../support/browser';
import { CUSTOMER_PASSWORD, customerSignIn, subscribedCustomer } from '../support/customer';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'jules.journal@example.com';
const RING = 'Équipe Journal';

/**
 * Issue 25: « Journal » in the customer space of an Enterprise customer (its plan lists « Audit
 * logs »): the signed log's entries and the server's records, newest first, exported as CSV.
 */
describe('[JOURNAL] the Ring journal of the customer space', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });

  it('[JOURNAL] shows who joined and the settings changed, newest first, and exports them as CSV', async () => {
    await subscribedCustomer(suite.server, suite.mailbox, OWNER, 'Enterprise');
    const { token } = await api<{ token: string }>(suite.server.url, 'POST', '/api/auth/customer-login.php', {
      email: OWNER,
      password: CUSTOMER_PASSWORD,
    });
    const ringId = (
      await api<{ data: { id: string } }>(
        suite.server.url,
        'POST',
        '/api/customer/rings.php',
        { name: RING },
        token,
      )
    ).data.id;
    await invitedMember(suite.server.url, token, ringId, '=bob', 'Membre-Pass-123');
    await api(
      suite.server.url,
      'PUT',
      '/api/customer/rings.php',
      { ring_id: ringId, allow_video: false },
      token,
    );

    const page = await suite.page();
    const errors = trackPageErrors(page);
    await customerSignIn(page, suite.server, OWNER);
    await page.getByRole('tab', { name: 'Statistiques' }).waitFor();
    await page.goto(`${suite.server.url}/client?ring=${ringId}`);
    await page.getByRole('tab', { name: 'Journal' }).click();
    const events = page.getByRole('list', { name: 'Événements du Ring' });
    await events.waitFor();
    const texts = await events.locator('li > span:first-child').allInnerTexts();
    // The signed log's entries (« Journal signé n° … ») come from the room: API test ring-journal.test.ts.
    expect(texts).toEqual([
      'Paramètres modifiés\u202f: vidéo',
      '=bob a rejoint le Ring (invitation acceptée)',
      'Invitation créée pour =bob',
    ]);
    expect(await events.getByText('Serveur').count()).toBe(3);
    await page.getByText('ce sont les membres qui vérifient le journal signé').waitFor();
    await screenshot(page, 'customer-ring-journal');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Exporter le journal (CSV)' }).click(),
    ]);
    const csv = fs.readFileSync(await download.path(), 'utf8');
    expect(csv.startsWith('\uFEFFDate (UTC);Événement;Source;N° du lien signé\r\n')).toBe(true);
    // A name that starts like a formula stays text in a spreadsheet.
    expect(csv).toContain(";'=bob a rejoint le Ring (invitation acceptée);Serveur;");
    expect(csv).toMatch(/;Invitation créée pour =bob;Serveur;\r\n$/);
    expect(errors).toEqual([]);
  });
});
