import type { Locator, Page } from 'playwright-core';

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
  const row = page.getByRole('list', { name: 'Membres du Ring' }).getByRole('listitem', { name: username });
  const number = row.getByTestId('safety-number');
  await number.waitFor();
  return (await number.textContent())!.trim();
}

/**
 * Opens the Ring room in `page` with a Ring session already obtained through the API (the cookies
 * the sign-in form would set), then waits for the room's title.
 */
export async function enterRoomWithSession(
  page: Page,
  baseUrl: string,
  login: { token: string; user: unknown; ring: { name: string } },
): Promise<void> {
  const cookie = (name: string, value: string) => ({ name, value: encodeURIComponent(value), url: baseUrl });
  await page
    .context()
    .addCookies([
      cookie('secureChat_token', login.token),
      cookie('secureChat_user', JSON.stringify(login.user)),
      cookie('secureChat_ring', JSON.stringify(login.ring)),
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
  await dialog.getByRole('button', { name: 'Déverrouiller' }).click();
  if (chosen) await saveRecoveryKey(page);
  await page.locator('[data-e2ee-state="active"], [data-e2ee-state="waiting_keys"]').first().waitFor();
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
