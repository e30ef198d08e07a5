import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { RING_FILES_MESSAGES } from '@securering/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { admitInRoom, saveRecoveryKey } from '../support/room';
import { type TestFile, downloadOf, fileRow, filesTab, openFilesTab, upload } from '../support/files';
import { screenshot, trackPageErrors } from '../support/browser';
import { CUSTOMER_PASSWORD, customerSignIn, subscribedCustomer } from '../support/customer';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { rgbPng } from '../support/png';
import { useSuite } from '../support/suite';

const OWNER = 'helene.fichiers@example.com';
const RING = 'Équipe Fichiers';
const OWNER_PHRASE = 'la mer est calme ce soir';
const BOB_PASSWORD = 'Bob-Pass-123';
const BOB_PHRASE = 'bob aime les phrases longues';
const MIB = 1024 * 1024;
const FOLDER_DELETE_TITLE = 'Supprimer ce dossier\u202f?';
/** Bytes per tus PATCH in the app (files-policy TUS_CHUNK_BYTES). */
const TUS_CHUNK = 8 * MIB;

// Canaries: a name and a content that must never reach the server, its disk, its log or the wire.
const NAME_CANARY = `CanariNom${randomBytes(5).toString('hex')}`;
const CONTENT_CANARY = `CanariContenu${randomBytes(5).toString('hex')}`;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A small valid PNG (8×8, RGB) carrying the content canary in a tEXt chunk. */
function pngWithCanary(): Buffer {
  return rgbPng(8, 8, (x, y, c) => ((x * 3 + c) * 31 + y * 17) & 0xff, CONTENT_CANARY);
}

const TEXT: TestFile = {
  name: `notes ${NAME_CANARY}.txt`,
  mimeType: 'text/plain',
  buffer: Buffer.from(`Compte rendu confidentiel\n${CONTENT_CANARY}\n`.repeat(40)),
};
const IMAGE: TestFile = { name: `photo ${NAME_CANARY}.png`, mimeType: 'image/png', buffer: pngWithCanary() };
const LARGE: TestFile = {
  name: `données ${NAME_CANARY}.bin`,
  mimeType: 'application/octet-stream',
  buffer: Buffer.concat([randomBytes(6 * MIB), Buffer.from(CONTENT_CANARY), randomBytes(6 * MIB)]),
};

const roomTitle = (page: Page) => page.locator('h1', { hasText: RING });
async function waitForState(page: Page, value: string, timeout = 20_000) {
  await page.locator(`[data-e2ee-state="${value}"]`).first().waitFor({ timeout });
}
async function choosePassphrase(page: Page, phrase: string) {
  const dialog = page.getByRole('dialog', { name: 'Phrase secrète' });
  await dialog.waitFor();
  await dialog.getByLabel('Phrase secrète', { exact: true }).fill(phrase);
  await dialog.getByLabel('Confirmer la phrase secrète').fill(phrase);
  await dialog.getByRole('button', { name: 'Créer ma phrase secrète' }).click();
  await saveRecoveryKey(page);
}

const folderTile = (page: Page, name: string) =>
  filesTab(page).getByRole('list', { name: 'Dossiers' }).getByRole('listitem', { name, exact: true });
const toast = (page: Page, text: string | RegExp) => page.getByText(text, { exact: true }).first();

async function folderMenu(page: Page, name: string, item: 'Ouvrir' | 'Renommer' | 'Supprimer') {
  await folderTile(page, name)
    .getByRole('button', { name: `Actions du dossier ${name}` })
    .click();
  await page.getByRole('menuitem', { name: item }).click();
}

/**
 * Everything a page sends: URLs, headers (tus metadata decoded), bodies (seen in the page, before
 * the network: FormData parts and Blobs included) and websocket frames.
 */
