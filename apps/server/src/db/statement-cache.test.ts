import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { objectRows, withStatementCache } from './database';

describe('withStatementCache', () => {
  let sqlite: SqliteDatabase.Database;

  beforeEach(() => {
    sqlite = new SqliteDatabase(':memory:');
    sqlite.exec(`
      create table members (id text primary key, username text, joined integer);
      create table messages (id text primary key, sender_id text, body text, seq integer);
      insert into members values ('m1', 'alice', 1), ('m2', 'bob', null);
      insert into messages values ('a', 'm1', 'bonjour', 1), ('b', 'm2', 'salut', 2), ('c', 'gone', 'ciao', 3);
    `);
  });
  afterEach(() => sqlite.close());

  /** What better-sqlite3 answers as objects, for the same statement. */
  const asBetterSqlite = (text: string, parameters: unknown[] = []) => sqlite.prepare(text).all(parameters);

  it('answers a read with the same rows as better-sqlite3, key order included', () => {
    const cached = withStatementCache(sqlite);
    for (const [text, parameters] of [
      ['select * from members order by id', []],
      [
        `select messages.*, sender.username as sender_username from messages
         left join members as sender on sender.id = messages.sender_id where seq >= ? order by seq`,
        [2],
      ],
      ['select count(*) as n, max(seq) from messages', []],
      ['select * from members where id = ?', ['nobody']],
    ] as const) {
      const rows = cached.prepare(text).all([...parameters]);
      expect(rows, text).toEqual(asBetterSqlite(text, [...parameters]));
      for (const [i, row] of (rows as Record<string, unknown>[]).entries())
        expect(Object.keys(row), text).toEqual(
          Object.keys(asBetterSqlite(text, [...parameters])[i] as object),
        );
    }
  });

  it('keeps the last value of a column name met twice, as better-sqlite3 does', () => {
    const text = `select members.id, messages.id from members join messages on messages.sender_id = members.id
                  order by messages.seq`;
    expect(withStatementCache(sqlite).prepare(text).all([])).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(asBetterSqlite(text)).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('answers RETURNING rows and runs writes, reusing each statement', () => {
    const cached = withStatementCache(sqlite);
    const insert = 'insert into members values (?, ?, ?) returning id, username';
    expect(cached.prepare(insert).all(['m3', 'carol', 3])).toEqual([{ id: 'm3', username: 'carol' }]);
    const update = 'update members set joined = ? where id = ?';
    expect(cached.prepare(update).reader).toBe(false);
    expect(cached.prepare(update).run([9, 'm3'])).toMatchObject({ changes: 1 });
    expect(cached.prepare(update)).toBe(cached.prepare(update));
    expect(asBetterSqlite('select joined from members where id = ?', ['m3'])).toEqual([{ joined: 9 }]);
  });

  it('streams a read from a statement of its own', () => {
    const cached = withStatementCache(sqlite);
    const text = 'select id from messages order by seq';
    const iterator = cached.prepare(text).iterate([]);
    expect(iterator.next().value).toEqual({ id: 'a' });
    // The cached statement stays usable while the stream is open.
    expect(cached.prepare(text).all([])).toHaveLength(3);
    expect([...iterator]).toEqual([{ id: 'b' }, { id: 'c' }]);
  });
});

describe('objectRows', () => {
  it('makes one object per array, by column position', () => {
    expect(
      objectRows(
        ['a', 'b'],
        [
          [1, null],
          ['x', 2],
        ],
      ),
    ).toEqual([
      { a: 1, b: null },
      { a: 'x', b: 2 },
    ]);
    expect(objectRows(['a'], [])).toEqual([]);
  });
});
