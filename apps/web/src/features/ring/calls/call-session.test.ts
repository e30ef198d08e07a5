import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RingSocket } from '@/lib/realtime';
import { generateIdentity } from '@securering/e2ee';
import type { CallParams } from './call-policy';
import { CallSession, type CallSessionDeps } from './call-session';
import { signSdp } from './call-signature';

type Handler = (payload: unknown) => void;

/** A socket.io client stand-in: records what is emitted, answers acks, delivers server events. */
class FakeSocket {
  readonly handlers = new Map<string, Set<Handler>>();
  readonly emitted: Array<{ name: string; payload: Record<string, unknown> }> = [];
  acks: Record<string, { ok: boolean; error?: string }> = {};
  on(name: string, fn: Handler) {
    if (!this.handlers.has(name)) this.handlers.set(name, new Set());
    this.handlers.get(name)!.add(fn);
    return this;
  }
  off(name: string, fn: Handler) {
    this.handlers.get(name)?.delete(fn);
    return this;
  }
  timeout() {
    return {
      emit: (
        name: string,
        payload: Record<string, unknown>,
        ack: (error: unknown, result?: unknown) => void,
      ) => {
        this.emitted.push({ name, payload });
        queueMicrotask(() => ack(null, this.acks[name] ?? { ok: true }));
      },
    };
  }
  deliver(name: string, payload: unknown) {
    for (const fn of this.handlers.get(name) ?? []) fn(payload);
  }
  names() {
    return this.emitted.map((e) => e.name);
  }
}

class FakeTrack {
  enabled = true;
  stopped = false;
  constructor(readonly kind: 'audio' | 'video') {}
  stop() {
    this.stopped = true;
  }
}
class FakeStream {
  constructor(readonly tracks: FakeTrack[] = []) {}
  getTracks() {
    return this.tracks;
  }
  getAudioTracks() {
    return this.tracks.filter((t) => t.kind === 'audio');
  }
  getVideoTracks() {
    return this.tracks.filter((t) => t.kind === 'video');
  }
  addTrack(track: FakeTrack) {
    this.tracks.push(track);
  }
}
/** The call's state channel: records what is sent, delivers what the peer says. */
class FakeDataChannel {
  readyState: RTCDataChannelState = 'connecting';
  readonly sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  constructor(
    readonly label: string,
    readonly init: RTCDataChannelInit | undefined,
  ) {}
  send(text: string) {
    if (this.readyState !== 'open') throw new Error('not open');
    this.sent.push(text);
  }
  open() {
    this.readyState = 'open';
    this.onopen?.();
  }
  peerSays(data: unknown) {
    this.onmessage?.({ data });
  }
}

/** Enough of RTCPeerConnection for the session: the test drives its connection state. */
class FakePeerConnection {
  static created: FakePeerConnection[] = [];
  connectionState: RTCPeerConnectionState = 'new';
  signalingState: RTCSignalingState = 'stable';
  localDescription = null;
  remoteDescription = null;
  onconnectionstatechange: (() => void) | null = null;
  onnegotiationneeded: (() => void) | null = null;
  onicecandidate: unknown = null;
  ontrack: unknown = null;
  closed = false;
  constructor(readonly config: RTCConfiguration) {
    FakePeerConnection.created.push(this);
  }
  /** What the peer's DTLS transport presents (the certificate check reads it once connected). */
  remoteCertificates: ArrayBuffer[] = [];
  channels: FakeDataChannel[] = [];
  addTrack() {}
  createDataChannel(label: string, init?: RTCDataChannelInit) {
    const channel = new FakeDataChannel(label, init);
    this.channels.push(channel);
    return channel;
  }
  restartIce() {}
  setRemoteDescription(description: { type: string; sdp: string }) {
    (this as { remoteDescription: unknown }).remoteDescription = description;
    this.signalingState = description.type === 'offer' ? 'have-remote-offer' : 'stable';
    return Promise.resolve();
  }
  setLocalDescription() {
    this.signalingState = 'stable';
    return Promise.resolve();
  }
  getTransceivers() {
    return [];
  }
  getReceivers() {
    const certificates = this.remoteCertificates;
    if (certificates.length === 0) return [{ transport: null }];
    return [{ transport: { state: 'connected', getRemoteCertificates: () => certificates } }];
  }
  getStats() {
    return Promise.resolve(new Map());
  }
  close() {
    this.closed = true;
  }
  become(state: RTCPeerConnectionState) {
    this.connectionState = state;
    this.onconnectionstatechange?.();
  }
}

