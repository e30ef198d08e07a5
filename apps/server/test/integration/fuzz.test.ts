import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock';
import { buildTestApp, type TestApp } from '../build-test-app';
import { bearer, buildCustomer, buildRing, buildRingMember, customerToken, ringToken } from '../factories';
import { TEST_DB_KIND } from '../test-database';

/**
 * Issue 9: malformed input to every public and Ring endpoint must never answer 5xx, never change
 * the database and never stall the server. The endpoint list comes from the routes the app
 * registered, so endpoints added later are fuzzed too.
 */

type Fuzz = { label: string; payload?: string | Buffer; contentType?: string };

const JSON_TYPE = 'application/json';
const json = (label: string, value: unknown): Fuzz => ({
  label,
  payload: JSON.stringify(value),
  contentType: JSON_TYPE,
});

/** Field names the contract uses, so malformed values reach the schemas rather than stop at `{}`. */
const FIELDS = [
  'email',
  'password',
  'confirm_password',
  'token',
  'verification_token',
  'auto_login',
  'first_name',
  'last_name',
  'name',
  'subject',
  'message',
  'invite_code',
  'username',
  'plan_id',
  'billing_cycle',
  'billing_period',
  'video_option',
  'ring_id',
  'user_id',
  'id',
  'session_id',
  'paypal_order_id',
  'return_url',
  'settings',
  'reason',
  'action',
  'level',
  'category',
  'details',
  'accept_terms',
  'accept_privacy',
  'type',
  'encryption_level',
  'max_file_size',
];

/** Values of the wrong type or shape for every field above. */
const WEIRD_VALUES: Array<[string, unknown]> = [
  ['null', null],
  ['zero', 0],
  ['negative', -1],
  ['float', 1.5],
  ['huge number', 1e308],
  ['true', true],
  ['false', false],
  ['empty array', []],
  ['empty object', {}],
  ['array of strings', ['a', 'b']],
  ['operator object', { $ne: null, $gt: '' }],
  ['number as string', '1'],
  ['zero as string', '0'],
  ['float as string', '1.5'],
  ['exponent as string', '1e309'],
  ['NaN as string', 'NaN'],
  ['negative zero as string', '-0'],
  ['true as string', 'true'],
  ['null as string', 'null'],
  ['empty string', ''],
  ['blank string', '   \t\n '],
  ['null byte', '\u0000'],
  ['null byte inside', 'lea\u0000@example.com'],
  ['control characters', '\u0001\u0007\u001b[31m\u007f'],
  ['lone surrogate', '\ud800'],
  ['reversed surrogates', '\udc00\ud800'],
  ['emoji and combining marks', '🔥e\u0301\u200d\ufeff'],
  ['right-to-left override', '\u202eadmin'],
  ['markup', '<script>alert(1)</script>'],
  ['sql', "' OR 1=1; DROP TABLE customers; --"],
  ['path traversal', '../../../../etc/passwd'],
  ['percent escapes', '%00%0a%ff'],
  ['long string', 'x'.repeat(5_000)],
  ['very long string', 'é'.repeat(60_000)],
  ['crafted email', `a@${'a.'.repeat(5_000)}@`],
  ['deep value', JSON.parse(`${'['.repeat(500)}${']'.repeat(500)}`)],
  ['prototype-looking string', '__proto__'],
];

