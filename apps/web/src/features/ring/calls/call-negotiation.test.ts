import { describe, expect, it } from 'vitest';
import {
  ICE_RESTART_AFTER_DISCONNECTED_MS,
  MIN_ICE_RESTART_INTERVAL_MS,
  POLITE_ICE_RESTART_AFTER_MS,
  candidateFits,
  decideOnDescription,
  mayOfferNow,
  parseSignal,
  shouldRestartIce,
  type DescriptionFacts,
} from './call-negotiation';

const facts = (over: Partial<DescriptionFacts>): DescriptionFacts => ({
  type: 'offer',
  polite: false,
  makingOffer: false,
  signalingState: 'stable',
  settingRemoteAnswerPending: false,
  ...over,
});

describe('perfect negotiation: decideOnDescription', () => {
  it('applies an offer when stable and an answer whatever the state', () => {
    expect(decideOnDescription(facts({}))).toBe('apply');
    expect(decideOnDescription(facts({ type: 'answer', signalingState: 'have-local-offer' }))).toBe('apply');
    expect(decideOnDescription(facts({ type: 'answer', makingOffer: true }))).toBe('apply');
  });

  it('on crossed offers the impolite peer (caller) ignores, the polite one (callee) gives way', () => {
    for (const crossing of [{ makingOffer: true }, { signalingState: 'have-local-offer' as const }]) {
      expect(decideOnDescription(facts({ ...crossing, polite: false }))).toBe('ignore');
      expect(decideOnDescription(facts({ ...crossing, polite: true }))).toBe('apply');
    }
  });

  it('an offer arriving while a remote answer is being applied is no collision', () => {
    expect(
      decideOnDescription(facts({ signalingState: 'have-local-offer', settingRemoteAnswerPending: true })),
    ).toBe('apply');
  });

  it('both peers offering at once end with exactly one offer applied', () => {
    // Each side made an offer and sees the other's.
    const caller = decideOnDescription(facts({ polite: false, signalingState: 'have-local-offer' }));
    const callee = decideOnDescription(facts({ polite: true, signalingState: 'have-local-offer' }));
    expect([caller, callee]).toEqual(['ignore', 'apply']);
  });
});

describe('first offer', () => {
  it('the caller offers at once; the callee waits until it answered the caller’s offer', () => {
    expect(mayOfferNow({ polite: false, answeredPeerOffer: false })).toBe(true);
    expect(mayOfferNow({ polite: true, answeredPeerOffer: false })).toBe(false);
    expect(mayOfferNow({ polite: true, answeredPeerOffer: true })).toBe(true);
  });
});

describe('ICE restart', () => {
  const base = { connectionState: 'disconnected' as RTCPeerConnectionState, sinceLastRestartMs: null };

  it('nothing while connected or never in trouble', () => {
    expect(shouldRestartIce({ ...base, polite: false, troubleForMs: null })).toBe(false);
    expect(
      shouldRestartIce({ ...base, polite: false, connectionState: 'connected', troubleForMs: 60_000 }),
    ).toBe(false);
    expect(
      shouldRestartIce({ ...base, polite: false, connectionState: 'connecting', troubleForMs: 60_000 }),
    ).toBe(false);
  });

  it('the impolite peer restarts at once on failed, after a few seconds of disconnected', () => {
    expect(shouldRestartIce({ ...base, polite: false, connectionState: 'failed', troubleForMs: 0 })).toBe(
      true,
    );
    expect(
      shouldRestartIce({ ...base, polite: false, troubleForMs: ICE_RESTART_AFTER_DISCONNECTED_MS - 1 }),
    ).toBe(false);
    expect(
      shouldRestartIce({ ...base, polite: false, troubleForMs: ICE_RESTART_AFTER_DISCONNECTED_MS }),
    ).toBe(true);
  });

  it('the polite peer waits longer, and nobody restarts twice in a row', () => {
    expect(shouldRestartIce({ ...base, polite: true, connectionState: 'failed', troubleForMs: 1000 })).toBe(
      false,
    );
    expect(shouldRestartIce({ ...base, polite: true, troubleForMs: POLITE_ICE_RESTART_AFTER_MS })).toBe(true);
    expect(
      shouldRestartIce({
        polite: false,
        connectionState: 'failed',
        troubleForMs: 20_000,
        sinceLastRestartMs: MIN_ICE_RESTART_INTERVAL_MS - 1,
      }),
    ).toBe(false);
    expect(
      shouldRestartIce({
        polite: false,
        connectionState: 'failed',
        troubleForMs: 20_000,
        sinceLastRestartMs: MIN_ICE_RESTART_INTERVAL_MS,
      }),
    ).toBe(true);
  });
});

describe('relayed signals', () => {
  it('reads a signed description and a candidate', () => {
    expect(parseSignal({ description: { type: 'offer', sdp: 'v=0' }, signature: 'c2ln' })).toEqual({
      description: { type: 'offer', sdp: 'v=0' },
      signature: 'c2ln',
    });
    expect(
      parseSignal({
        candidate: {
          candidate: 'candidate:1 1 udp 1 127.0.0.1 5000 typ host',
          sdpMid: '0',
          sdpMLineIndex: 0,
          usernameFragment: 'Zx9q',
        },
      }),
    ).toEqual({
      candidate: {
        candidate: 'candidate:1 1 udp 1 127.0.0.1 5000 typ host',
        sdpMid: '0',
        sdpMLineIndex: 0,
        usernameFragment: 'Zx9q',
      },
    });
  });

  it('keeps an unsigned description unsigned (the check refuses it) and drops anything else', () => {
    expect(parseSignal({ description: { type: 'answer', sdp: 'v=0' } })).toEqual({
      description: { type: 'answer', sdp: 'v=0' },
      signature: '',
    });
    expect(parseSignal({ description: { type: 'rollback', sdp: '' } })).toBeNull();
    expect(parseSignal({ description: { type: 'offer', sdp: 42 } })).toBeNull();
    expect(parseSignal({ candidate: { sdpMid: '0' } })).toBeNull();
    expect(parseSignal('offer')).toBeNull();
    expect(parseSignal(null)).toBeNull();
  });

  it('a candidate waits for the description of its ICE generation', () => {
    const sdp = 'v=0\r\na=ice-ufrag:Zx9q\r\n';
    expect(candidateFits({ candidate: 'c', usernameFragment: 'Zx9q' }, null)).toBe(false);
    expect(candidateFits({ candidate: 'c', usernameFragment: 'Zx9q' }, sdp)).toBe(true);
    expect(candidateFits({ candidate: 'c', usernameFragment: 'New1' }, sdp)).toBe(false);
    expect(candidateFits({ candidate: 'c' }, sdp)).toBe(true);
  });
});
