import { describe, expect, it } from 'vitest';
import {
  callButtonsFor,
  callPopupUrl,
  callTitle,
  closesScreen,
  endingText,
  formatCallDuration,
  isCallQuery,
  nextCallState,
  parseCallParams,
  type CallButtonFacts,
  type CallParams,
  type CallState,
} from './call-policy';

const ring = (over: Partial<CallButtonFacts['ring']> = {}): CallButtonFacts['ring'] => ({
  capabilities: { voice: true, video: true },
  voiceAdminOnly: false,
  ...over,
});
const bob = { id: 'bob', isOnline: true, isCurrentUser: false };

describe('callButtonsFor (spec 2 §2, §6)', () => {
  it('offers voice and video to an online member when the Ring allows both', () => {
    expect(callButtonsFor({ viewer: { id: 'alice', role: 'member' }, ring: ring() }, bob)).toEqual({
      voice: true,
      video: true,
    });
  });

  it('offers voice only when the Ring has no video', () => {
    const facts = {
      viewer: { id: 'alice', role: 'member' as const },
      ring: ring({ capabilities: { voice: true, video: false } }),
    };
    expect(callButtonsFor(facts, bob)).toEqual({ voice: true, video: false });
  });

  it('offers nothing for oneself, an offline member, or a Ring without voice', () => {
    const viewer = { id: 'alice', role: 'owner' as const };
    expect(
      callButtonsFor({ viewer, ring: ring() }, { id: 'alice', isOnline: true, isCurrentUser: true }),
    ).toEqual({
      voice: false,
      video: false,
    });
    // Even if the list forgot to flag the viewer, its own id is enough.
    expect(
      callButtonsFor({ viewer, ring: ring() }, { id: 'alice', isOnline: true, isCurrentUser: false }),
    ).toEqual({
      voice: false,
      video: false,
    });
    expect(callButtonsFor({ viewer, ring: ring() }, { ...bob, isOnline: false })).toEqual({
      voice: false,
      video: false,
    });
    expect(
      callButtonsFor({ viewer, ring: ring({ capabilities: { voice: false, video: true } }) }, bob),
    ).toEqual({ voice: false, video: false });
  });

  it('under voiceAdminOnly: owner and admins keep the buttons, plain members lose them', () => {
    const adminOnly = ring({ voiceAdminOnly: true });
    expect(callButtonsFor({ viewer: { id: 'a', role: 'owner' }, ring: adminOnly }, bob).voice).toBe(true);
    expect(callButtonsFor({ viewer: { id: 'a', role: 'admin' }, ring: adminOnly }, bob).video).toBe(true);
    expect(callButtonsFor({ viewer: { id: 'a', role: 'member' }, ring: adminOnly }, bob)).toEqual({
      voice: false,
      video: false,
    });
  });
});

describe('call popup query (spec 2 §2 Chat screen)', () => {
  const params: CallParams = {
    ringId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    callId: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
    peerId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c',
    peerName: 'Élodie & Co',
    audioOnly: false,
    incoming: true,
  };

  it('carries voice=1, peerId, peerName, audioOnly, incoming, callId and ringId, and reads back', () => {
    const url = callPopupUrl(params);
    expect(url.startsWith('/ring?')).toBe(true);
    const query = new URLSearchParams(url.slice('/ring'.length));
    expect(Object.fromEntries(query)).toEqual({
      voice: '1',
      peerId: params.peerId,
      peerName: 'Élodie & Co',
      audioOnly: '0',
      incoming: '1',
      callId: params.callId,
      ringId: params.ringId,
    });
    expect(parseCallParams(url.slice('/ring'.length))).toEqual(params);
    expect(isCallQuery(url.slice('/ring'.length))).toBe(true);
  });

  it('is audio only unless audioOnly=0, outgoing unless incoming=1', () => {
    const parsed = parseCallParams(`?voice=1&ringId=r1&callId=c1&peerId=p1`);
    expect(parsed).toMatchObject({ audioOnly: true, incoming: false, peerName: '' });
  });

  it('refuses a query that is not a call, or whose ids are missing or odd', () => {
    expect(parseCallParams('?convId=room:general')).toBeNull();
    expect(isCallQuery('?convId=room:general')).toBe(false);
    expect(parseCallParams('?voice=1&ringId=r1&callId=c1')).toBeNull();
    expect(parseCallParams('?voice=1&ringId=r1&callId=c1&peerId=../../x')).toBeNull();
    expect(parseCallParams('?voice=1&ringId=r1&callId=%3Cscript%3E&peerId=p1')).toBeNull();
    expect(isCallQuery('?voice=1&ringId=r1')).toBe(true);
  });
});

