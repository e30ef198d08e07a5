import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RingLogin } from '../support/api';
import { screenshot } from '../support/browser';
import { openRoomPage, ownerAndMember } from '../support/ring-setup';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'sacha.sequence@example.com';
const RING = 'Salon Séquence';
const PHRASES = { owner: 'la suite des messages est signée', bob: 'bob compte chaque message reçu' };

const log = (page: Page) =>
  page.getByRole('region', { name: `Salon • ${RING}` }).getByRole('log', { name: 'Messages' });

async function send(page: Page, text: string) {
  const chat = page.getByRole('region', { name: `Salon • ${RING}` });
  await chat.getByRole('textbox', { name: 'Message' }).fill(text);
  await chat.getByRole('button', { name: 'Envoyer' }).click();
  await log(page)
    .locator('article[data-status="sent"]')
    .filter({ hasText: text })
    .waitFor({ timeout: 15_000 });
}

/**
 * Issue 27 M4: every message signs its sender's sequence and send time. When the server drops a
 * message (here: its row deleted from the database between two sends) a reader who loads the
 * conversation sees « Message manquant » where it was, and every message shows the time its
 * sender signed, not the one the server claims (here: backdated in the database).
 */
describe('[CHAT] signed message sequence', () => {
  const suite = useSuite({ mailbox: true, env: PAYMENT_TEST_MODE_ENV });
  let owner: Page;
  let bobLogin: RingLogin;
  const errors: string[][] = [];

  beforeAll(async () => {
    const pair = await ownerAndMember(suite, {
      email: OWNER,
      ring: RING,
      member: 'bob',
      phrases: { owner: PHRASES.owner, member: PHRASES.bob },
      errors,
    });
    owner = pair.owner;
    bobLogin = pair.logins.members[0]!;
    await pair.member.context().close();
  }, 240_000);

  it('[CHAT] a message the server dropped shows as « Message manquant », and times are the signed ones', async () => {
    const database = new Database(path.join(suite.server.dataDir, 'securering.sqlite'));
    try {
      await send(owner, 'Premier message');
      await send(owner, 'Deuxième message');
      // The server drops the second message without any signed deletion, and backdates the first.
      const rows = database.prepare(`SELECT id, content FROM messages ORDER BY created_at`).all() as {
        id: string;
        content: string;
      }[];
      expect(rows).toHaveLength(2);
      database.prepare('DELETE FROM messages WHERE id = ?').run(rows[1]!.id);
      database
        .prepare('UPDATE messages SET created_at = ? WHERE id = ?')
        .run('2020-01-01T08:00:00.000Z', rows[0]!.id);
      await send(owner, 'Troisième message');

      const bob = await openRoomPage(suite, bobLogin, PHRASES.bob, { errors });
      const messages = log(bob);
      await messages.getByText('Troisième message').waitFor({ timeout: 20_000 });
      await messages.getByText('Premier message').waitFor();
      const missing = messages.getByTestId('message-missing');
      await missing.waitFor();
      expect(await missing.count()).toBe(1);
      expect(await missing.textContent()).toContain('Message manquant');
      expect(await missing.getAttribute('data-kind')).toBe('gap');
      expect(await messages.getByText('Deuxième message').count()).toBe(0);
      // The line sits between the first and the third message.
      const order = await messages.evaluate((el) =>
        Array.from(el.querySelectorAll('article, [data-testid="message-missing"]')).map((node) =>
          node.getAttribute('data-testid') === 'message-missing' ? 'manquant' : (node.textContent ?? ''),
        ),
      );
      const at = (needle: string) => order.findIndex((item) => item.includes(needle));
      expect(at('Premier message')).toBeLessThan(at('manquant'));
      expect(at('manquant')).toBeLessThan(at('Troisième message'));

      // The first message shows the time its sender signed, not the server's 2020 one.
      const signedAt = (JSON.parse(rows[0]!.content) as { t: string }).t;
      const time = messages.getByRole('article').filter({ hasText: 'Premier message' }).locator('time');
      expect(await time.getAttribute('data-time-source')).toBe('signed');
      expect(await time.getAttribute('datetime')).toBe(signedAt);
      expect(await time.textContent()).not.toContain('2020');
      await screenshot(bob, 'message-sequence-missing');
      // Nothing is missing on the sender's own screen, which still holds the dropped message.
      expect(await log(owner).getByText('Deuxième message').count()).toBe(1);
      expect(errors.flat()).toEqual([]);
    } finally {
      database.close();
    }
  }, 120_000);
});
