import jsQR from 'jsqr';
import { describe, expect, it } from 'vitest';
import { qrModules, readVerificationPayload, scanOutcome, verificationPayload } from './verification-qr';

const NUMBER = '12345 67890 12345 67890 12345 67890';
const expected = { ringId: 'ring-1', memberId: 'bob', fingerprint: NUMBER };

/** The QR code drawn as a camera would see it: RGBA pixels, 4 px per module, a quiet zone. */
function render(payload: string, cell = 4, margin = 4) {
  const modules = qrModules(payload);
  const size = (modules.length + 2 * margin) * cell;
  const data = new Uint8ClampedArray(size * size * 4).fill(255);
  modules.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (!dark) return;
      for (let y = 0; y < cell; y++)
        for (let x = 0; x < cell; x++) {
          const i = (((r + margin) * cell + y) * size + (c + margin) * cell + x) * 4;
          data[i] = data[i + 1] = data[i + 2] = 0;
        }
    }),
  );
  return { data, size };
}

describe('« Vérifié » by QR code', () => {
  it('carries the Ring, the member and the safety number, and reads back through a decoder', () => {
    const payload = verificationPayload('ring-1', 'bob', NUMBER);
    expect(payload).toBe('SECURERING-VERIFY:1:ring-1:bob:123456789012345678901234567890');
    const { data, size } = render(payload);
    expect(jsQR(data, size, size)?.data).toBe(payload);
    expect(readVerificationPayload(payload)).toEqual({
      ringId: 'ring-1',
      memberId: 'bob',
      digits: '123456789012345678901234567890',
    });
  });

  it('says whether the scanned code is this member’s number, another member’s, other keys, or nothing', () => {
    expect(scanOutcome(verificationPayload('ring-1', 'bob', NUMBER), expected)).toBe('match');
    expect(scanOutcome(verificationPayload('ring-1', 'alice', NUMBER), expected)).toBe('other_member');
    expect(scanOutcome(verificationPayload('ring-1', 'bob', NUMBER.replace('1', '9')), expected)).toBe(
      'mismatch',
    );
    expect(scanOutcome(verificationPayload('ring-2', 'bob', NUMBER), expected)).toBe('invalid');
    for (const text of [
      '',
      'https://example.com',
      'SECURERING-VERIFY:2:ring-1:bob:1',
      'SECURERING-VERIFY:1:ring-1:bob:12',
    ])
      expect(scanOutcome(text, expected)).toBe('invalid');
  });
});
