import { RING_CLOSE_GRACE_SEC } from '@securering/contract';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser';
import { adminLogin, apiJson as api, invitedMember, saveSettings, type RingLogin } from '../support/api';
import { customerWithRing } from '../support/customer';
import { enterRoomWithSession, openUnlockedRoom } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'oscar.onglets@example.com';
const RING = 'Équipe Onglets';
const MEMBER_PASSWORD = 'Membre-Pass-123';
/** Past the server's grace, with room for a loaded machine. */
const PAST_GRACE_MS = (RING_CLOSE_GRACE_SEC + 3) * 1000;

/**
 * Issue 25: a Ring session ends when the browser's last Ring tab (room or popup) closes, after a
 * grace a reload cancels; the room refreshes at the back office's interval.
 */
describe('[RINGS] Ring tabs and the room’s refresh', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let customerToken = '';
  let ringId = '';

  beforeAll(async () => {
    ({ customerToken, ringId } = await customerWithRing(suite.server, suite.mailbox, OWNER, RING));
  });

  const member = (name: string) =>
    invitedMember(suite.server.url, customerToken, ringId, name, MEMBER_PASSWORD);
  /** What the server answers to the session now: 200 while it lives, 401 once ended. */
  const sessionStatus = async (login: RingLogin) =>
    (
      await fetch(`${suite.server.url}/api/rings/info.php`, {
        headers: { Authorization: `Bearer ${login.token}` },
      })
    ).status;
  const roomTitle = (page: Page) => page.locator('h1', { hasText: RING });
  const openRoom = async (page: Page, login: RingLogin) => {
    await enterRoomWithSession(page, suite.server.url, login);
  };

  it('[RINGS] a member sets its call and message notifications in the room, kept by the server', async () => {
    const login = await member('noemie');
    const room = await suite.page();
    await openUnlockedRoom(
      room,
      suite.server.url,
      login,
      'Clairière violette, 42 gouttes sous la pluie d’automne',
    );
    await room.getByRole('button', { name: 'Couper les notifications' }).click();
    await room.getByRole('button', { name: 'Préférences de notification…' }).click();
    const dialog = room.getByRole('dialog', { name: 'Préférences de notification' });
    await dialog.getByLabel('Sonnerie', { exact: true }).selectOption('urgent');
    await dialog.getByRole('switch', { name: 'Son des messages' }).click();
    await screenshot(room, 'room-notification-preferences');
    await dialog.getByRole('button', { name: 'Enregistrer' }).click();
    await room.getByText('Préférences enregistrées').first().waitFor();
    const { settings } = await api<{ settings: { ringtone: string; messageSound: boolean } }>(
      suite.server.url,
      'GET',
      '/api/notifications/get-settings.php',
      undefined,
      login.token,
    );
    expect(settings).toMatchObject({ ringtone: 'urgent', messageSound: false });
  }, 120_000);

  it('[RINGS] a reload keeps the session; closing the last Ring tab ends it after the grace', async () => {
    const login = await member('lea');
    const room = await suite.page();
    await openRoom(room, login);

    // A reload is a closed page followed by the same session at once: the session stays.
    await room.reload();
    // The room's title, under the passphrase dialog (modal: the rest of the page is hidden from roles).
    await roomTitle(room).waitFor();
    await room.waitForTimeout(PAST_GRACE_MS);
    expect(await sessionStatus(login)).toBe(200);

    // A second Ring tab (as the DM and call popups are) keeps the session when the first closes.
    const second = await room.context().newPage();
    await second.goto(`${suite.server.url}/ring`);
    await roomTitle(second).waitFor();
    await room.close();
    await second.waitForTimeout(PAST_GRACE_MS);
    expect(await sessionStatus(login)).toBe(200);

    // The last one closes: the session ends after the grace.
    await second.close();
    await new Promise((resolve) => setTimeout(resolve, PAST_GRACE_MS));
    expect(await sessionStatus(login)).toBe(401);
  }, 120_000);

  it('[RINGS] the room refreshes at the interval set in the back office', async () => {
    await saveSettings(suite.server.url, await adminLogin(suite.server.url), 'general', {
      ring_refresh_interval: '5',
    });
    const login = await member('theo');
    const room = await suite.page();
    await openRoom(room, login);
    let refreshes = 0;
    room.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/rings/info.php') refreshes += 1;
    });
    // 5 s apart: at least two in 12 s (the old fixed minute gave none).
    await room.waitForTimeout(12_000);
    expect(refreshes).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
