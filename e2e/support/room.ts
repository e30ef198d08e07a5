import type { BrowserContext, Locator, Page } from 'playwright-core';

/**
 * What the owner or a Ring admin does in the room when a newcomer waits for admission (issue 24):
 * « Admettre {username} » in the users panel, compare the safety number in the dialog (the newcomer's
 * own, read from its page when given), tick « Partager l'historique » when asked, then « Admettre ».
 * Resolves once the dialog closed (the admission is signed and stored).
 */
export async function admitInRoom(
  admitter: Page,
  username: string,
  options: { newcomer?: Page; shareHistory?: boolean; onDialog?: (dialog: Locator) => Promise<void> } = {},
): Promise<void> {
  const button = admitter.getByRole('button', { name: `Admettre ${username}` });
  await button.waitFor({ timeout: 20_000 });
  await button.click();
  const dialog = admitter.getByRole('dialog', { name: `Admettre ${username}` });
  await dialog.waitFor();
  if (options.newcomer) {
    const shown = (await dialog.getByTestId('admission-safety-number').textContent())!.trim();
    const own = await ownSafetyNumber(options.newcomer, username);
    if (shown !== own) throw new Error(`numéros de sécurité différents : ${shown} ≠ ${own}`);
  }
  if (options.shareHistory) await dialog.getByRole('checkbox', { name: 'Partager l’historique' }).check();
  await options.onDialog?.(dialog);
  await dialog.getByRole('button', { name: 'Admettre', exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 20_000 });
}

/** The safety number a member's own page shows for itself. */
export async function ownSafetyNumber(page: Page, username: string): Promise<string> {
  return memberSafetyNumber(page, username);
}

/**
 * The room's members list. On a phone (issue 28) it is a tab of its own: this opens « Membres »
 * first when that tab is shown.
 */
