// Upload throughput of a large file (1 GiB of content by default, encrypted size) through
// POST /api/rings/files/upload.php (multipart) and through the resumable tus endpoint, against a
// plain stream-to-disk peer (a minimal node:http server piping the request body to a file) in the
// same run, with the built server's memory (RSS, read from /proc) sampled during each upload.
// Storage: the local disk under a temporary DATA_DIR (the default provider).
// Usage: node scripts/build.mjs && node bench/uploads.mjs   (BENCH_UPLOAD_MIB, BENCH_ROUNDS)
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { adminToken, json, machine, rssMiB, startServer, table, withDatabase } from './support.mjs';

const PLAIN_MIB = Number(process.env.BENCH_UPLOAD_MIB ?? 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CUSTOMER = { email: 'bench-files@example.com', password: 'Bench-Customer-1' };
const MIB = 1024 * 1024;

// SRF1 (packages/e2ee file-stream.ts): 12-byte header, a 16-byte tag per 64 KiB chunk.
const encryptedSize = (plain) => 12 + plain + Math.max(1, Math.ceil(plain / 65_536)) * 16;

/** An SRF1-shaped file of `plainMib` MiB of content (random bytes after the magic). */
function makeFile(dir, plainMib = PLAIN_MIB, name = 'upload.bin') {
  const file = path.join(dir, name);
  const size = encryptedSize(plainMib * MIB);
  const block = randomBytes(MIB);
  const fd = fs.openSync(file, 'w');
  for (let written = 0; written < size;) {
    const n = Math.min(block.length, size - written);
    const chunk = block.subarray(0, n);
    if (written === 0) Buffer.from([0x53, 0x52, 0x46, 0x31, 0x01]).copy(chunk);
    fs.writeSync(fd, chunk);
    written += n;
  }
  fs.closeSync(fd);
  return { file, size };
}

/** Resident memory of a process, in bytes (Linux). */
const rssOf = (pid) => rssMiB(pid) * 1024 * 1024;

/** Samples a process's RSS every 50 ms until stopped: the growth over the starting value. */
function sampleRss(pid) {
  if (!pid) return () => Number.NaN;
  const start = rssOf(pid);
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssOf(pid)) - start;
  };
}

/** Sends one request whose body is `parts` (buffers and file paths, streamed in order). */
function send(url, { method = 'POST', headers = {}, parts, length }) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method,
      headers: { ...headers, 'content-length': String(length) },
      agent: false,
    });
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    (async () => {
      for (const part of parts) {
        if (Buffer.isBuffer(part)) {
          if (!req.write(part)) await new Promise((r) => req.once('drain', r));
          continue;
        }
        for await (const chunk of fs.createReadStream(part, { highWaterMark: 256 * 1024 })) {
          if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        }
      }
      req.end();
    })().catch(reject);
  });
}

