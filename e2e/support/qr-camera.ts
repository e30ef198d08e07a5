import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { qrModules } from '../../apps/web/src/features/ring/e2ee/verification-qr';

/**
 * A fake camera that films a QR code: a Y4M video (the format Chromium's
 * `--use-file-for-fake-video-capture` reads) of `payload` drawn black on white, 8 px per module,
 * centred in a 400 × 400 frame. Returns the Chromium flag that plays it.
 */
export function qrCameraFlag(payload: string): string {
  const modules = qrModules(payload);
  const width = 400;
  const cell = 8;
  const offset = Math.floor((width - modules.length * cell) / 2);
  const luma = Buffer.alloc(width * width, 235);
  modules.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (!dark) return;
      for (let y = 0; y < cell; y++)
        luma.fill(
          16,
          (offset + r * cell + y) * width + offset + c * cell,
          (offset + r * cell + y) * width + offset + (c + 1) * cell,
        );
    }),
  );
  const chroma = Buffer.alloc((width / 2) * (width / 2), 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma, chroma]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'securering-qr-')), 'camera.y4m');
  fs.writeFileSync(
    file,
    Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${width} F10:1 Ip A1:1 C420jpeg\n`), frame, frame]),
  );
  return `--use-file-for-fake-video-capture=${file}`;
}