export async function membersList(page: Page): Promise<Locator> {
  // Below Tailwind's `lg` (1024 px) the room shows the members as a tab (use-wide-layout.ts).
  if ((page.viewportSize()?.width ?? 1280) < 1024) {
    const tab = page.getByRole('tab', { name: 'Membres', exact: true });
    await tab.waitFor();
    if ((await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
  }
  return page.getByRole('list', { name: 'Membres du Ring' });
}

/** A member's row (one line: avatar, name, status, « ⋯ ») in the members list. */
export async function memberRow(page: Page, username: string): Promise<Locator> {
  return (await membersList(page)).getByRole('listitem', { name: username, exact: true });
}

/** Opens the « ⋯ » menu of `username`'s row (if not open yet); resolves the row. */
export async function openMemberMenu(page: Page, username: string): Promise<Locator> {
  const row = await memberRow(page, username);
  const button = row.getByRole('button', { name: `Actions pour ${username}`, exact: true });
  try {
    if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  } catch (error) {
    throw await withPageState(page, error);
  }
  return row;
}

/**
 * `error` with what the page showed when it happened (its address and the start of its
 * accessibility tree), so that a failure in CI, where no screenshot can be looked at, says why.
 */
export async function withPageState(page: Page, error: unknown): Promise<unknown> {
  if (!(error instanceof Error)) return error;
  const tree = await page
    .locator('body')
    .ariaSnapshot({ timeout: 2000 })
    .catch((reason: unknown) => `(arbre indisponible : ${String(reason)})`);
  error.message += `\n--- page ${page.url()} ---\n${tree.slice(0, 4000)}`;
  return error;
}

/** Closes the « ⋯ » menu of `username`'s row if it is open. */
export async function closeMemberMenu(page: Page, username: string): Promise<void> {
  const row = await memberRow(page, username);
  const button = row.getByRole('button', { name: `Actions pour ${username}`, exact: true });
  if ((await button.getAttribute('aria-expanded')) === 'true') await button.click();
}

/**
 * An action of a member's « ⋯ » menu (« Message privé à … », « Appel vocal avec … », « Marquer …
 * comme vérifié », « Réinitialiser mes clés »…): opens the menu, then clicks the action.
 */
export async function memberAction(
  page: Page,
  username: string,
  actionName: string,
  options: { timeout?: number } = {},
): Promise<void> {
  const row = await openMemberMenu(page, username);
  await row.getByRole('menuitem', { name: actionName, exact: true }).click(options);
}

/** The action names of a member's « ⋯ » menu (the menu is closed again). */
export async function memberActions(page: Page, username: string): Promise<string[]> {
  const row = await openMemberMenu(page, username);
  const names = (await row.getByRole('menuitem').allTextContents()).map((name) => name.trim());
  await closeMemberMenu(page, username);
  return names;
}

/** The safety number `page` shows for `username` (in the member's « ⋯ » menu, closed again). */
export async function memberSafetyNumber(page: Page, username: string, timeout = 20_000): Promise<string> {
  const row = await openMemberMenu(page, username);
  const number = row.getByTestId('safety-number');
  await number.waitFor({ timeout });
  const text = (await number.textContent())!.trim();
  await closeMemberMenu(page, username);
  return text;
}

/**
 * A session token as the server sets it at sign-in (issue 27, L5): HttpOnly, SameSite=Strict. The
 * server adds its readable CSRF twin on the page's first request.
 */
export function sessionTokenCookie(name: string, token: string, baseUrl: string) {
  return { name, value: token, url: baseUrl, httpOnly: true, sameSite: 'Strict' as const };
}

/** A readable JSON cookie the sign-in form writes (who is signed in). */
export function sessionDataCookie(name: string, value: unknown, baseUrl: string) {
  return { name, value: encodeURIComponent(JSON.stringify(value)), url: baseUrl };
}

/** The session token a browser context holds in the HttpOnly cookie `name` (page scripts cannot read it). */
export async function sessionTokenOf(context: BrowserContext, name = 'secureChat_token'): Promise<string> {
  const cookie = (await context.cookies()).find((c) => c.name === name);
  if (!cookie) throw new Error(`no ${name} cookie`);
  return decodeURIComponent(cookie.value);
}

/**
 * Opens the Ring room in `page` with a Ring session already obtained through the API (the cookies
 * the sign-in would set), then waits for the room's title.
 */
export async function enterRoomWithSession(
  page: Page,
  baseUrl: string,
  login: { token: string; user: unknown; ring: { name: string } },
): Promise<void> {
  await page
    .context()
    .addCookies([
      sessionTokenCookie('secureChat_token', login.token, baseUrl),
      sessionDataCookie('secureChat_user', login.user, baseUrl),
      sessionDataCookie('secureChat_ring', login.ring, baseUrl),
    ]);
  await page.goto(`${baseUrl}/ring`);
  await page.locator('h1', { hasText: login.ring.name }).waitFor();
}

/**
 * The room of a Ring session in `page`: enters it, chooses (or types) the passphrase, and waits
 * until the keyring is unlocked (active, or waiting for its key or its admission).
 */
export async function openUnlockedRoom(
  page: Page,
  baseUrl: string,
  login: { token: string; user: unknown; ring: { name: string } },
  phrase: string,
): Promise<void> {
  await enterRoomWithSession(page, baseUrl, login);
  const dialog = page.getByRole('dialog', { name: 'Phrase secrète' });
  await dialog.waitFor();
  await dialog.getByLabel('Phrase secrète', { exact: true }).fill(phrase);
  const confirm = dialog.getByLabel('Confirmer la phrase secrète');
  if (await confirm.count()) await confirm.fill(phrase);
  const chosen = (await confirm.count()) > 0;
  await dialog.getByRole('button', { name: chosen ? 'Créer ma phrase secrète' : 'Déverrouiller' }).click();
  if (chosen) await saveRecoveryKey(page);
  await page.locator('[data-e2ee-state="active"], [data-e2ee-state="waiting_keys"]').first().waitFor();
  // A phone opens on its conversations (issue 29); the tests that follow read the room's chat.
  const list = page.locator('[data-room-layout="phone"]').getByRole('list', { name: 'Conversations' });
  if (await list.isVisible()) await list.getByRole('button', { name: /Salon du ring/ }).click();
}

/**
 * The « Clé de secours » dialog that follows a new passphrase (first unlock or new keys): ticks
 * that the key is saved, closes it, and returns the key.
 */
export async function saveRecoveryKey(page: Page): Promise<string> {
  const dialog = page.getByRole('dialog', { name: 'Clé de secours' });
  await dialog.waitFor({ timeout: 30_000 });
  const key = (await dialog.getByTestId('recovery-key').textContent())!.trim();
  await dialog.getByLabel('J’ai imprimé ou enregistré ma clé de secours en lieu sûr.').check();
  await dialog.getByRole('button', { name: 'Terminer' }).click();
  await dialog.waitFor({ state: 'detached' });
  return key;
}

/**
 * The invitation form prefills the Ring's name, the username and the email from the invitation
 * once its details load: wait for that before typing (a fill racing the prefill can leave both,
 * e.g. "bobbob", on a slow machine).
 */
export async function waitForInvitePrefill(page: Page): Promise<void> {
  await page.getByText(/Vous avez été invité à rejoindre «/).waitFor();
}