const PARAMS: CallParams = {
  ringId: 'ring-1',
  callId: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
  peerId: 'bob',
  peerName: 'bob',
  audioOnly: true,
  incoming: false,
};

function setup(over: Partial<Omit<CallSessionDeps, 'params'>> & { params?: Partial<CallParams> } = {}) {
  const socket = new FakeSocket();
  const stream = new FakeStream([new FakeTrack('audio')]);
  const session = new CallSession({
    selfId: 'alice',
    socket: socket as unknown as RingSocket,
    joined: () => Promise.resolve(),
    keys: {
      signingKey: () => Promise.resolve({} as CryptoKey),
      verifyKeyOf: () => Promise.resolve(undefined),
    },
    iceServers: () => Promise.resolve([{ urls: ['stun:127.0.0.1:3478'] }]),
    getUserMedia: () => Promise.resolve(stream as unknown as MediaStream),
    autoAccept: false,
    debug: { relayOnly: false, tamperSignature: false, expose: false },
    log: () => undefined,
    ...over,
    params: { ...PARAMS, ...over.params },
  });
  return { socket, stream, session };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const event = (over: Record<string, unknown> = {}) => ({
  ringId: PARAMS.ringId,
  callId: PARAMS.callId,
  fromUserId: 'bob',
  toUserId: 'alice',
  fromUsername: 'bob',
  audioOnly: true,
  callType: 'voice',
  ...over,
});

beforeEach(() => {
  FakePeerConnection.created = [];
  vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
  vi.stubGlobal('MediaStream', FakeStream);
});
afterEach(() => vi.unstubAllGlobals());

describe('CallSession — caller', () => {
  it('invites with the call id, waits, and connects only once the peer connection does', async () => {
    const { socket, session } = setup();
    session.start();
    await settle();
    expect(socket.emitted[0]).toEqual({
      name: 'call_invite',
      payload: { ringId: 'ring-1', toUserId: 'bob', callId: PARAMS.callId, audioOnly: true },
    });
    expect(session.getSnapshot().state).toBe('outgoing');

    // call_accept from ourselves (another tab) is not the callee's answer.
    socket.deliver('call_accept', event({ fromUserId: 'alice' }));
    await settle();
    expect(session.getSnapshot().state).toBe('outgoing');

    socket.deliver('call_accept', event());
    await settle();
    expect(session.getSnapshot().state).toBe('connecting');
    const pc = FakePeerConnection.created[0]!;
    expect(pc.config.iceTransportPolicy).toBe('all');
    pc.become('connecting');
    expect(session.getSnapshot().state).toBe('connecting');
    expect(socket.names()).not.toContain('call_connected');
    pc.become('connected');
    await settle();
    expect(session.getSnapshot().state).toBe('connected');
    expect(session.getSnapshot().connectedAt).not.toBeNull();
    expect(socket.names().filter((n) => n === 'call_connected')).toHaveLength(1);
    session.dispose();
  });

  it('shows the server’s French refusal and tells it nothing more', async () => {
    const { socket, session, stream } = setup();
    socket.acks.call_invite = {
      ok: false,
      error: 'Seuls le propriétaire et les administrateurs du Ring peuvent lancer un appel.',
    };
    session.start();
    await settle();
    await settle();
    expect(session.getSnapshot().state).toBe('ended');
    expect(session.getSnapshot().ending?.text).toBe(
      'Seuls le propriétaire et les administrateurs du Ring peuvent lancer un appel.',
    );
    expect(socket.names()).toEqual(['call_invite']);
    expect(stream.tracks.every((t) => t.stopped)).toBe(true);
  });

  it('a rejection ends the call (and closes the screen); other calls’ events are ignored', async () => {
    const { socket, session } = setup();
    session.start();
    await settle();
    socket.deliver('call_reject', event({ callId: 'another-call', reason: 'rejected' }));
    socket.deliver('call_reject', event({ ringId: 'ring-2', reason: 'rejected' }));
    expect(session.getSnapshot().state).toBe('outgoing');
    socket.deliver('call_reject', event({ reason: 'rejected' }));
    expect(session.getSnapshot().state).toBe('ended');
    expect(session.getSnapshot().ending).toEqual({ text: 'bob a refusé l’appel', closesScreen: true });
    expect(socket.names()).toEqual(['call_invite']);
  });

  it('"Raccrocher" ends it for both: call_hangup to the server', async () => {
    const { socket, session } = setup();
    session.start();
    await settle();
    session.hangup();
    expect(session.getSnapshot().state).toBe('ended');
    expect(socket.emitted.at(-1)).toEqual({
      name: 'call_hangup',
      payload: { ringId: 'ring-1', callId: PARAMS.callId, toUserId: 'bob' },
    });
  });

  it('relay only when the debug knob says so', async () => {
    const { socket, session } = setup({ debug: { relayOnly: true, tamperSignature: false, expose: false } });
    session.start();
    await settle();
    socket.deliver('call_accept', event());
    await settle();
    expect(FakePeerConnection.created[0]!.config.iceTransportPolicy).toBe('relay');
    expect(FakePeerConnection.created[0]!.config.iceServers).toEqual([{ urls: ['stun:127.0.0.1:3478'] }]);
    session.dispose();
  });

  it('asks for the relay servers only once the call is answered (TURN credentials are per call)', async () => {
    let asked = 0;
    const { socket, session } = setup({
      iceServers: () => {
        asked += 1;
        return Promise.resolve([{ urls: ['turn:127.0.0.1:3478'], username: 'u', credential: 'c' }]);
      },
    });
    session.start();
    await settle();
    expect(socket.names()).toEqual(['call_invite']);
    expect(asked).toBe(0);
    socket.deliver('call_accept', event());
    socket.deliver('call_accept', event());
    await settle();
    await settle();
    expect(asked).toBe(1);
    expect(FakePeerConnection.created).toHaveLength(1);
    expect(FakePeerConnection.created[0]!.config.iceServers).toEqual([
      { urls: ['turn:127.0.0.1:3478'], username: 'u', credential: 'c' },
    ]);
    session.dispose();
  });

  it('a refused microphone ends the call with a French explanation, before any invitation', async () => {
    const denied = Object.assign(new Error('denied'), { name: 'NotAllowedError' });
    const { socket, session } = setup({ getUserMedia: () => Promise.reject(denied) });
    session.start();
    await settle();
    expect(session.getSnapshot().ending?.text).toBe(
      'Accès au micro refusé\u202f: autorisez-le dans le navigateur pour appeler.',
    );
    expect(socket.emitted).toEqual([]);
  });
});

describe('CallSession — callee', () => {
  it('answers at once when accepted from the room, as the polite peer', async () => {
    const { socket, session } = setup({ autoAccept: true, params: { incoming: true } });
    session.start();
    expect(session.getSnapshot().state).toBe('incoming');
    await settle();
    await settle();
    expect(socket.emitted[0]).toEqual({
      name: 'call_accept',
      payload: { ringId: 'ring-1', callId: PARAMS.callId, toUserId: 'bob' },
    });
    expect(session.getSnapshot().state).toBe('connecting');
    expect(FakePeerConnection.created).toHaveLength(1);
    session.dispose();
  });

  it('opened without the room: asks, then "Refuser" sends call_reject', async () => {
    const { socket, session } = setup({ params: { incoming: true } });
    session.start();
    await settle();
    expect(session.getSnapshot()).toMatchObject({ state: 'incoming', awaitingAnswer: true });
    expect(socket.emitted).toEqual([]);
    session.reject();
    expect(session.getSnapshot().ending).toEqual({ text: 'Appel refusé', closesScreen: true });
    expect(socket.names()).toEqual(['call_reject']);
  });

  it('"Accepter" clicked twice answers once', async () => {
    const { socket, session } = setup({ params: { incoming: true } });
    session.start();
    await settle();
    void session.accept();
    void session.accept();
    await settle();
    expect(socket.names()).toEqual(['call_accept']);
    expect(session.getSnapshot().state).toBe('connecting');
    session.dispose();
  });

  it('an accept the server refuses (call already over) ends with its message', async () => {
    const { socket, session } = setup({ autoAccept: true, params: { incoming: true } });
    socket.acks.call_accept = { ok: false, error: 'Cet appel est terminé.' };
    session.start();
    await settle();
    await settle();
    expect(session.getSnapshot().ending?.text).toBe('Cet appel est terminé.');
    expect(socket.names()).toEqual(['call_accept']);
  });

  it('the caller cancelling or the peer being lost ends the call with the reason', async () => {
    const first = setup({ params: { incoming: true } });
    first.session.start();
    await settle();
    first.socket.deliver('call_cancel', event({ reason: 'cancelled' }));
    expect(first.session.getSnapshot().ending).toEqual({ text: 'bob a annulé l’appel', closesScreen: true });

    const second = setup({ autoAccept: true, params: { incoming: true } });
    second.session.start();
    await settle();
    await settle();
    second.socket.deliver('call_hangup', event({ reason: 'peer_lost' }));
    expect(second.session.getSnapshot().ending).toEqual({
      text: 'Connexion perdue avec bob',
      closesScreen: false,
    });
    expect(FakePeerConnection.created[0]!.closed).toBe(true);
  });

  it('mute and camera toggles disable the local tracks', async () => {
    const stream = new FakeStream([new FakeTrack('audio'), new FakeTrack('video')]);
    const { session } = setup({
      autoAccept: true,
      params: { incoming: true, audioOnly: false },
      getUserMedia: () => Promise.resolve(stream as unknown as MediaStream),
    });
    session.start();
    await settle();
    session.toggleMic();
    expect(stream.getAudioTracks()[0]!.enabled).toBe(false);
    expect(session.getSnapshot().micMuted).toBe(true);
    session.toggleCamera();
    expect(stream.getVideoTracks()[0]!.enabled).toBe(false);
    session.toggleMic();
    expect(stream.getAudioTracks()[0]!.enabled).toBe(true);
    session.dispose();
  });

  it('tells the peer its microphone and camera state over the call’s data channel, and shows the peer’s (issue 28)', async () => {
    const stream = new FakeStream([new FakeTrack('audio'), new FakeTrack('video')]);
    const { socket, session } = setup({
      autoAccept: true,
      params: { incoming: true, audioOnly: false },
      getUserMedia: () => Promise.resolve(stream as unknown as MediaStream),
    });
    session.start();
    await vi.waitFor(() => expect(FakePeerConnection.created).toHaveLength(1));
    const channel = FakePeerConnection.created[0]!.channels[0]!;
    // Negotiated on both sides with the same id: the callee needs no offer of its own for it.
    expect(channel.init).toMatchObject({ negotiated: true, id: 0 });
    // Muted before the channel opened: said as soon as it opens.
    session.toggleMic();
    expect(channel.sent).toEqual([]);
    channel.open();
    expect(channel.sent.map((m) => JSON.parse(m) as unknown)).toEqual([
      { type: 'media', micMuted: true, cameraOff: false },
    ]);
    session.toggleCamera();
    expect(JSON.parse(channel.sent.at(-1)!)).toEqual({ type: 'media', micMuted: true, cameraOff: true });

    channel.peerSays(JSON.stringify({ type: 'media', micMuted: true, cameraOff: true }));
    expect(session.getSnapshot()).toMatchObject({ peerMicMuted: true, peerCameraOff: true });
    // Anything else from the other browser changes nothing.
    for (const junk of ['{', '{"type":"media","micMuted":"yes","cameraOff":false}', 'x'.repeat(2000), 42])
      channel.peerSays(junk);
    expect(session.getSnapshot()).toMatchObject({ peerMicMuted: true, peerCameraOff: true });
    channel.peerSays(JSON.stringify({ type: 'media', micMuted: false, cameraOff: false }));
    expect(session.getSnapshot()).toMatchObject({ peerMicMuted: false, peerCameraOff: false });
    // Nothing of it went through the server.
    expect(socket.names()).toEqual(['call_accept']);
    session.dispose();
  });

  it('tells the room once when the call really connected', async () => {
    const connected = vi.fn();
    const { socket, session } = setup({ onConnected: connected });
    session.start();
    await settle();
    socket.deliver('call_accept', event());
    await vi.waitFor(() => expect(FakePeerConnection.created).toHaveLength(1));
    const pc = FakePeerConnection.created[0]!;
    pc.become('connecting');
    expect(connected).not.toHaveBeenCalled();
    pc.become('connected');
    pc.become('disconnected');
    pc.become('connected');
    expect(connected).toHaveBeenCalledTimes(1);
    session.dispose();
  });

  it('a caller tells the room when the server took its invitation, not before', async () => {
    const invited = vi.fn();
    const refused = setup({ onInvited: invited });
    refused.socket.acks.call_invite = { ok: false, error: 'Ce membre n’est pas en ligne.' };
    refused.session.start();
    await settle();
    expect(invited).not.toHaveBeenCalled();
    const { session } = setup({ onInvited: invited });
    session.start();
    await settle();
    expect(invited).toHaveBeenCalledTimes(1);
    session.dispose();
  });
});

describe('CallSession — the DTLS certificate (review L2)', () => {
  /** sha-256("abc"): the fingerprint of a certificate whose bytes are "abc". */
  const ABC =
    'BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD';
  const OTHER =
    '7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08';
  const offerWith = (fingerprint: string) =>
    `v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=fingerprint:sha-256 ${fingerprint}\r\na=mid:0\r\n`;

  async function connectedCallee(signedFingerprint: string) {
    const bob = await generateIdentity();
    const { socket, session } = setup({
      autoAccept: true,
      params: { incoming: true },
      keys: {
        signingKey: () => Promise.resolve({} as CryptoKey),
        verifyKeyOf: (id) => Promise.resolve(id === 'bob' ? bob.signing.publicKey : undefined),
      },
    });
    session.start();
    await vi.waitFor(() => expect(FakePeerConnection.created).toHaveLength(1));
    const pc = FakePeerConnection.created[0]!;
    pc.remoteCertificates = [new TextEncoder().encode('abc').buffer as ArrayBuffer];
    const sdp = offerWith(signedFingerprint);
    const signature = await signSdp(
      bob.signing.privateKey,
      { ringId: PARAMS.ringId, callId: PARAMS.callId, fromMemberId: 'bob', toMemberId: 'alice' },
      sdp,
    );
    socket.deliver('call_offer', {
      ...event(),
      data: { description: { type: 'offer', sdp }, signature },
    });
    await vi.waitFor(() => expect(session.getSnapshot().security).toBe('verified'));
    pc.become('connected');
    return { socket, session, pc };
  }

  it('hangs up with a clear message when the certificate is not the one the peer signed', async () => {
    const { socket, session, pc } = await connectedCallee(OTHER);
    await vi.waitFor(() => expect(session.getSnapshot().state).toBe('ended'));
    expect(session.getSnapshot().security).toBe('refused');
    expect(session.getSnapshot().ending?.text).toBe(
      'Appel interrompu\u202f: le certificat de chiffrement reçu n’est pas celui signé par bob. La connexion pourrait être interceptée.',
    );
    expect(pc.closed).toBe(true);
    expect(socket.names()).toContain('call_hangup');
  });

  it('without a trusted key of the peer, the check fails: « non vérifiée », not « refusée » (issue 28)', async () => {
    const { socket, session } = setup({ autoAccept: true, params: { incoming: true } });
    session.start();
    await vi.waitFor(() => expect(FakePeerConnection.created).toHaveLength(1));
    // Still being set up: nothing failed yet.
    expect(session.getSnapshot().security).toBe('pending');
    socket.deliver('call_offer', {
      ...event(),
      data: { description: { type: 'offer', sdp: offerWith(ABC) }, signature: 'AAAA' },
    });
    // The peer's key may still be on its way: the session waits up to 5 s for it.
    await vi.waitFor(() => expect(session.getSnapshot().state).toBe('ended'), { timeout: 8000 });
    expect(session.getSnapshot().security).toBe('unverified');
    expect(session.getSnapshot().ending?.text).toBe(
      'Appel interrompu\u202f: aucune clé de sécurité vérifiée pour bob dans ce navigateur.',
    );
  }, 10_000);

  it('goes on when the certificate is the signed one', async () => {
    const { session } = await connectedCallee(ABC);
    await settle();
    await settle();
    expect(session.getSnapshot()).toMatchObject({ state: 'connected', security: 'verified', ending: null });
    session.dispose();
  });
});

describe('CallSession — leaving', () => {
  it('a popup that goes away before sending anything tells the server nothing (remount in development)', async () => {
    const { socket, session } = setup({ autoAccept: true, params: { incoming: true } });
    session.start();
    session.dispose();
    await settle();
    await settle();
    expect(socket.emitted).toEqual([]);
  });

  it('a popup that goes away during the call hangs up', async () => {
    const { socket, session } = setup();
    session.start();
    await settle();
    session.dispose();
    expect(socket.names()).toEqual(['call_invite', 'call_hangup']);
  });

  it('a callee whose microphone fails declines the call at once', async () => {
    const missing = Object.assign(new Error('none'), { name: 'NotFoundError' });
    const { socket, session } = setup({
      autoAccept: true,
      params: { incoming: true },
      getUserMedia: () => Promise.reject(missing),
    });
    session.start();
    await settle();
    expect(session.getSnapshot().ending?.text).toBe('Aucun micro disponible sur cet appareil.');
    expect(socket.names()).toEqual(['call_reject']);
  });
});
