import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { RING_FILES_MESSAGES } from '@securering/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser';
import { filesUnder, recordSent } from '../support/canary';
import { rgbPng } from '../support/png';
import { filesTab, openFilesTab } from '../support/files';
import { ownerAndMember } from '../support/ring-setup';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'pia.pieces@example.com';
const RING = 'Atelier Pièces';
const PHRASES = { owner: 'les pièces jointes voyagent chiffrées', bob: 'bob regarde les photos du chantier' };
// Canaries: the image's name and a text inside its bytes must never reach the server in clear.
const NAME_CANARY = `CanariPJ${randomBytes(4).toString('hex')}`;
const CONTENT_CANARY = `CanariImage${randomBytes(4).toString('hex')}`;
const IMAGE_NAME = `chantier ${NAME_CANARY}.png`;

/**
 * A 640×480 PNG: a gradient with a band of noise (so the stored file is large enough for the
 * quota to show it), carrying the content canary in a tEXt chunk.
 */
function photo(): Buffer {
  const noise = randomBytes(640 * 3 * 60);
  return rgbPng(
    640,
    480,
    (x, y, c) =>
      y >= 200 && y < 260
        ? noise[(y - 200) * 640 * 3 + x * 3 + c]!
        : [(x * 255) / 640, (y * 255) / 480, 160][c]!,
    CONTENT_CANARY,
  );
}
const IMAGE = photo();

const roomChat = (page: Page) => page.getByRole('region', { name: `Salon • ${RING}` });
const card = (page: Page) =>
  roomChat(page)
    .getByRole('log', { name: 'Messages' })
    .getByTestId('attachment-card')
    .filter({ hasText: NAME_CANARY });
const used = (page: Page) =>
  filesTab(page).getByRole('region', { name: 'Espace de stockage' }).locator('dd').nth(1).textContent();

