import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('Web Push settings of the configuration', () => {
  it('takes the VAPID subject from ADMIN_EMAIL, else an https PUBLIC_URL, else the default address', () => {
    expect(loadConfig({ ADMIN_EMAIL: 'ops@example.fr' }).webPush.subject).toBe('mailto:ops@example.fr');
    expect(loadConfig({ PUBLIC_URL: 'https://chat.example.fr/' }).webPush.subject).toBe(
      'https://chat.example.fr',
    );
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:8080' }).webPush.subject).toBe(
      'mailto:admin@securering.fr',
    );
  });

  it('allows loopback http endpoints only when asked, and never in production', () => {
    expect(loadConfig({}).webPush.allowLocalHttp).toBe(false);
    expect(loadConfig({ WEB_PUSH_ALLOW_HTTP: '1', NODE_ENV: 'test' }).webPush.allowLocalHttp).toBe(true);
    expect(() => loadConfig({ WEB_PUSH_ALLOW_HTTP: '1', NODE_ENV: 'production' })).toThrow(
      /WEB_PUSH_ALLOW_HTTP/,
    );
  });
});
