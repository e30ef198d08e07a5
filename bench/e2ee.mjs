// Cost of the end-to-end encryption in a real browser: packages/e2ee bundled with esbuild, served
// from http://127.0.0.1 (a secure context, as WebCrypto requires) and driven in headless Chromium.
// Usage: node bench/e2ee.mjs   (BENCH_MESSAGES, BENCH_MEMBERS, BENCH_FILE_MB; CHROMIUM_PATH)
import http from 'node:http';
import os from 'node:os';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { ROOT, percentile, table } from './support.mjs';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2000);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 300);
const FILE_MB = Number(process.env.BENCH_FILE_MB ?? 64);
const RUNS = 3;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const BUDGET = { unlockMs: 1500, rotationMs: 2000, messageMs: 2 };

/** The package as one browser script exposing its API as globalThis.e2ee. */
async function bundle() {
  const result = await build({
    stdin: {
      contents: `import * as e2ee from './packages/e2ee/src/index.ts'; globalThis.e2ee = e2ee;`,
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    // @hpke/core falls back to import("crypto") only on Node ≤ 18; browsers never reach it.
    external: ['crypto'],
  });
  return result.outputFiles[0].text;
}

function serve(script) {
  const pages = {
    '/': ['text/html', '<!doctype html><meta charset="utf-8"><script type="module" src="/e2ee.js"></script>'],
    '/e2ee.js': ['text/javascript', script],
  };
  const server = http.createServer((req, res) => {
    const page = pages[req.url];
    res.writeHead(page ? 200 : 404, {
      'content-type': page?.[0] ?? 'text/plain',
      // Cross-origin isolation gives performance.now() 5 µs resolution instead of 100 µs.
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
    });
    res.end(page?.[1] ?? 'not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// The functions below run in the page (page.evaluate serializes them): globalThis.e2ee only.

async function unlockTimes({ iterations, runs }) {
  const { generateIdentity, sealIdentity, openIdentity } = globalThis.e2ee;
  const passphrase = 'une phrase secrète de banc';
  const record = await sealIdentity(await generateIdentity(), passphrase, { memberId: 'm-1', iterations });
  const times = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    await openIdentity(record, passphrase, { memberId: 'm-1' });
    times.push(performance.now() - start);
  }
  return times;
}

async function rotationTimes({ members, runs, level }) {
  const { generateIdentity, exportPublicIdentity, generateEpochKey, wrapEpochKeyFor } = globalThis.e2ee;
  const sender = await generateIdentity();
  const recipients = await Promise.all(
    Array.from({ length: members }, async (_, i) => ({
      memberId: `m-${i}`,
      x25519PublicB64: (await exportPublicIdentity(await generateIdentity())).x25519,
    })),
  );
  const times = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const key = await generateEpochKey({ ringId: 'ring-1', epoch: run + 1, level });
    const shares = await Promise.all(
      recipients.map((recipient) =>
        wrapEpochKeyFor(key, recipient, { memberId: 'm-0', signingPrivateKey: sender.signing.privateKey }),
      ),
    );
    times.push(performance.now() - start);
    if (shares.length !== members) throw new Error('missing shares');
  }
  return times;
}

async function messageTimes({ count, level }) {
  const { generateIdentity, generateEpochKey, encryptMessage, decryptMessage } = globalThis.e2ee;
  const alice = await generateIdentity();
  const key = await generateEpochKey({ ringId: 'ring-1', epoch: 1, level });
  const where = { ringId: 'ring-1', conversationId: 'room:general' };
  const lookups = { epochKey: () => key, senderVerifyKey: () => alice.signing.publicKey };
  const text = 'Bonjour à tous, réunion demain à 10 h dans la salle habituelle. '.repeat(3);
  const encrypt = [];
  const decrypt = [];
  for (let i = 0; i < count; i++) {
    const header = {
      v: 1,
      ...where,
      epoch: 1,
      senderId: 'alice',
      clientMessageId: `c-${i}`,
      sentAt: new Date().toISOString(),
    };
    let start = performance.now();
    const envelope = await encryptMessage(header, text, key, alice.signing.privateKey);
    encrypt.push(performance.now() - start);
    start = performance.now();
    const { plaintext } = await decryptMessage(envelope, where, lookups);
    decrypt.push(performance.now() - start);
    if (plaintext !== text) throw new Error('round trip failed');
  }
  return { encrypt, decrypt };
}

async function fileThroughput({ megabytes }) {
  const { generateFileKey, encryptStream, decryptStream, ciphertextSize } = globalThis.e2ee;
  const piece = crypto.getRandomValues(new Uint8Array(65_536));
  const source = (bytes) => {
    let sent = 0;
    return new ReadableStream({
      pull(controller) {
        if (sent >= bytes) return controller.close();
        // 1 MiB pieces, as a File's stream gives them.
        const chunk = new Uint8Array(Math.min(1 << 20, bytes - sent));
        for (let at = 0; at < chunk.length; at += piece.length)
          chunk.set(piece.subarray(0, chunk.length - at), at);
        controller.enqueue(chunk);
        sent += chunk.length;
      },
    });
  };
  const drain = async (stream) => {
    const parts = [];
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
    return new Blob(parts);
  };
  const bytes = megabytes * 1024 * 1024;
  const key = generateFileKey();
  let start = performance.now();
  const encrypted = await drain(encryptStream(source(bytes), key));
  const encryptMs = performance.now() - start;
  if (encrypted.size !== ciphertextSize(bytes)) throw new Error('unexpected ciphertext size');
  start = performance.now();
  const decrypted = await drain(decryptStream(encrypted.stream(), key));
  const decryptMs = performance.now() - start;
  if (decrypted.size !== bytes) throw new Error('unexpected plaintext size');
  return { encryptMs, decryptMs };
}

const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const p95 = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    95,
  );
const ms = (value) => (value < 10 ? value.toFixed(3) : value.toFixed(0));

async function main() {
  const script = await bundle();
  const server = await serve(script);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => globalThis.e2ee !== undefined);
    if (!(await page.evaluate(() => globalThis.crossOriginIsolated))) throw new Error('page not isolated');
    const rows = [];
    const misses = [];
    const check = (name, value, budget) => {
      const ok = value <= budget;
      if (!ok) misses.push(`${name}: ${ms(value)} ms > ${budget} ms`);
      return ok ? 'yes' : '**no**';
    };

    for (const iterations of [600_000, 1_000_000]) {
      const times = await page.evaluate(unlockTimes, { iterations, runs: RUNS });
      const name = `Unlock (openIdentity, PBKDF2 ${iterations.toLocaleString('en')} it.)`;
      rows.push([
        name,
        `${ms(median(times))} ms (max ${ms(Math.max(...times))})`,
        '≤ 1,500 ms',
        check(name, Math.max(...times), BUDGET.unlockMs),
      ]);
    }
    for (const level of ['standard', 'military']) {
      const times = await page.evaluate(rotationTimes, { members: MEMBERS, runs: RUNS, level });
      const name = `New epoch for ${MEMBERS} members, ${level} (generate + ${MEMBERS} HPKE wraps + signatures)`;
      rows.push([
        name,
        `${ms(median(times))} ms (max ${ms(Math.max(...times))})`,
        '≤ 2,000 ms',
        check(name, Math.max(...times), BUDGET.rotationMs),
      ]);
    }
    for (const level of ['standard', 'military']) {
      const { encrypt, decrypt } = await page.evaluate(messageTimes, { count: MESSAGES, level });
      for (const [what, times] of [
        ['encrypt + sign', encrypt],
        ['verify + decrypt', decrypt],
      ]) {
        const name = `Message ${what}, ${level} (${MESSAGES} messages, median / p95)`;
        rows.push([
          name,
          `${ms(median(times))} / ${ms(p95(times))} ms`,
          '≤ 2 ms',
          check(name, p95(times), BUDGET.messageMs),
        ]);
      }
    }
    const { encryptMs, decryptMs } = await page.evaluate(fileThroughput, { megabytes: FILE_MB });
    rows.push([
      `File stream encryption (${FILE_MB} MiB, 64 KiB chunks)`,
      `${(FILE_MB / (encryptMs / 1000)).toFixed(0)} MiB/s`,
      '—',
      '—',
    ]);
    rows.push([
      `File stream decryption (${FILE_MB} MiB)`,
      `${(FILE_MB / (decryptMs / 1000)).toFixed(0)} MiB/s`,
      '—',
      '—',
    ]);

    const cpus = os.cpus();
    console.log(
      `Machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'CPU'}, Chromium ${browser.version()}, ${os.platform()} ${os.release()}`,
    );
    console.log(
      `Bundle: ${(Buffer.byteLength(script) / 1024).toFixed(0)} KiB minified (packages/e2ee with @hpke/core and @noble/ciphers)\n`,
    );
    console.log(table(['Measure', 'Result', 'Budget', 'Within budget'], rows));
    if (misses.length > 0) {
      console.error(`\nBudgets missed:\n- ${misses.join('\n- ')}`);
      process.exitCode = 1;
    }
  } finally {
    await browser.close();
    server.close();
  }
}

await main();
