import { describe, expect, it } from 'vitest';
import { isKeyringRequest, isKeyringTransfer, mayAccept, mayAnswer } from './popup-bridge';

const ORIGIN = 'https://securering.example';

function fakeWindow(origin = ORIGIN, opener: unknown = null) {
  return { location: { origin }, opener } as unknown as Window;
}

describe('popup key hand-over', () => {
  it('answers only a same-origin window that this room opened', () => {
    const room = fakeWindow();
    const popup = fakeWindow(ORIGIN, room);
    const stranger = fakeWindow(ORIGIN, fakeWindow());
    expect(mayAnswer({ origin: ORIGIN, source: popup }, room)).toBe(true);
    expect(mayAnswer({ origin: 'https://evil.example', source: popup }, room)).toBe(false);
    expect(mayAnswer({ origin: ORIGIN, source: stranger }, room)).toBe(false);
    expect(mayAnswer({ origin: ORIGIN, source: null }, room)).toBe(false);
    const crossOrigin = {
      get opener(): never {
        throw new Error('SecurityError');
      },
    };
    expect(mayAnswer({ origin: ORIGIN, source: crossOrigin }, room)).toBe(false);
  });

  it('accepts keys only from its own opener on its own origin', () => {
    const room = fakeWindow();
    const popup = fakeWindow(ORIGIN, room);
    expect(mayAccept({ origin: ORIGIN, source: room }, popup)).toBe(true);
    expect(mayAccept({ origin: ORIGIN, source: fakeWindow() }, popup)).toBe(false);
    expect(mayAccept({ origin: 'https://evil.example', source: room }, popup)).toBe(false);
  });

  it('recognises requests and refuses transfers for another Ring or member, or without keys', async () => {
    expect(
      isKeyringRequest({ type: 'securering:keyring-request', nonce: 'n', ringId: 'r', memberId: 'm' }),
    ).toBe(true);
    expect(isKeyringRequest({ type: 'securering:keyring-request', nonce: 'n', ringId: 'r' })).toBe(false);
    expect(isKeyringRequest(null)).toBe(false);

    const pair = (await crypto.subtle.generateKey('Ed25519', false, ['sign', 'verify'])) as CryptoKeyPair;
    const messageKey = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt']);
    const transfer = {
      ringId: 'r',
      memberId: 'm',
      identity: { agreement: pair, signing: pair },
      publicKeys: { x25519: 'x', ed25519: 'e' },
      keyVersion: 1,
      epochs: [
        { ringId: 'r', epoch: 1, messageKey, material: new Uint8Array(64), namesKey: new Uint8Array(32) },
      ],
    };
    expect(isKeyringTransfer(transfer, { ringId: 'r', memberId: 'm' })).toBe(true);
    expect(isKeyringTransfer(transfer, { ringId: 'other', memberId: 'm' })).toBe(false);
    expect(isKeyringTransfer(transfer, { ringId: 'r', memberId: 'other' })).toBe(false);
    expect(
      isKeyringTransfer(
        { ...transfer, identity: { agreement: {}, signing: pair } },
        { ringId: 'r', memberId: 'm' },
      ),
    ).toBe(false);
    expect(
      isKeyringTransfer(
        { ...transfer, epochs: [{ ...transfer.epochs[0], ringId: 'other' }] },
        { ringId: 'r', memberId: 'm' },
      ),
    ).toBe(false);
  });
});
