import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * Canary scans: a random word typed in the room must never leave a browser in clear nor land
 * anywhere on the server (requests, socket frames, database files, log, backups).
 */

/** A fresh canary word (letters only, so no encoding changes it). */
export const newCanary = (): string => `canari${Math.random().toString(36).slice(2, 10)}x`;

export interface Traffic {
  /** Request bodies, request URLs and websocket frames the browser sent. */
  sent: string[];
  /** Websocket frames and API answers the browser received. */
  received: string[];
  requests: string[];
}

/** Records every request body, API answer and websocket frame of a context (popups included). */
export function recordTraffic(context: BrowserContext): Traffic {
  const traffic: Traffic = { sent: [], received: [], requests: [] };
  const watch = (page: Page) => {
    page.on('websocket', (ws) => {
      ws.on('framesent', (frame) => traffic.sent.push(String(frame.payload)));
      ws.on('framereceived', (frame) => traffic.received.push(String(frame.payload)));
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  context.on('request', (request) => {
    traffic.requests.push(request.url());
    const body = request.postData();
    if (body) traffic.sent.push(body);
    traffic.sent.push(request.url());
  });
  context.on('response', (response) => {
    if (!response.url().includes('/api/')) return;
    void response
      .text()
      .then((text) => traffic.received.push(text))
      .catch(() => undefined);
  });
  return traffic;
}

/**
 * What a context sends, as text to scan for canaries: every socket frame (popups included) and,
 * unless `requests` is false, each request's URL and body (read as latin1, so binary uploads are
 * scanned too), with its headers when `headers` is set.
 */
export function recordSent(
  context: BrowserContext,
  options: { requests?: boolean; headers?: boolean } = {},
): string[] {
  const sent: string[] = [];
  const watch = (page: Page) =>
    page.on('websocket', (ws) => ws.on('framesent', (frame) => sent.push(String(frame.payload))));
  context.pages().forEach(watch);
  context.on('page', watch);
  if (options.requests === false) return sent;
  context.on('request', (request) => {
    sent.push(request.url());
    if (options.headers) sent.push(JSON.stringify(request.headers()));
    const body = request.postDataBuffer();
    if (body) sent.push(body.toString('latin1'));
  });
  return sent;
}

/** Every file under `dir`, recursively (WAL and temporary files included). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : entry.isFile() ? [full] : [];
  });
}

/** Whether `bytes` hold `text` in UTF-8 or UTF-16LE. */
export const holds = (bytes: Buffer, text: string): boolean =>
  bytes.includes(Buffer.from(text, 'utf8')) || bytes.includes(Buffer.from(text, 'utf16le'));

/** The files under `dir` that hold `text` (an empty list when none does). */
export const filesHolding = (dir: string, text: string): string[] =>
  filesUnder(dir).filter((file) => holds(fs.readFileSync(file), text));

/** The uncompressed entries of a zip (stored or deflated), read through its central directory. */
export function unzip(zip: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('not a zip');
  const count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error('bad central directory');
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const local = zip.readUInt32LE(offset + 42);
    const name = zip.subarray(offset + 46, offset + 46 + nameLength).toString();
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    if (!name.endsWith('/')) entries.set(name, method === 8 ? zlib.inflateRawSync(data) : Buffer.from(data));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