interface Sent {
  texts: string[];
  bodyBytes: number;
  bodies: Buffer[];
}
async function recordSent(page: Page): Promise<Sent> {
  const sent: Sent = { texts: [], bodyBytes: 0, bodies: [] };
  page.on('request', (request) => {
    sent.texts.push(request.url());
    for (const [name, value] of Object.entries(request.headers())) {
      sent.texts.push(`${name}: ${value}`);
      if (name.toLowerCase() === 'upload-metadata') {
        for (const pair of value.split(',')) {
          const [key, encoded = ''] = pair.trim().split(' ');
          sent.texts.push(`${key}=${Buffer.from(encoded, 'base64').toString('utf8')}`);
        }
      }
    }
  });
  page.on('websocket', (ws) => ws.on('framesent', (frame) => sent.texts.push(String(frame.payload))));
  await page.exposeFunction('__recordBody', (base64: string) => {
    const body = Buffer.from(base64, 'base64');
    sent.bodyBytes += body.length;
    sent.bodies.push(body);
  });
  await page.addInitScript(() => {
    const record = (window as unknown as { __recordBody(b64: string): Promise<void> }).__recordBody;
    const toBase64 = (bytes: Uint8Array) => {
      let text = '';
      for (let i = 0; i < bytes.length; i += 0x8000)
        text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(text);
    };
    const bytesOf = async (body: unknown): Promise<Uint8Array> => {
      if (body === null || body === undefined) return new Uint8Array(0);
      if (typeof body === 'string') return new TextEncoder().encode(body);
      if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
      if (body instanceof ArrayBuffer) return new Uint8Array(body);
      if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      if (body instanceof URLSearchParams) return new TextEncoder().encode(body.toString());
      if (body instanceof FormData) {
        const parts: Uint8Array[] = [];
        const entries: Array<[string, FormDataEntryValue]> = [];
        body.forEach((value, key) => entries.push([key, value]));
        for (const [key, value] of entries) {
          parts.push(new TextEncoder().encode(`${key}=`));
          parts.push(typeof value === 'string' ? new TextEncoder().encode(value) : await bytesOf(value));
          if (typeof value !== 'string') parts.push(new TextEncoder().encode(`;filename=${value.name}`));
        }
        return new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer());
      }
      return new TextEncoder().encode(String(body));
    };
    const keep = (body: unknown) =>
      void bytesOf(body).then((bytes) => (bytes.length > 0 ? record(toBase64(bytes)) : undefined));
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (
      this: XMLHttpRequest,
      body?: Document | XMLHttpRequestBodyInit | null,
    ) {
      keep(body);
      return send.call(this, body);
    };
    const originalFetch = window.fetch;
    window.fetch = function (input: RequestInfo | URL, init?: RequestInit) {
      if (init?.body) keep(init.body);
      return originalFetch.call(this, input, init);
    };
    const beacon = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = (url, data) => {
      keep(data);
      return beacon(url, data);
    };
  });
  return sent;
}

