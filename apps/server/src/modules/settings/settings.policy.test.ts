import { describe, expect, it } from 'vitest';
import { secretsToReenter } from './settings.policy';

const smtp = {
  host: 'smtp.example.com',
  port: '587',
  username: 'mailer',
  password: 's3cret',
  from_name: 'X',
};

describe('secretsToReenter', () => {
  it('asks for the SMTP password again when host, port or username change without it', () => {
    expect(secretsToReenter('smtp', smtp, { host: 'evil.example.net' })).toEqual(['password']);
    expect(secretsToReenter('smtp', smtp, { port: '25' })).toEqual(['password']);
    expect(secretsToReenter('smtp', smtp, { username: 'other' })).toEqual(['password']);
    expect(
      secretsToReenter('smtp', smtp, { host: 'evil.example.net', port: '2525', from_name: 'Y' }),
    ).toEqual(['password']);
  });

  it('keeps the stored password when the destination is unchanged or a new password comes with it', () => {
    expect(
      secretsToReenter('smtp', smtp, { host: 'smtp.example.com', port: '587', username: 'mailer' }),
    ).toEqual([]);
    expect(secretsToReenter('smtp', smtp, { from_name: 'Nouveau nom', encryption: 'ssl' })).toEqual([]);
    expect(secretsToReenter('smtp', smtp, { host: 'new.example.com', password: 'n3w' })).toEqual([]);
    // Clearing it explicitly is a new value too.
    expect(secretsToReenter('smtp', smtp, { host: 'new.example.com', password: '' })).toEqual([]);
  });

  it('has nothing to protect when no password is stored', () => {
    expect(secretsToReenter('smtp', { ...smtp, password: '' }, { host: 'new.example.com' })).toEqual([]);
    expect(secretsToReenter('smtp', { host: 'a' }, { host: 'b' })).toEqual([]);
  });

  it('applies to every payment secret and its own destination only', () => {
    const stripe = {
      test_mode: '1',
      public_key_test: 'pk_test_a',
      secret_key_test: 'sk_test_a',
      public_key_live: 'pk_live_a',
      secret_key_live: 'sk_live_a',
      webhook_secret: 'whsec_a',
    };
    expect(secretsToReenter('stripe', stripe, { public_key_test: 'pk_test_b' })).toEqual(['secret_key_test']);
    expect(secretsToReenter('stripe', stripe, { public_key_live: 'pk_live_b' })).toEqual(['secret_key_live']);
    expect(secretsToReenter('stripe', stripe, { test_mode: '0' })).toEqual(['webhook_secret']);
    expect(
      secretsToReenter('stripe', stripe, { test_mode: '0', webhook_secret: 'whsec_live', enabled: '1' }),
    ).toEqual([]);
    expect(secretsToReenter('stripe', stripe, { test_mode: '1', public_key_test: 'pk_test_a' })).toEqual([]);

    const paypal = {
      test_mode: '1',
      client_id_test: 'id-a',
      client_secret_test: 'sec-a',
      client_id_live: '',
      client_secret_live: '',
    };
    expect(secretsToReenter('paypal', paypal, { client_id_test: 'id-b' })).toEqual(['client_secret_test']);
    expect(secretsToReenter('paypal', paypal, { client_id_live: 'id-live' })).toEqual([]);
    expect(secretsToReenter('paypal', paypal, { test_mode: '0' })).toEqual([]);

    const now = { test_mode: '1', api_key: 'key', ipn_secret: 'ipn' };
    expect(secretsToReenter('nowpayments', now, { test_mode: '0' }).sort()).toEqual([
      'api_key',
      'ipn_secret',
    ]);
    expect(secretsToReenter('nowpayments', now, { test_mode: '0', api_key: 'live-key' })).toEqual([
      'ipn_secret',
    ]);
  });

  it('ignores categories without secrets', () => {
    expect(secretsToReenter('general', { site_name: 'a' }, { site_name: 'b' })).toEqual([]);
    expect(secretsToReenter('nope', {}, { x: 'y' })).toEqual([]);
  });
});