/** The peer: a minimal node:http server that pipes each request body to a file (own process). */
async function startPeer(dir) {
  const script = `
    const http = require('node:http'); const fs = require('node:fs'); const path = require('node:path');
    let n = 0;
    const server = http.createServer((req, res) => {
      const file = path.join(${JSON.stringify(dir)}, 'peer-' + (n++) + '.bin');
      const out = fs.createWriteStream(file);
      req.pipe(out);
      out.on('finish', () => { res.end(String(out.bytesWritten)); fs.rmSync(file, { force: true }); });
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) =>
    child.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
  );
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid, stop: () => child.kill() };
}

async function prepare(url) {
  const admin = await adminToken(url);
  const created = await json(`${url}/api/admin/customers.php`, {
    method: 'POST',
    token: admin,
    body: { first_name: 'Banc', last_name: 'Fichiers', ...CUSTOMER, email_verified: true },
  });
  const plans = await json(`${url}/api/subscriptions/plans.php`);
  const enterprise = plans.data.find((p) => p.slug === 'enterprise') ?? plans.data[plans.data.length - 1];
  const today = new Date().toISOString().slice(0, 10);
  const nextYear = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
  await json(`${url}/api/admin/customers/${created.data.id}/create-subscription`, {
    method: 'POST',
    token: admin,
    body: { plan_id: enterprise.id, billing_cycle: 'yearly', starts_at: today, expires_at: nextYear },
  });
  const customer = (await json(`${url}/api/auth/customer-login.php`, { method: 'POST', body: CUSTOMER }))
    .token;
  const ring = await json(`${url}/api/customer/rings.php`, {
    method: 'POST',
    token: customer,
    body: { name: 'Banc fichiers' },
  });
  const ringId = ring.data.id;
  await json(`${url}/api/customer/rings.php`, {
    method: 'PUT',
    token: customer,
    body: { ring_id: ringId, max_file_size: 2048 },
  });
  const login = await json(`${url}/api/rings/login.php`, {
    method: 'POST',
    body: { email: CUSTOMER.email, password: CUSTOMER.password, ring_id: ringId },
  });
  return { token: login.token, ringId };
}

// Encrypted-name-shaped segment and a wrapped-key-shaped JSON: the server only checks their form.
const segment = () => randomBytes(30).toString('base64url');
const wrappedKey = () =>
  JSON.stringify({
    v: 1,
    epoch: 1,
    iv: randomBytes(12).toString('base64'),
    ct: randomBytes(48).toString('base64'),
  });

async function viaMultipart(url, token, file) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const field = (name, value) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    field('name', segment()) +
      field('file_id', randomUUID()) +
      field('file_key', wrappedKey()) +
      field('size', String(file.size)) +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="blob"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const res = await send(`${url}/api/rings/files/upload.php`, {
    headers: {
      Authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    parts: [head, file.file, tail],
    length: head.length + file.size + tail.length,
  });
  if (res.status !== 200) throw new Error(`upload.php → ${res.status} ${res.body.slice(0, 300)}`);
  const stored = JSON.parse(res.body).file;
  if (stored.size_bytes !== file.size) throw new Error('stored size differs');
  return stored.id;
}

async function viaTus(url, token, file) {
  const meta = { name: segment(), file_id: randomUUID(), file_key: wrappedKey() };
  const created = await send(`${url}/api/rings/files/tus`, {
    headers: {
      Authorization: `Bearer ${token}`,
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(file.size),
      'Upload-Metadata': Object.entries(meta)
        .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
        .join(','),
    },
    parts: [],
    length: 0,
  });
  if (created.status !== 201) throw new Error(`tus POST → ${created.status} ${created.body}`);
  const res = await send(`${url}${created.headers.location}`, {
    method: 'PATCH',
    headers: {
      Authorization: `Bearer ${token}`,
      'Tus-Resumable': '1.0.0',
      'Upload-Offset': '0',
      'content-type': 'application/offset+octet-stream',
    },
    parts: [file.file],
    length: file.size,
  });
  if (res.status !== 204 || res.headers['x-file-id'] !== meta.file_id)
    throw new Error(`tus PATCH → ${res.status} ${res.body}`);
  return meta.file_id;
}

async function viaPeer(peerUrl, file) {
  const res = await send(peerUrl, { parts: [file.file], length: file.size });
  if (Number(res.body) !== file.size) throw new Error('peer stored a different size');
}

async function timed(pid, body) {
  const stop = sampleRss(pid);
  const t0 = performance.now();
  const result = await body();
  const seconds = (performance.now() - t0) / 1000;
  return { result, seconds, rss: stop() };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

await withDatabase('sqlite', undefined, async ({ dataDir }) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'securering-bench-files-'));
  const server = await startServer({ dataDir, databaseUrl: '' });
  const peer = await startPeer(work);
  try {
    const { token } = await prepare(server.url);
    const file = makeFile(work);
    // Warm-up (code paths compiled, heap sized), as on a server that has been running a while.
    const warm = makeFile(work, 16, 'warm-up.bin');
    await viaPeer(peer.url, warm);
    for (const id of [await viaMultipart(server.url, token, warm), await viaTus(server.url, token, warm)])
      await json(`${server.url}/api/rings/files/delete.php`, { method: 'POST', token, body: { id } });
    const results = { peer: [], multipart: [], tus: [] };
    for (let round = 0; round < ROUNDS; round++) {
      results.peer.push(await timed(peer.pid, () => viaPeer(peer.url, file)));
      const multipart = await timed(server.pid, () => viaMultipart(server.url, token, file));
      results.multipart.push(multipart);
      const tus = await timed(server.pid, () => viaTus(server.url, token, file));
      results.tus.push(tus);
      // Keep the disk free for the next round.
      for (const id of [multipart.result, tus.result])
        await json(`${server.url}/api/rings/files/delete.php`, { method: 'POST', token, body: { id } });
    }
    const mbps = (r) => file.size / MIB / r.seconds;
    // Each round's speed against the peer's in the same round: load on the machine drifts.
    const ratio = (runs) => median(runs.map((r, i) => mbps(r) / mbps(results.peer[i])));
    const rows = [
      ['plain stream-to-disk peer', results.peer],
      ['POST upload.php (multipart)', results.multipart],
      ['tus (POST + one PATCH)', results.tus],
    ].map(([name, runs]) => {
      const speed = median(runs.map(mbps));
      const rss = Math.max(...runs.map((r) => r.rss));
      if (process.env.BENCH_VERBOSE)
        console.log(
          name,
          runs.map((r) => (r.rss / MIB).toFixed(1)).join(' '),
          runs.map((r) => mbps(r).toFixed(0)).join(' '),
        );
      return [
        name,
        `${speed.toFixed(0)} MiB/s`,
        `${(ratio(runs) * 100).toFixed(0)} %`,
        `${(rss / MIB).toFixed(1)} MiB`,
      ];
    });
    console.log(
      `\nUploads of ${(file.size / MIB).toFixed(0)} MiB (encrypted size), median of ${ROUNDS} rounds, ${machine()}\n`,
    );
    console.log(
      table(['Path', 'Throughput', 'Of the peer', 'RSS growth of the receiving process (max)'], rows),
    );
  } finally {
    peer.stop();
    await server.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