/** Every file under `dir` (WAL and temporary files included). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : entry.isFile() ? [full] : [];
  });
}

describe('[FILES] the encrypted Ring file space', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let owner: Page;
  let bob: Page;
  let ownerSent: Sent;
  let bobSent: Sent;
  let ringId = '';
  let customerToken = '';
  const errors: string[][] = [];
  const database = () => new Database(path.join(suite.server.dataDir, 'securering.sqlite'));

  beforeAll(async () => {
    await subscribedCustomer(suite.server, suite.mailbox, OWNER);
    const dashboard = await suite.page();
    errors.push(trackPageErrors(dashboard));
    await customerSignIn(dashboard, suite.server, OWNER);
    await dashboard.getByLabel('Nom du Ring').fill(RING);
    await dashboard.getByRole('button', { name: 'Créer le Ring' }).click();
    await dashboard.getByRole('heading', { name: 'Inviter un utilisateur' }).waitFor();
    await dashboard.getByLabel('Nom d’utilisateur').fill('bob');
    await dashboard.getByRole('button', { name: 'Inviter' }).click();
    const bobRow = dashboard.getByRole('row').filter({ hasText: 'bob' });
    await bobRow.waitFor();
    const bobCode = (await bobRow.locator('.font-mono').textContent())!.trim();

    // Files up to 20 Mo in this Ring (10 by default): the 12 MB file must fit.
    const login = (await (
      await fetch(`${suite.server.url}/api/auth/customer-login.php`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: OWNER, password: CUSTOMER_PASSWORD }),
      })
    ).json()) as { token: string };
    customerToken = login.token;
    const rings = (await (
      await fetch(`${suite.server.url}/api/customer/rings.php`, {
        headers: { Authorization: `Bearer ${customerToken}` },
      })
    ).json()) as { data: Array<{ id: string; name: string }> };
    ringId = rings.data.find((r) => r.name === RING)!.id;
    const saved = await fetch(`${suite.server.url}/api/customer/rings.php`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${customerToken}` },
      body: JSON.stringify({ ring_id: ringId, max_file_size: 20 }),
    });
    expect(saved.status).toBe(200);

    owner = await dashboard.context().newPage();
    errors.push(trackPageErrors(owner));
    ownerSent = await recordSent(owner);
    await owner.goto(`${suite.server.url}/ring`);
    await owner.getByLabel('Email').fill(OWNER);
    await owner.getByLabel('Mot de passe', { exact: true }).fill(CUSTOMER_PASSWORD);
    await owner.getByRole('button', { name: 'Se connecter' }).click();
    await roomTitle(owner).waitFor();
    await choosePassphrase(owner, OWNER_PHRASE);
    await waitForState(owner, 'active');

    // Bob reads the room on a phone-sized screen; his downloads above 1 Mo take the service
    // worker's streaming path (the product streams above 100 Mo).
    bob = await suite.page(375, 812);
    errors.push(trackPageErrors(bob));
    bobSent = await recordSent(bob);
    await bob.addInitScript(() =>
      localStorage.setItem('securering:stream-download-bytes', String(1024 * 1024)),
    );
    await bob.goto(`${suite.server.url}/accept-invite?invite=${bobCode}`);
    await bob.getByLabel('Nom d’utilisateur').fill('bob');
    await bob.getByLabel('Mot de passe', { exact: true }).fill(BOB_PASSWORD);
    await bob.getByLabel('Confirmer le mot de passe').fill(BOB_PASSWORD);
    await bob.getByRole('button', { name: 'Rejoindre le Ring' }).click();
    await roomTitle(bob).waitFor();
    await choosePassphrase(bob, BOB_PHRASE);
    await admitInRoom(owner, 'bob', { newcomer: bob });
    await waitForState(bob, 'active');

    await openFilesTab(owner);
    await openFilesTab(bob);
  });

  it('[FILES] a member uploads three files (the large one resumes after a cut); the other sees their names and downloads each intact', async () => {
    // The second tus PATCH is cut once before it reaches the server; every PATCH is slowed a
    // little so the percentage can be seen.
    const patches: Array<{ from: number; to: number }> = [];
    const headOffsets: number[] = [];
    let cut = false;
    await owner.route('**/api/rings/files/tus/**', async (route) => {
      const request = route.request();
      if (request.method() === 'PATCH') {
        if (!cut && Number(request.headers()['upload-offset']) > 0) {
          cut = true;
          return route.abort('connectionreset');
        }
        await new Promise((resolve) => setTimeout(resolve, 700));
      }
      return route.continue();
    });
    owner.on('response', (response) => {
      const request = response.request();
      if (!response.url().includes('/api/rings/files/tus/')) return;
      const offset = Number(response.headers()['upload-offset']);
      if (request.method() === 'HEAD') headOffsets.push(offset);
      if (request.method() === 'PATCH' && response.status() === 204)
        patches.push({ from: Number(request.headers()['upload-offset']), to: offset });
    });

    // The limit is said before a file is picked (issue 28).
    await filesTab(owner)
      .getByText('Taille maximale par fichier\u202f: 20\u00a0Mo', { exact: true })
      .waitFor();
    await upload(owner, [TEXT, IMAGE, LARGE]);
    const progress = filesTab(owner).getByRole('list', { name: 'Envois en cours' }).getByRole('listitem', {
      name: LARGE.name,
    });
    await progress.getByText(/^[1-9]\d?\s%$/).waitFor({ timeout: 30_000 });
    await screenshot(owner, 'files-upload-progress');
    await toast(owner, RING_FILES_MESSAGES.uploaded(3)).waitFor({ timeout: 60_000 });
    await owner.unroute('**/api/rings/files/tus/**');

    // Resumed where the server stopped: the HEAD after the cut answered the first part's end, and
    // the parts that reached the server cover the file exactly once.
    const stored = database()
      .prepare('SELECT id, size_bytes FROM ring_files WHERE ring_id = ? ORDER BY size_bytes DESC')
      .all(ringId) as Array<{ id: string; size_bytes: number }>;
    const largeSize = stored[0]!.size_bytes;
    expect(cut).toBe(true);
    expect(headOffsets).toContain(TUS_CHUNK);
    expect(patches).toEqual([
      { from: 0, to: TUS_CHUNK },
      { from: TUS_CHUNK, to: largeSize },
    ]);

    for (const file of [TEXT, IMAGE, LARGE]) await fileRow(owner, file.name).waitFor();
    const textRow = fileRow(owner, TEXT.name);
    await textRow
      .getByText(/^\d+,\d Ko$/)
      .first()
      .waitFor();
    await fileRow(owner, LARGE.name).getByText('12,00 Mo', { exact: true }).waitFor();
    expect(await textRow.locator('[data-file-kind="document"]').count()).toBe(1);
    expect(await fileRow(owner, IMAGE.name).locator('[data-file-kind="image"]').count()).toBe(1);
    await screenshot(owner, 'files-owner-1280');

    // Bob sees the decrypted names (live), without rename or delete on the owner's files.
    for (const file of [TEXT, IMAGE, LARGE]) await fileRow(bob, file.name).waitFor({ timeout: 15_000 });
    expect(await fileRow(bob, TEXT.name).getByRole('button', { name: 'Supprimer' }).count()).toBe(0);
    expect(await fileRow(bob, TEXT.name).getByRole('button', { name: 'Renommer' }).count()).toBe(0);
    await screenshot(bob, 'files-member-375');

    for (const file of [TEXT, IMAGE, LARGE]) {
      const { download, bytes } = await downloadOf(bob, fileRow(bob, file.name));
      expect(download.suggestedFilename()).toBe(file.name);
      expect(bytes.length).toBe(file.buffer.length);
      expect(sha256(bytes)).toBe(sha256(file.buffer));
      // Small files are assembled in a Blob; the large one streamed through the service worker.
      if (file === LARGE) expect(download.url()).toMatch(/\/__securering\/download\/[0-9a-f-]{36}$/);
      else expect(download.url()).toMatch(/^blob:/);
    }
  });

  it('[FILES] folders are created, opened, renamed, refused while not empty, and deleted', async () => {
    const name = `Projets ${NAME_CANARY}`;
    const renamed = `Archives ${NAME_CANARY}`;
    await filesTab(owner).getByRole('button', { name: 'Nouveau dossier' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Nouveau dossier' });
    await dialog.getByRole('textbox', { name: 'Nom du dossier' }).fill(name);
    await dialog.getByRole('button', { name: 'Créer' }).click();
    await folderTile(owner, name).waitFor();
    await folderTile(bob, name).waitFor({ timeout: 15_000 });
    await folderTile(owner, name)
      .getByRole('button', { name: `Actions du dossier ${name}` })
      .click();
    await owner.getByRole('menuitem', { name: 'Renommer' }).waitFor();
    await screenshot(owner, 'files-folder-menu');
    await owner.keyboard.press('Escape');

    // Opened by a single click (issue 28): the breadcrumb starts at the root.
    await folderTile(owner, name).getByRole('button', { name, exact: true }).click();
    const crumbs = filesTab(owner).getByRole('navigation', { name: 'Fil d’Ariane' });
    await crumbs.getByRole('button', { name: '🏠 Racine' }).waitFor();
    await crumbs.getByText(name).waitFor();
    await filesTab(owner).getByText('Aucun fichier').waitFor();
    const inside: TestFile = {
      name: `dedans ${NAME_CANARY}.txt`,
      mimeType: 'text/plain',
      buffer: Buffer.from(CONTENT_CANARY),
    };
    await upload(owner, [inside]);
    await fileRow(owner, inside.name).waitFor();
    // Under 1 Ko a size reads in octets (issue 28), not « 0,0 Ko ».
    await fileRow(owner, inside.name)
      .getByText(/^\d+\u00a0octets$/)
      .waitFor();
    await screenshot(owner, 'files-folder-open');

    // Bob opens it from the menu and sees the file.
    await folderMenu(bob, name, 'Ouvrir');
    await fileRow(bob, inside.name).waitFor();
    await filesTab(bob)
      .getByRole('navigation', { name: 'Fil d’Ariane' })
      .getByRole('button', { name: '🏠 Racine' })
      .click();

    // Not empty: « Supprimer » is disabled, with the reason (issue 28), and the folder stays.
    await crumbs.getByRole('button', { name: '🏠 Racine' }).click();
    await folderTile(owner, name)
      .getByRole('button', { name: `Actions du dossier ${name}` })
      .click();
    const deleteItem = owner.getByRole('menuitem', { name: /Supprimer/ });
    expect(await deleteItem.getAttribute('aria-disabled')).toBe('true');
    await deleteItem.getByText('Le dossier doit être vide pour être supprimé').waitFor();
    await screenshot(owner, 'files-folder-not-empty');
    await owner.keyboard.press('Escape');
    await folderTile(owner, name).waitFor();

    // Renamed (an unchanged name changes nothing), seen by bob.
    await folderMenu(owner, name, 'Renommer');
    let rename = owner.getByRole('dialog', { name: 'Renommer le dossier' });
    await rename.getByRole('button', { name: 'Renommer' }).click();
    await rename.waitFor({ state: 'detached' });
    await folderMenu(owner, name, 'Renommer');
    rename = owner.getByRole('dialog', { name: 'Renommer le dossier' });
    await rename.getByRole('textbox', { name: 'Nouveau nom' }).fill(renamed);
    await rename.getByRole('button', { name: 'Renommer' }).click();
    await folderTile(owner, renamed).waitFor();
    await folderTile(bob, renamed).waitFor({ timeout: 15_000 });
    expect(await folderTile(bob, name).count()).toBe(0);

    // Emptied, then deleted.
    await folderMenu(owner, renamed, 'Ouvrir');
    await fileRow(owner, inside.name).getByRole('button', { name: 'Supprimer' }).click();
    await owner
      .getByRole('alertdialog', { name: RING_FILES_MESSAGES.confirmDelete })
      .getByRole('button', { name: 'Supprimer' })
      .click();
    await filesTab(owner).getByText('Aucun fichier').waitFor();
    await crumbs.getByRole('button', { name: '🏠 Racine' }).click();
    await folderMenu(owner, renamed, 'Supprimer');
    await owner
      .getByRole('alertdialog', { name: FOLDER_DELETE_TITLE })
      .getByRole('button', { name: 'Supprimer' })
      .click();
    await folderTile(owner, renamed).waitFor({ state: 'detached' });
    await folderTile(bob, renamed).waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('[FILES] a rename and a delete of a file are seen by the other member', async () => {
    const file: TestFile = {
      name: `brouillon ${NAME_CANARY}.md`,
      mimeType: 'text/markdown',
      buffer: Buffer.from(`# ${CONTENT_CANARY}`),
    };
    const renamed = `final ${NAME_CANARY}.md`;
    await upload(owner, [file]);
    await fileRow(bob, file.name).waitFor({ timeout: 15_000 });

    const renames = () => ownerSent.texts.filter((t) => t.endsWith('/api/rings/files/rename.php')).length;
    const before = renames();
    // A blank name is ignored without a call (spec 2 §5).
    await fileRow(owner, file.name).getByRole('button', { name: 'Renommer' }).click();
    let dialog = owner.getByRole('dialog', { name: 'Renommer le fichier' });
    await dialog.getByRole('textbox', { name: 'Nouveau nom' }).fill('   ');
    await dialog.getByRole('button', { name: 'Renommer' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(renames()).toBe(before);

    await fileRow(owner, file.name).getByRole('button', { name: 'Renommer' }).click();
    dialog = owner.getByRole('dialog', { name: 'Renommer le fichier' });
    await dialog.getByRole('textbox', { name: 'Nouveau nom' }).fill(renamed);
    await dialog.getByRole('button', { name: 'Renommer' }).click();
    await toast(owner, RING_FILES_MESSAGES.renamed).waitFor();
    await fileRow(bob, renamed).waitFor({ timeout: 15_000 });
    expect(await fileRow(bob, file.name).count()).toBe(0);

    await fileRow(owner, renamed).getByRole('button', { name: 'Supprimer' }).click();
    await owner
      .getByRole('alertdialog', { name: RING_FILES_MESSAGES.confirmDelete })
      .getByRole('button', { name: 'Supprimer' })
      .click();
    await toast(owner, RING_FILES_MESSAGES.deleted).waitFor();
    await fileRow(bob, renamed).waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('[FILES] an upload over the quota is refused at once and nothing is stored', async () => {
    const db = database();
    const used = (
      db
        .prepare('SELECT coalesce(sum(size_bytes), 0) AS n FROM ring_files WHERE ring_id = ?')
        .get(ringId) as { n: number }
    ).n;
    db.prepare('UPDATE rings SET storage_quota_bytes = ? WHERE id = ?').run(used + MIB, ringId);
    const count = () =>
      (db.prepare('SELECT count(*) AS n FROM ring_files WHERE ring_id = ?').get(ringId) as { n: number }).n;
    const filesBefore = count();
    const objectsBefore = filesUnder(path.join(suite.server.dataDir, 'ring-files')).length;

    // The tab reads the new figures with its next list.
    await owner.reload();
    await roomTitle(owner).waitFor();
    const dialog = owner.getByRole('dialog', { name: 'Phrase secrète' });
    await dialog.getByLabel('Phrase secrète', { exact: true }).fill(OWNER_PHRASE);
    await dialog.getByRole('button', { name: 'Déverrouiller' }).click();
    await waitForState(owner, 'active');
    await openFilesTab(owner);
    await filesTab(owner)
      .getByText(/^\d+,\d Mo utilisés sur \d+,\d Mo$/)
      .waitFor();

    const uploadsBefore = ownerSent.texts.filter((t) => /files\/(upload\.php|tus)$/.test(t)).length;
    const tooBig: TestFile = {
      name: `trop ${NAME_CANARY}.bin`,
      mimeType: 'application/octet-stream',
      buffer: randomBytes(2 * MIB),
    };
    await upload(owner, [tooBig]);
    await toast(owner, RING_FILES_MESSAGES.quotaExceeded).waitFor();
    await screenshot(owner, 'files-quota-refused');
    await owner.waitForTimeout(500);
    expect(ownerSent.texts.filter((t) => /files\/(upload\.php|tus)$/.test(t)).length).toBe(uploadsBefore);
    expect(count()).toBe(filesBefore);
    expect(filesUnder(path.join(suite.server.dataDir, 'ring-files')).length).toBe(objectsBefore);
    expect((db.prepare('SELECT count(*) AS n FROM ring_upload_reservations').get() as { n: number }).n).toBe(
      0,
    );
    expect(await fileRow(owner, tooBig.name).count()).toBe(0);
    db.close();
  });

  it('[FILES] names the server swaps and a file it moves are flagged, never shown as true (review M3)', async () => {
    const mkdir = async (name: string) => {
      await filesTab(owner).getByRole('button', { name: 'Nouveau dossier' }).click();
      const dialog = owner.getByRole('dialog', { name: 'Nouveau dossier' });
      await dialog.getByRole('textbox', { name: 'Nom du dossier' }).fill(name);
      await dialog.getByRole('button', { name: 'Créer' }).click();
      await folderTile(owner, name).waitFor();
    };
    const crumbs = (page: Page) => filesTab(page).getByRole('navigation', { name: 'Fil d’Ariane' });
    const pdf = (name: string): TestFile => ({
      name,
      mimeType: 'application/pdf',
      buffer: Buffer.from(`%PDF-1.4 ${name}`),
    });
    const signed = pdf('contrat_signé.pdf');
    const draft = pdf('contrat_brouillon.pdf');
    const inside = pdf('devis_du_dossier_A.pdf');
    await mkdir('Dossier A');
    await mkdir('Dossier B');
    await upload(owner, [signed, draft]);
    await fileRow(owner, signed.name).waitFor();
    await fileRow(owner, draft.name).waitFor();
    await folderMenu(owner, 'Dossier A', 'Ouvrir');
    await upload(owner, [inside]);
    await fileRow(owner, inside.name).waitFor();
    const idOf = async (page: Page, name: string) =>
      (await fileRow(page, name).getAttribute('data-file-id'))!;
    const insideId = await idOf(owner, inside.name);
    await crumbs(owner).getByRole('button', { name: '🏠 Racine' }).click();
    await fileRow(bob, signed.name).waitFor({ timeout: 15_000 });

    // The server swaps everything that names the two files, and moves A's file into B.
    const db = database();
    type Row = { id: string; name: string; original_name: string; extension: string; meta: string | null };
    const rowNamed = (id: string) =>
      db
        .prepare('SELECT id, name, original_name, extension, meta FROM ring_files WHERE id = ?')
        .get(id) as Row;
    const [a, b] = [rowNamed(await idOf(bob, signed.name)), rowNamed(await idOf(bob, draft.name))];
    const setNames = db.prepare(
      'UPDATE ring_files SET name = ?, original_name = ?, extension = ?, meta = ? WHERE id = ?',
    );
    setNames.run(b.name, b.original_name, b.extension, b.meta, a.id);
    setNames.run(a.name, a.original_name, a.extension, a.meta, b.id);
    const from = (
      db.prepare('SELECT folder_path FROM ring_files WHERE id = ?').get(insideId) as {
        folder_path: string;
      }
    ).folder_path;
    const folders = db.prepare('SELECT path FROM ring_folders WHERE ring_id = ?').all(ringId) as Array<{
      path: string;
    }>;
    // The Ring has two folders now: A (the file's) and B.
    expect(folders).toHaveLength(2);
    const into = folders.find((f) => f.path !== from)!.path;
    db.prepare('UPDATE ring_files SET folder_path = ? WHERE id = ?').run(into, insideId);
    db.close();

    // Bob opens B: A's file is there, flagged; then the root: neither swapped name is shown.
    await folderMenu(bob, 'Dossier B', 'Ouvrir');
    const moved = fileRow(bob, inside.name);
    await moved.waitFor({ timeout: 15_000 });
    await moved
      .getByRole('note')
      .getByText(/Emplacement non vérifié/)
      .waitFor();
    await screenshot(bob, 'files-moved-flagged');
    await crumbs(bob).getByRole('button', { name: '🏠 Racine' }).click();
    const unreadable = fileRow(bob, 'Nom illisible');
    await expect.poll(() => unreadable.count(), { timeout: 15_000 }).toBe(2);
    expect(await unreadable.first().getByRole('note').textContent()).toMatch(/Métadonnées non vérifiables/);
    expect(await fileRow(bob, signed.name).count()).toBe(0);
    expect(await fileRow(bob, draft.name).count()).toBe(0);
    await screenshot(bob, 'files-swapped-flagged');
  });

  it('[FILES] an older name the server serves again is flagged « Version périmée », another file’s bytes stop the download (review M3)', async () => {
    const pdf = (name: string, fill: string): TestFile => ({
      name,
      mimeType: 'application/pdf',
      buffer: Buffer.from(`%PDF-1.4 ${fill.repeat(64)}`),
    });
    const first = pdf('rapport_v1.pdf', 'A');
    const other = pdf('annexe.pdf', 'B');
    const renamed = 'rapport_v2.pdf';
    await upload(owner, [first, other]);
    await fileRow(bob, first.name).waitFor({ timeout: 15_000 });
    await fileRow(bob, other.name).waitFor({ timeout: 15_000 });
    const id = (await fileRow(bob, first.name).getAttribute('data-file-id'))!;
    const otherId = (await fileRow(bob, other.name).getAttribute('data-file-id'))!;
    const db = database();
    const metaOf = (fileId: string) =>
      (db.prepare('SELECT meta FROM ring_files WHERE id = ?').get(fileId) as { meta: string }).meta;
    const firstMeta = metaOf(id);

    await fileRow(owner, first.name).getByRole('button', { name: 'Renommer' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Renommer le fichier' });
    await dialog.getByRole('textbox', { name: 'Nouveau nom' }).fill(renamed);
    await dialog.getByRole('button', { name: 'Renommer' }).click();
    await toast(owner, RING_FILES_MESSAGES.renamed).waitFor();
    await fileRow(bob, renamed).waitFor({ timeout: 15_000 });
    expect(metaOf(id)).not.toBe(firstMeta);

    // The server serves the first (validly signed) metadata again, and the other file's bytes
    // (the two stored objects swapped; both have the same size).
    const keyOf = (fileId: string) =>
      (db.prepare('SELECT storage_key FROM ring_files WHERE id = ?').get(fileId) as { storage_key: string })
        .storage_key;
    const [key, otherKey] = [keyOf(id), keyOf(otherId)];
    const setKey = db.prepare('UPDATE ring_files SET storage_key = ? WHERE id = ?');
    setKey.run(`${key}-swap`, id);
    setKey.run(key, otherId);
    setKey.run(otherKey, id);
    db.prepare('UPDATE ring_files SET meta = ? WHERE id = ?').run(firstMeta, id);
    db.close();
    // Any change in the folder makes Bob's browser list it again.
    const nudge = pdf('relance.pdf', 'C');
    await upload(owner, [nudge]);
    await fileRow(bob, nudge.name).waitFor({ timeout: 15_000 });
    const stale = fileRow(bob, first.name);
    await stale
      .getByRole('note')
      .getByText(/^Version périmée/)
      .waitFor({ timeout: 15_000 });
    expect(await fileRow(bob, renamed).count()).toBe(0);
    await screenshot(bob, 'files-replayed-flagged');

    // Downloading it: the bytes are not those its signed metadata names.
    await stale.getByRole('button', { name: 'Télécharger' }).click();
    await toast(bob, RING_FILES_MESSAGES.downloadError).waitFor();
    await bob
      .getByText(/^Le contenu reçu n’est pas celui que son auteur a signé/)
      .first()
      .waitFor();
    await screenshot(bob, 'files-replayed-download-refused');
  });

  it('[FILES] « Déplacer » moves a file into a folder by its menu and by drag and drop; the other member sees it there, verified (issue 28)', async () => {
    const crumbs = (page: Page) => filesTab(page).getByRole('navigation', { name: 'Fil d’Ariane' });
    const toRoot = async (page: Page) => {
      const root = crumbs(page).getByRole('button', { name: '🏠 Racine' });
      if ((await root.count()) > 0) await root.click();
      await crumbs(page).getByText('🏠 Racine').waitFor();
    };
    await toRoot(owner);
    await toRoot(bob);
    await filesTab(owner).getByRole('button', { name: 'Nouveau dossier' }).click();
    const mkdir = owner.getByRole('dialog', { name: 'Nouveau dossier' });
    await mkdir.getByRole('textbox', { name: 'Nom du dossier' }).fill('Classement');
    await mkdir.getByRole('button', { name: 'Créer' }).click();
    await folderTile(owner, 'Classement').waitFor();
    const pdf = (name: string): TestFile => ({
      name,
      mimeType: 'application/pdf',
      buffer: Buffer.from(`%PDF-1.4 ${name}`),
    });
    const byMenu = pdf('facture_par_menu.pdf');
    const byDrag = pdf('facture_glissée.pdf');
    await upload(owner, [byMenu, byDrag]);
    await fileRow(owner, byMenu.name).waitFor();
    await fileRow(owner, byDrag.name).waitFor();
    await fileRow(bob, byMenu.name).waitFor({ timeout: 15_000 });
    // Bob neither uploaded them nor manages the Ring: nothing to move for him.
    expect(await fileRow(bob, byMenu.name).getByRole('button', { name: 'Déplacer' }).count()).toBe(0);

    // By the menu: the dialog lists the root and the Ring's folders.
    await fileRow(owner, byMenu.name).getByRole('button', { name: 'Déplacer' }).click();
    const dialog = owner.getByRole('dialog', { name: RING_FILES_MESSAGES.moveTitle });
    await dialog.getByRole('radio', { name: 'Classement' }).check();
    expect(await dialog.getByRole('radio', { name: /Racine/ }).isDisabled()).toBe(true);
    await screenshot(owner, 'files-move-dialog');
    await dialog.getByRole('button', { name: 'Déplacer' }).click();
    await toast(owner, RING_FILES_MESSAGES.moved).waitFor();
    await expect.poll(() => fileRow(owner, byMenu.name).count(), { timeout: 15_000 }).toBe(0);

    // By drag and drop of the row onto the folder's tile (desktop), with the mouse.
    const moves: string[] = [];
    owner.on('request', (request) => {
      if (request.url().endsWith('/files/move.php')) moves.push(request.url());
    });
    // A row is draggable once its signed metadata is checked (its « Déplacer » shows it): under
    // load that can come after the row itself.
    await fileRow(owner, byDrag.name).getByRole('button', { name: 'Déplacer' }).waitFor();
    await fileRow(owner, byDrag.name).getByText(byDrag.name).hover();
    await owner.mouse.down();
    await folderTile(owner, 'Classement').hover();
    await folderTile(owner, 'Classement').hover();
    await owner.mouse.up();
    await expect.poll(() => fileRow(owner, byDrag.name).count(), { timeout: 15_000 }).toBe(0);
    expect(moves).toHaveLength(1);

    // Bob sees both in the folder, their signed metadata naming it (no warning).
    await expect.poll(() => fileRow(bob, byMenu.name).count(), { timeout: 15_000 }).toBe(0);
    await folderMenu(bob, 'Classement', 'Ouvrir');
    for (const file of [byMenu, byDrag]) {
      await fileRow(bob, file.name).waitFor({ timeout: 15_000 });
      expect(await fileRow(bob, file.name).getByRole('note').count()).toBe(0);
    }
    await screenshot(bob, 'files-moved-seen-by-member');
    const db = database();
    const versions = db
      .prepare('SELECT meta_version FROM ring_files WHERE ring_id = ? AND meta_version IS NOT NULL')
      .all(ringId) as Array<{ meta_version: number }>;
    db.close();
    expect(versions.map((v) => v.meta_version)).toEqual([2, 2]);
    await toRoot(bob);
  });

  it('[FILES] no canary name or content in DATA_DIR, the database, the server log or what the browsers sent', async () => {
    // What the browsers sent was seen (the large file's ciphertext went through the page hook).
    expect(ownerSent.bodyBytes).toBeGreaterThan(LARGE.buffer.length);
    const needles = [NAME_CANARY, CONTENT_CANARY];
    for (const sent of [ownerSent, bobSent]) {
      for (const text of sent.texts) for (const needle of needles) expect(text).not.toContain(needle);
      for (const body of sent.bodies) for (const needle of needles) expect(body.includes(needle)).toBe(false);
    }
    for (const needle of needles) expect(suite.server.output()).not.toContain(needle);

    const db = database();
    const rows = JSON.stringify([
      db.prepare('SELECT * FROM ring_files').all(),
      db.prepare('SELECT * FROM ring_folders').all(),
    ]);
    db.close();
    expect(rows).toContain(ringId);
    for (const needle of needles) expect(rows).not.toContain(needle);

    const files = filesUnder(suite.server.dataDir);
    expect(files.some((f) => f.endsWith('securering.sqlite-wal') || f.endsWith('securering.sqlite'))).toBe(
      true,
    );
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      for (const needle of needles) {
        expect(bytes.includes(Buffer.from(needle, 'utf8')), `${needle} in ${file}`).toBe(false);
        expect(bytes.includes(Buffer.from(needle, 'utf16le')), `${needle} (UTF-16) in ${file}`).toBe(false);
      }
    }

    expect(errors.flat().filter((e) => !/Failed to load resource|401|409|413/.test(e))).toEqual([]);
  });
});