describe('nextCallState (spec 2 §4)', () => {
  const run = (start: CallState, ...events: Parameters<typeof nextCallState>[1][]) =>
    events.reduce(nextCallState, start);

  it('goes outgoing → connecting → connected → ended', () => {
    expect(run('outgoing', { type: 'accepted' })).toBe('connecting');
    expect(run('outgoing', { type: 'accepted' }, { type: 'connection', state: 'connected' })).toBe(
      'connected',
    );
    expect(
      run('incoming', { type: 'accepted' }, { type: 'connection', state: 'connected' }, { type: 'end' }),
    ).toBe('ended');
  });

  it('is connected only while the peer connection is', () => {
    expect(run('connecting', { type: 'connection', state: 'connecting' })).toBe('connecting');
    expect(run('connecting', { type: 'connection', state: 'new' })).toBe('connecting');
    expect(run('connected', { type: 'connection', state: 'disconnected' })).toBe('connecting');
    expect(run('connected', { type: 'connection', state: 'failed' })).toBe('connecting');
    expect(
      run(
        'connected',
        { type: 'connection', state: 'disconnected' },
        { type: 'connection', state: 'connected' },
      ),
    ).toBe('connected');
  });

  it('never connects before the call was accepted', () => {
    expect(run('outgoing', { type: 'connection', state: 'connected' })).toBe('outgoing');
    expect(run('incoming', { type: 'connection', state: 'connected' })).toBe('incoming');
  });

  it('nothing leaves ended', () => {
    expect(run('ended', { type: 'accepted' })).toBe('ended');
    expect(run('ended', { type: 'connection', state: 'connected' })).toBe('ended');
    expect(run('outgoing', { type: 'end' }, { type: 'accepted' })).toBe('ended');
  });
});

describe('formatCallDuration', () => {
  it('shows mm:ss, then h:mm:ss from one hour', () => {
    expect(formatCallDuration(0)).toBe('00:00');
    expect(formatCallDuration(999)).toBe('00:00');
    expect(formatCallDuration(1000)).toBe('00:01');
    expect(formatCallDuration(61_500)).toBe('01:01');
    expect(formatCallDuration(59 * 60_000 + 59_000)).toBe('59:59');
    expect(formatCallDuration(3_600_000)).toBe('1:00:00');
    expect(formatCallDuration(3_600_000 + 62_000)).toBe('1:01:02');
    expect(formatCallDuration(-5000)).toBe('00:00');
  });
});

describe('ending texts', () => {
  const caller = { isCaller: true, peerName: 'bob' };
  const callee = { isCaller: false, peerName: 'alice' };

  it('says who ended the call and why', () => {
    expect(endingText({ kind: 'server', reason: 'rejected', byPeer: true }, caller)).toBe(
      'bob a refusé l’appel',
    );
    expect(endingText({ kind: 'server', reason: 'cancelled', byPeer: true }, callee)).toBe(
      'alice a annulé l’appel',
    );
    expect(endingText({ kind: 'server', reason: 'timeout', byPeer: false }, caller)).toBe(
      'bob n’a pas répondu',
    );
    expect(endingText({ kind: 'server', reason: 'timeout', byPeer: true }, callee)).toBe('Appel manqué');
    expect(endingText({ kind: 'server', reason: 'hangup', byPeer: true }, caller)).toBe('bob a raccroché');
    expect(endingText({ kind: 'server', reason: 'peer_lost', byPeer: true }, caller)).toBe(
      'Connexion perdue avec bob',
    );
    expect(endingText({ kind: 'local_hangup' }, caller)).toBe('Appel terminé');
    expect(endingText({ kind: 'bad_signature' }, callee)).toMatch(
      /^Appel interrompu\u202f: la signature de sécurité de alice est invalide/,
    );
    expect(endingText({ kind: 'error', message: 'Vous êtes déjà en appel.' }, caller)).toBe(
      'Vous êtes déjà en appel.',
    );
  });

  it('closes the screen after a rejection or a cancellation only', () => {
    expect(closesScreen({ kind: 'server', reason: 'rejected', byPeer: true })).toBe(true);
    expect(closesScreen({ kind: 'server', reason: 'cancelled', byPeer: true })).toBe(true);
    expect(closesScreen({ kind: 'server', reason: 'hangup', byPeer: true })).toBe(false);
    expect(closesScreen({ kind: 'bad_signature' })).toBe(false);
  });

  it('names calls as the spec does', () => {
    expect(callTitle(true, 'bob')).toBe('Appel vocal avec bob');
    expect(callTitle(false, 'bob')).toBe('Appel vidéo avec bob');
  });
});