function buildCorpus(): Fuzz[] {
  const corpus: Fuzz[] = [
    // Empty and missing bodies.
    { label: 'no body, no content type' },
    { label: 'empty JSON body', payload: '', contentType: JSON_TYPE },
    { label: 'blank JSON body', payload: '   \n', contentType: JSON_TYPE },
    { label: 'empty text body', payload: '', contentType: 'text/plain' },
    // Broken JSON.
    ...[
      '{',
      '}',
      '{"a":',
      '{"a" 1}',
      "{'a':1}",
      '[1,2',
      '{"a":1}}',
      '{"a":1,}',
      '[1,]',
      'nul',
      'undefined',
    ].map((payload) => ({ label: `broken JSON ${payload}`, payload, contentType: JSON_TYPE })),
    ...[
      'NaN',
      'Infinity',
      '-Infinity',
      '{"a": NaN}',
      '/* c */ {}',
      '{"a":1} // c',
      '\u0000{}',
      '{}\u0000',
    ].map((payload) => ({ label: `non-JSON ${JSON.stringify(payload)}`, payload, contentType: JSON_TYPE })),
    // Scalars and arrays instead of objects.
    ...['null', 'true', 'false', '0', '-1', '1e309', '"text"', '""', '123456789012345678901234567890'].map(
      (payload) => ({ label: `scalar ${payload}`, payload, contentType: JSON_TYPE }),
    ),
    json('empty array', []),
    json('array of an object', [{ email: 'a@b.fr' }]),
    json('array of nulls', [null, null]),
    json('nested arrays', [[[[]]]]),
    json('array of strings', ['email', 'password']),
    // Deep nesting.
    { label: 'deep arrays', payload: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, contentType: JSON_TYPE },
    {
      label: 'deep objects',
      payload: `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
      contentType: JSON_TYPE,
    },
    { label: 'unclosed deep arrays', payload: '['.repeat(50_000), contentType: JSON_TYPE },
    // Prototype keys.
    {
      label: '__proto__ key',
      payload: '{"__proto__":{"admin":true,"role":"super_admin"}}',
      contentType: JSON_TYPE,
    },
    { label: 'nested __proto__', payload: '{"settings":{"__proto__":{"x":1}}}', contentType: JSON_TYPE },
    { label: '__proto__ null', payload: '{"__proto__":null,"email":"a@b.fr"}', contentType: JSON_TYPE },
    {
      label: 'constructor.prototype',
      payload: '{"constructor":{"prototype":{"admin":true}}}',
      contentType: JSON_TYPE,
    },
    json('constructor string', { constructor: 'x', prototype: 'y', toString: 1, hasOwnProperty: 2 }),
    // Invalid UTF-8 and odd encodings.
    {
      label: 'invalid UTF-8 in a string',
      payload: Buffer.from([0x7b, 0x22, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d]),
      contentType: JSON_TYPE,
    },
    {
      label: 'invalid UTF-8 only',
      payload: Buffer.from([0xff, 0xfe, 0xfd, 0x80, 0x81]),
      contentType: JSON_TYPE,
    },
    { label: 'UTF-16 body', payload: Buffer.from('{"email":"a@b.fr"}', 'utf16le'), contentType: JSON_TYPE },
    { label: 'BOM', payload: '\ufeff{"email":"a@b.fr"}', contentType: JSON_TYPE },
    { label: 'escaped lone surrogate', payload: '{"email":"\\ud800@b.fr"}', contentType: JSON_TYPE },
    {
      label: 'escaped null byte',
      payload: '{"email":"\\u0000","password":"\\u0000"}',
      contentType: JSON_TYPE,
    },
    { label: 'null byte in a key', payload: '{"em\\u0000ail":"a@b.fr"}', contentType: JSON_TYPE },
    // Wrong content types.
    { label: 'JSON as text/plain', payload: '{"email":"a@b.fr"}', contentType: 'text/plain' },
    { label: 'garbage as text/plain', payload: 'hello', contentType: 'text/plain;charset=UTF-8' },
    {
      label: 'form encoded',
      payload: 'email=a%40b.fr&password=x',
      contentType: 'application/x-www-form-urlencoded',
    },
    { label: 'xml', payload: '<?xml version="1.0"?><a>1</a>', contentType: 'application/xml' },
    { label: 'broken multipart', payload: '--x\r\nbroken', contentType: 'multipart/form-data; boundary=x' },
    { label: 'multipart without boundary', payload: 'abc', contentType: 'multipart/form-data' },
    { label: 'binary', payload: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), contentType: 'image/png' },
    {
      label: 'JSON with a wrong charset',
      payload: '{"a":1}',
      contentType: 'application/json; charset=utf-16',
    },
    { label: 'odd content type', payload: '{"a":1}', contentType: 'application/json, text/html' },
    { label: 'empty content type', payload: '{"a":1}', contentType: '' },
    { label: 'JSON without content type', payload: '{"email":"a@b.fr"}' },
    // Huge bodies: over every per-route limit, and just under the server-wide one.
    json('huge string field', { email: 'a'.repeat(200_000), message: 'b'.repeat(200_000) }),
    json('many keys', Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))),
    {
      label: 'almost 1 MiB',
      payload: JSON.stringify({ details: 'z'.repeat(1024 * 1024 - 100) }),
      contentType: JSON_TYPE,
    },
    // Every known field at once, with one kind of wrong value.
    ...WEIRD_VALUES.map(([label, value]) =>
      json(`all fields ${label}`, Object.fromEntries(FIELDS.map((f) => [f, value]))),
    ),
    // One field at a time, cycling through the wrong values.
    ...FIELDS.flatMap((field, i) =>
      [0, 1, 2, 3].map((k) => {
        const [label, value] = WEIRD_VALUES[(i * 4 + k) % WEIRD_VALUES.length]!;
        return json(`${field}: ${label}`, { [field]: value });
      }),
    ),
  ];
  return corpus;
}

/** Every byte percent-encoded (lone surrogates become U+FFFD, as a browser would send them). */
const percentEncode = (value: string) =>
  [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** Query strings for GET routes, which take no body. */
function buildQueries(): string[] {
  const strings = WEIRD_VALUES.filter(([, v]) => typeof v === 'string').map(([, v]) => v as string);
  return [
    '',
    '?',
    '?&&&',
    '?=',
    '?a',
    '?ring_id[]=1&ring_id[]=2',
    '?ring_id=1&ring_id=2',
    '?token=a&token=b',
    '?__proto__[admin]=1',
    '?constructor[prototype][admin]=1',
    '?page=-1&per_page=1e309&limit=-5&offset=NaN',
    '?%ff%fe=%ff%fe',
    '?ring_id=%E0%A4%A',
    '?token=%00&ring_id=%00&id=%00&session_id=%00',
    `?token=${'a'.repeat(6_000)}`,
    ...strings.map(
      (value) => `?${FIELDS.map((f) => `${f}=${percentEncode(value.slice(0, 300))}`).join('&')}`,
    ),
  ];
}

const PARAM_VALUES = ['x', '%00', '..%2F..%2Fetc', 'a'.repeat(300), '%ff'];

describe('fuzzing every public and Ring endpoint (issue 9)', () => {
  let t: TestApp;
  const corpus = buildCorpus();
  const queries = buildQueries();
  const failures: string[] = [];
  let requestCount = 0;
  let slowest = 0;
  let ringHeaders: Record<string, string>;
  let customerHeaders: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp({
      // A fixed clock: sessions are touched once, before the snapshot, and never again.
      clock: new ManualClock('2026-11-22T10:00:30.000Z'),
      // No per-IP limits: every body reaches validation instead of a 429.
      config: { rateLimits: { loginFailures: 1_000_000, loginWindowMs: 60_000, publicPerMinute: 0 } },
    });
    const owner = await buildCustomer(t.ctx);
    const ring = await buildRing(t.ctx, owner.id);
    const member = await buildRingMember(t.ctx, ring.id, { role: 'admin' });
    ringHeaders = bearer(await ringToken(t.ctx, member.id));
    // A customer without a subscription or Ring: body-less calls such as cancel have nothing to act on.
    const customer = await buildCustomer(t.ctx);
    customerHeaders = bearer(await customerToken(t.ctx, customer.id));
    // A session's first use records last_used_at: do it now, before any snapshot.
    for (const headers of [ringHeaders, customerHeaders]) {
      await t.app.inject({ method: 'GET', url: '/api/notifications/get-settings.php', headers });
    }
  }, 60_000);
  afterAll(() => t.close());

  const apiRoutes = () =>
    t.routes.filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD' && r.method !== 'OPTIONS');
  const isAdmin = (url: string) => url.startsWith('/api/admin/');
  /** Calls that end or mint the caller's own session: their effect on `sessions` is the point of them. */
  const isSessionCall = (url: string) => /logout|mint-stream-token/.test(url);

  function urlsFor(pattern: string): string[] {
    if (!/[:*]/.test(pattern)) return [pattern];
    return PARAM_VALUES.map((value) => pattern.replace(/:[A-Za-z_]+|\*/g, value));
  }

  /**
   * Every table's row count and a hash of its rows, but the system log (rejections are logged).
   * `ignore` leaves out more tables (`'*'`) or columns.
   */
  async function snapshot(
    ignore: Record<string, '*' | readonly string[]> = {},
  ): Promise<Record<string, string>> {
    const skip = new Set(['system_logs', 'kysely_migration', 'kysely_migration_lock']);
    for (const [table, columns] of Object.entries(ignore)) if (columns === '*') skip.add(table);
    let tables = await t.ctx.db.introspection.getTables();
    if (TEST_DB_KIND === 'postgres') {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.ctx.db);
      tables = tables.filter((table) => table.schema === rows[0]?.schema);
    }
    const out: Record<string, string> = {};
    for (const table of tables
      .filter((x) => !skip.has(x.name))
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const rows = await t.ctx.db
        .selectFrom(table.name as never)
        .selectAll()
        .execute();
      const columns = ignore[table.name];
      const lines = rows
        .map((row) => {
          const kept: Record<string, unknown> = { ...row };
          if (Array.isArray(columns)) for (const column of columns) delete kept[column];
          return JSON.stringify(kept);
        })
        .sort();
      out[table.name] = `${rows.length} ${createHash('sha256').update(lines.join('\n')).digest('hex')}`;
    }
    return out;
  }

  let ip = 0;
  async function send(method: string, url: string, fuzz: Fuzz | undefined, headers: Record<string, string>) {
    ip += 1;
    const started = performance.now();
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      remoteAddress: `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
      headers: {
        ...headers,
        ...(fuzz?.contentType !== undefined ? { 'content-type': fuzz.contentType } : {}),
      },
      ...(fuzz?.payload !== undefined ? { payload: fuzz.payload } : {}),
    });
    const elapsed = performance.now() - started;
    requestCount += 1;
    slowest = Math.max(slowest, elapsed);
    // FUZZ_DEBUG=1 lists the malformed calls a write route accepted, to see what reached a service.
    if (process.env.FUZZ_DEBUG && res.statusCode < 300 && method !== 'GET')
      console.log(`ACCEPTED ${res.statusCode} ${method} ${url} [${fuzz?.label}]`);
    if (res.statusCode >= 500) {
      failures.push(
        `${res.statusCode} ${method} ${url.slice(0, 120)} [${fuzz?.label ?? 'query'}] ${res.body.slice(0, 200)}`,
      );
    }
  }

  /** Fuzzes one route: bodies for writes, query strings for reads; a few requests at a time. */
  async function fuzzRoute(method: string, pattern: string, headers: Record<string, string>, bodies: Fuzz[]) {
    const jobs: Array<() => Promise<void>> = [];
    for (const url of urlsFor(pattern)) {
      if (method === 'GET')
        for (const query of queries) jobs.push(() => send(method, `${url}${query}`, undefined, headers));
      else for (const fuzz of bodies) jobs.push(() => send(method, url, fuzz, headers));
    }
    for (let i = 0; i < jobs.length; i += 8) await Promise.all(jobs.slice(i, i + 8).map((job) => job()));
    // Still responsive: a health check answers at once between two routes.
    const started = performance.now();
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(performance.now() - started).toBeLessThan(2_000);
  }

  /** Routes that accept this bearer (an empty call does not answer 401 or 403). */
  async function routesAccepting(headers: Record<string, string>) {
    const accepted = [];
    for (const route of apiRoutes().filter((r) => !isAdmin(r.url) && !isSessionCall(r.url))) {
      const url = urlsFor(route.url)[0]!;
      const res = await t.app.inject({ method: route.method as 'GET', url, headers });
      if (res.statusCode !== 401 && res.statusCode !== 403) accepted.push(route);
    }
    return accepted;
  }

  /** No 5xx, and no single request took seconds, since the phase began. */
  function expectHealthyPhase(minimumRequests: number) {
    expect(failures.slice(0, 20), `${failures.length} server errors`).toEqual([]);
    expect(slowest).toBeLessThan(5_000);
    expect(requestCount).toBeGreaterThanOrEqual(minimumRequests);
  }
  function startPhase() {
    failures.length = 0;
    requestCount = 0;
    slowest = 0;
  }

  it('has a corpus of at least 200 malformed bodies', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    expect(queries.length).toBeGreaterThanOrEqual(40);
    expect(apiRoutes().some((r) => r.url === '/api/rings/info.php')).toBe(true);
  });

  it('answers anonymous malformed input to every /api route without 5xx or a database change', async () => {
    startPhase();
    const before = await snapshot();
    // Admin routes refuse anonymous callers first: a sample of the corpus is enough there.
    const adminSample = corpus.filter((_, i) => i % 8 === 0);
    for (const route of apiRoutes())
      await fuzzRoute(route.method, route.url, {}, isAdmin(route.url) ? adminSample : corpus);
    expectHealthyPhase(20 * corpus.length);
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it('answers a Ring member’s malformed input without 5xx or a database change', async () => {
    const routes = await routesAccepting(ringHeaders);
    expect(routes.map((r) => r.url)).toContain('/api/rings/info.php');
    startPhase();
    const before = await snapshot();
    for (const route of routes) await fuzzRoute(route.method, route.url, ringHeaders, corpus);
    expectHealthyPhase(2 * corpus.length);
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it('answers a customer’s malformed input without 5xx or a database change', async () => {
    const routes = await routesAccepting(customerHeaders);
    expect(routes.map((r) => r.url)).toContain('/api/customer/rings.php');
    startPhase();
    const before = await snapshot();
    for (const route of routes) await fuzzRoute(route.method, route.url, customerHeaders, corpus);
    expectHealthyPhase(5 * corpus.length);
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it('answers malformed input to logout and stream-token calls without 5xx, touching sessions only', async () => {
    // Logging out records when the member was last seen; minting adds a stream session.
    const sessionEffects = { sessions: '*', ring_members: ['last_seen_at'] } as const;
    startPhase();
    const before = await snapshot(sessionEffects);
    for (const route of apiRoutes().filter((r) => !isAdmin(r.url) && isSessionCall(r.url)))
      for (const headers of [ringHeaders, customerHeaders])
        await fuzzRoute(route.method, route.url, headers, corpus);
    expectHealthyPhase(2 * corpus.length);
    expect(await snapshot(sessionEffects)).toEqual(before);
  }, 120_000);
});