/** Pastes `bytes` as a file in the message box, as the clipboard of a screenshot tool would. */
async function pasteFile(box: Locator, bytes: Buffer, name: string, type: string) {
  await box.evaluate(
    (el, file) => {
      const data = new DataTransfer();
      const raw = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
      data.items.add(new File([raw], file.name, { type: file.type }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    { base64: bytes.toString('base64'), name, type },
  );
}

/**
 * Issue 29, « Attachments in the conversation »: a pasted image goes to the file space's folder
 * « Pièces jointes » encrypted like any file, counts in the quota, and the other member sees its
 * card with a decrypted preview and downloads it intact; nothing of it reaches the server in clear.
 */
describe('[CHAT] attachments', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let owner: Page;
  let bob: Page;
  const sent: Record<'owner' | 'bob', string[]> = { owner: [], bob: [] };
  const errors: string[][] = [];

  beforeAll(async () => {
    // Bob reads on a 390 px phone; traffic is recorded from the start (a socket opened before
    // would go unseen).
    ({ owner, member: bob } = await ownerAndMember(suite, {
      email: OWNER,
      ring: RING,
      member: 'bob',
      phrases: { owner: PHRASES.owner, member: PHRASES.bob },
      memberViewport: { width: 390, height: 844 },
      errors,
      prepare: (page, who) => {
        sent[who === 'owner' ? 'owner' : 'bob'] = recordSent(page.context(), { headers: true });
      },
    }));
  }, 240_000);

  it('[CHAT] a pasted image shows as a card with its decrypted preview, downloads intact and lands in « Pièces jointes »', async () => {
    await openFilesTab(owner);
    const usedBefore = await used(owner);
    await owner.getByRole('tab', { name: /Salon du ring/ }).click();

    const box = roomChat(owner).getByRole('textbox', { name: 'Message' });
    await expect.poll(() => box.isEnabled(), { timeout: 20_000 }).toBe(true);
    await pasteFile(box, IMAGE, IMAGE_NAME, 'image/png');
    // Pasting a file puts nothing in the box.
    expect(await box.inputValue()).toBe('');

    await card(owner).waitFor({ timeout: 60_000 });
    const bobCard = card(bob);
    await bobCard.waitFor({ timeout: 30_000 });
    const preview = bobCard.getByTestId('attachment-preview');
    await expect
      .poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), {
        timeout: 15_000,
      })
      .toBe(320);
    expect(await preview.evaluate((img: HTMLImageElement) => img.naturalHeight)).toBe(240);
    expect(await bobCard.textContent()).toMatch(/\d+,\d\sKo|\d+,\d\d\sMo/);
    await screenshot(bob, 'attachments-card-bob');
    await screenshot(owner, 'attachments-card-owner');

    // Bob downloads it: the very bytes the owner pasted.
    const [download] = await Promise.all([
      bob.waitForEvent('download', { timeout: 60_000 }),
      bobCard.getByRole('button', { name: `Télécharger ${IMAGE_NAME}` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(IMAGE_NAME);
    expect(fs.readFileSync(await download.path()).equals(IMAGE)).toBe(true);

    // The file space lists it in « Pièces jointes », and the quota counts it.
    await openFilesTab(owner);
    await expect.poll(() => used(owner), { timeout: 15_000 }).not.toBe(usedBefore);
    const folder = filesTab(owner)
      .getByRole('list', { name: 'Dossiers' })
      .getByRole('listitem', { name: 'Pièces jointes', exact: true });
    await folder.waitFor({ timeout: 15_000 });
    await folder.getByRole('button', { name: 'Pièces jointes', exact: true }).first().click();
    await filesTab(owner).getByRole('row', { name: IMAGE_NAME, exact: true }).waitFor({ timeout: 15_000 });
    await screenshot(owner, 'attachments-files-folder');

    // Nothing in clear reached the server: not the name, not the image's bytes, not the thumbnail.
    const src = (await preview.getAttribute('src'))!;
    const thumbBase64 = src.slice(src.indexOf(',') + 1);
    const thumbSlice = thumbBase64.slice(200, 260);
    expect(thumbSlice).toHaveLength(60);
    for (const text of [...sent.owner, ...sent.bob]) {
      expect(text).not.toContain(NAME_CANARY);
      expect(text).not.toContain(CONTENT_CANARY);
      expect(text).not.toContain(thumbSlice);
    }
    const thumbBytes = Buffer.from(thumbBase64, 'base64').subarray(100, 160);
    const pngStart = IMAGE.subarray(0, 64);
    for (const file of filesUnder(suite.server.dataDir)) {
      const bytes = fs.readFileSync(file);
      expect(bytes.includes(Buffer.from(NAME_CANARY)), `name in ${file}`).toBe(false);
      expect(bytes.includes(Buffer.from(CONTENT_CANARY)), `content in ${file}`).toBe(false);
      expect(bytes.includes(pngStart), `image bytes in ${file}`).toBe(false);
      expect(bytes.includes(thumbBytes), `thumbnail in ${file}`).toBe(false);
    }
    const output = suite.server.output();
    expect(output).not.toContain(NAME_CANARY);
    expect(output).not.toContain(thumbSlice);
    expect(errors.flat()).toEqual([]);
  }, 180_000);

  it('[CHAT] a file dropped on the conversation arrives as a card without preview', async () => {
    await owner.getByRole('tab', { name: /Salon du ring/ }).click();
    const name = `notes ${NAME_CANARY}.txt`;
    const content = `Compte rendu ${CONTENT_CANARY}\n`.repeat(20);
    await roomChat(owner).evaluate(
      (el, file) => {
        const data = new DataTransfer();
        data.items.add(new File([file.content], file.name, { type: 'text/plain' }));
        for (const type of ['dragenter', 'dragover', 'drop'])
          el.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
      },
      { name, content },
    );
    const dropped = roomChat(bob).getByTestId('attachment-card').filter({ hasText: name });
    await dropped.waitFor({ timeout: 30_000 });
    expect(await dropped.getByTestId('attachment-preview').count()).toBe(0);
    const [download] = await Promise.all([
      bob.waitForEvent('download', { timeout: 30_000 }),
      dropped.getByRole('button', { name: `Télécharger ${name}` }).click(),
    ]);
    expect(fs.readFileSync(await download.path(), 'utf8')).toBe(content);
    for (const text of [...sent.owner, ...sent.bob]) expect(text).not.toContain(CONTENT_CANARY);
  }, 60_000);

  it('[CHAT] the paperclip refuses a file over the Ring’s limit with the file space’s message, and sends nothing', async () => {
    await owner.getByRole('tab', { name: /Salon du ring/ }).click();
    const messages = roomChat(owner).getByRole('log', { name: 'Messages' }).getByRole('article');
    const before = await messages.count();
    await roomChat(owner)
      .getByLabel('Fichiers à joindre')
      .setInputFiles({
        name: 'archive.zip',
        mimeType: 'application/zip',
        buffer: Buffer.alloc(11 * 1024 * 1024, 1),
      });
    const line = roomChat(owner).getByTestId('attachment-upload').filter({ hasText: 'archive.zip' });
    await line.getByRole('alert').getByText(RING_FILES_MESSAGES.fileTooLarge(10), { exact: true }).waitFor();
    expect(await line.getAttribute('data-status')).toBe('failed');
    await screenshot(owner, 'attachments-too-large');
    await line.getByRole('button', { name: 'Fermer' }).click();
    await line.waitFor({ state: 'detached' });
    expect(await messages.count()).toBe(before);
  }, 60_000);
});
