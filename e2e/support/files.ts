import fs from 'node:fs';
import type { Download, Locator, Page } from 'playwright-core';

/** The Ring room's files tab, as a person uses it (shared by the files and admission specs). */

export interface TestFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

export const filesTab = (page: Page) => page.getByTestId('files-tab');
export const fileRow = (page: Page, name: string) => filesTab(page).getByRole('row', { name, exact: true });

/** Opens « Fichiers du ring » and waits until uploading is possible (the Ring keys are ready). */
export async function openFilesTab(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Fichiers du ring' }).click();
  await filesTab(page).waitFor();
  await uploadEnabled(page);
}

/**
 * Waits until « Uploader des fichiers » can be used: the Ring keys are ready and the folder shown
 * has its listing verified (an upload signs the folder's id).
 */
async function uploadEnabled(page: Page): Promise<void> {
  await filesTab(page)
    .getByRole('button', { name: 'Uploader des fichiers' })
    .and(page.locator(':enabled'))
    .waitFor();
}

/** Uploads `files` into the folder shown, as « Uploader des fichiers » would once it is enabled. */
export async function upload(page: Page, files: TestFile[]): Promise<void> {
  await uploadEnabled(page);
  await filesTab(page).getByLabel('Fichiers à uploader').setInputFiles(files);
}

/** Clicks « Télécharger » on a row and reads what the browser saved. */
export async function downloadOf(page: Page, row: Locator): Promise<{ download: Download; bytes: Buffer }> {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 60_000 }),
    row.getByRole('button', { name: 'Télécharger' }).click(),
  ]);
  const file = await download.path();
  return { download, bytes: fs.readFileSync(file) };
}
