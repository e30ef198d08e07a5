import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser';
import { apiJson as api, invitedMember, type RingLogin } from '../support/api';
import { customerWithRing } from '../support/customer';
import { enterRoomWithSession } from '../support/room';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'paul.protection@example.com';
const RING = 'Équipe Protection';
const MEMBER_PASSWORD = 'Membre-Pass-123';

/** The page zoomed to 125 %: the inner size (CSS px) is the outer size / 1.25, plus an 80 px toolbar. */
const ZOOM_125 = () => {
  Object.defineProperty(window, 'outerWidth', { get: () => Math.round(window.innerWidth * 1.25) });
  Object.defineProperty(window, 'outerHeight', { get: () => Math.round(window.innerHeight * 1.25) + 80 });
  Object.defineProperty(window, 'devicePixelRatio', { get: () => 1.25 });
};
/** Devtools docked on the right, 400 px wide, no zoom. */
const DOCKED_DEVTOOLS = () => {
  Object.defineProperty(window, 'outerWidth', { get: () => window.innerWidth + 400 });
  Object.defineProperty(window, 'outerHeight', { get: () => window.innerHeight + 80 });
  Object.defineProperty(window, 'devicePixelRatio', { get: () => 1 });
};
/** The window loses the focus for real (another application, or a popup, took it). */
const loseFocus = (page: Page) =>
  page.evaluate(() => {
    document.hasFocus = () => false;
    window.dispatchEvent(new Event('blur'));
  });
const gainFocus = (page: Page) =>
  page.evaluate(() => {
    document.hasFocus = () => true;
    window.dispatchEvent(new Event('focus'));
  });

/**
 * Issue 28, anti-capture defaults: at standard, neither focus loss nor a zoomed page masks the chat;
 * at maximum, focus loss masks except when a popup of the Ring takes the focus, and the devtools
 * heuristic ignores zoom but still sees a docked panel.
 */
describe('[PROTECTION] anti-capture defaults', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let customerToken = '';
  let ringId = '';

  beforeAll(async () => {
    ({ customerToken, ringId } = await customerWithRing(suite.server, suite.mailbox, OWNER, RING));
  });

  const member = (name: string) =>
    invitedMember(suite.server.url, customerToken, ringId, name, MEMBER_PASSWORD);
  const setLevel = (level: 'standard' | 'maximum') =>
    api(
      suite.server.url,
      'PUT',
      '/api/customer/rings.php',
      {
        ring_id: ringId,
        screen_protection_level: level,
        screen_devtools_protection: true,
        screen_visibility_protection: true,
        screen_experimental_features: level === 'maximum',
        screen_recording_detection: level === 'maximum',
      },
      customerToken,
    );
  const room = async (login: RingLogin, level: string, init: () => void, width = 1280, height = 800) => {
    const page = await suite.page(width, height);
    await page.addInitScript(init);
    await enterRoomWithSession(page, suite.server.url, login);
    await page.locator(`[data-protection-level="${level}"]`).first().waitFor({ state: 'attached' });
    return page;
  };
  const overlay = (page: Page) => page.getByTestId('protection-overlay');

  for (const [device, width, height] of [
    ['desktop', 1280, 800],
    ['phone', 390, 844],
  ] as const) {
    it(`[PROTECTION] standard (${device}): zoom at 125 % and focus loss leave the chat shown`, async () => {
      await setLevel('standard');
      const page = await room(await member(`std${device}`), 'standard', ZOOM_125, width, height);
      await page.waitForTimeout(1200); // two devtools checks
      expect(await overlay(page).count()).toBe(0);
      await loseFocus(page);
      await page.waitForTimeout(800);
      expect(await overlay(page).count()).toBe(0);
      await screenshot(page, `protection-standard-blur-${device}`);
      // A hidden tab still masks at standard (the visibility switch).
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { get: () => 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      await overlay(page).waitFor();
      expect(await overlay(page).getAttribute('data-reason')).toBe('inactive');
    }, 120_000);
  }

  it('[PROTECTION] maximum: zoom is not devtools, a docked panel is; focus to a Ring popup never masks', async () => {
    await setLevel('maximum');
    const login = await member('maxi');
    const zoomed = await room(login, 'maximum', ZOOM_125);
    await zoomed.waitForTimeout(1200);
    expect(await overlay(zoomed).count()).toBe(0);

    const docked = await room(login, 'maximum', DOCKED_DEVTOOLS);
    await overlay(docked).waitFor();
    expect(await overlay(docked).getAttribute('data-reason')).toBe('devtools');
    await docked.close();

    // Focus lost to another application: masked, shown again on return.
    await loseFocus(zoomed);
    await overlay(zoomed).waitFor();
    expect(await overlay(zoomed).getAttribute('data-reason')).toBe('inactive');
    await gainFocus(zoomed);
    await overlay(zoomed).waitFor({ state: 'detached' });

    // A DM popup of the Ring (same browser) takes the focus: the room stays shown.
    const popup = await zoomed.context().newPage();
    await popup.goto(`${suite.server.url}/ring?convId=room`);
    await popup.locator('[data-protection-level="maximum"]').first().waitFor({ state: 'attached' });
    await gainFocus(popup);
    await loseFocus(zoomed);
    await zoomed.waitForTimeout(2000);
    expect(await overlay(zoomed).count()).toBe(0);
    await screenshot(zoomed, 'protection-maximum-popup-focus');
    // The popup closes without the focus coming back: masked.
    await popup.close();
    await overlay(zoomed).waitFor({ timeout: 5000 });
  }, 120_000);
});
