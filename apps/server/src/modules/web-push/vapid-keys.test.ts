import webpush from 'web-push';
import { describe, expect, it } from 'vitest';
import { newVapidKeys } from './web-push.service';

describe('newVapidKeys', () => {
  it("makes keys in web-push's own format, which web-push signs with", () => {
    for (let i = 0; i < 50; i++) {
      const keys = newVapidKeys();
      expect(Buffer.from(keys.publicKey, 'base64url')).toHaveLength(65);
      expect(Buffer.from(keys.publicKey, 'base64url')[0]).toBe(4);
      expect(Buffer.from(keys.privateKey, 'base64url')).toHaveLength(32);
      const headers = webpush.getVapidHeaders(
        'https://fcm.googleapis.com',
        'mailto:admin@example.com',
        keys.publicKey,
        keys.privateKey,
        'aes128gcm',
      );
      expect(headers.Authorization).toContain(`k=${keys.publicKey}`);
    }
  });
});
