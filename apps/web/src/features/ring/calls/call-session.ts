import type { TCallEndReason, TCallEvent, TRtcRelay } from '@securering/contract';
import type { RingSocket } from '@/lib/realtime';
import { CallConnection, type OutgoingSignal } from './call-connection';
import { exposeCall, type CallDebugKnobs } from './call-debug';
import {
  closesScreen,
  encodeMediaState,
  endingText,
  parseMediaState,
  nextCallState,
  type CallEndCause,
  type CallParams,
  type CallState,
  type CallStateEvent,
} from './call-policy';
import { corruptSignature, signSdp, verifySdp, type CallSignatureContext } from './call-signature';

/** What the call screen shows; a new object on every change (useSyncExternalStore). */
export interface CallSnapshot {
  state: CallState;
  /** What is being prepared before the call can ring or be answered. */
  preparing: 'keys' | 'media' | 'network' | null;
  /**
   * The peer's SDP signature: not seen yet, checked, refused (bad signature or certificate), or
   * impossible to check (no verified key of the peer in this browser).
   */
  security: 'pending' | 'verified' | 'refused' | 'unverified';
  /** When the peer connection first connected (the timer's origin). */
  connectedAt: number | null;
  /** While connected again after a drop: the connection is recovering. */
  reconnecting: boolean;
  /** An incoming call shown in a page nobody answered from yet: "Accepter" / "Refuser". */
  awaitingAnswer: boolean;
  ending: { text: string; closesScreen: boolean } | null;
  micMuted: boolean;
  cameraOff: boolean;
  /** What the peer says of its microphone and camera over the call's data channel. */
  peerMicMuted: boolean;
  peerCameraOff: boolean;
  localStream: MediaStream | null;
  remoteStream: MediaStream | null;
}

export interface CallKeysAccess {
  /** This member's Ed25519 signing key; resolves once the popup holds the keys. */
  signingKey(): Promise<CryptoKey>;
  /** The key this browser trusts for a member, if any. */
  verifyKeyOf(memberId: string): Promise<CryptoKey | undefined>;
}

export interface CallSessionDeps {
  params: CallParams;
  selfId: string;
  socket: RingSocket;
  /** Resolves once the popup's socket joined the Ring. */
  joined(): Promise<void>;
  keys: CallKeysAccess;
  /** The STUN/TURN servers of this call; the server gives TURN credentials once it is answered. */
  iceServers(): Promise<RTCIceServer[]>;
  getUserMedia(constraints: MediaStreamConstraints): Promise<MediaStream>;
  /** The callee answers at once: it accepted from the room that opened this popup. */
  autoAccept: boolean;
  debug: CallDebugKnobs;
  /** The server took this caller's invitation: the callee is ringing. */
  onInvited?(): void;
  /** The peer connection connected for the first time (the call really began). */
  onConnected?(): void;
  log(message: string, details?: unknown): void;
}

type Ack = { ok: boolean; error?: string };

/** The peer's key may still be on its way (members read after the popup opened): wait this long. */
const VERIFY_KEY_WAIT_MS = 5000;
/** An accepted call that never connects ends after this long. */
const CONNECT_TIMEOUT_MS = 45_000;
const ACK_TIMEOUT_MS = 10_000;
const NO_ANSWER = 'Le serveur ne répond pas. Vérifiez votre connexion.';

const CALL_EVENTS = ['call_accept', 'call_reject', 'call_cancel', 'call_hangup'] as const;
const SIGNAL_EVENTS = ['call_offer', 'call_answer', 'ice_candidate'] as const;

function mediaError(error: unknown, audioOnly: boolean): string {
  const name = (error as { name?: string } | null)?.name;
  const device = audioOnly ? 'au micro' : 'au micro ou à la caméra';
  if (name === 'NotAllowedError' || name === 'SecurityError')
    return `Accès ${device} refusé\u202f: autorisez-le dans le navigateur pour appeler.`;
  if (name === 'NotFoundError' || name === 'OverconstrainedError')
    return audioOnly
      ? 'Aucun micro disponible sur cet appareil.'
      : 'Aucun micro ou caméra disponible sur cet appareil.';
  return `Accès ${device} impossible.`;
}

/** A call's state before anything happened: keys being prepared, nothing connected. */
export function initialCallSnapshot(incoming: boolean): CallSnapshot {
  return {
    state: incoming ? 'incoming' : 'outgoing',
    preparing: 'keys',
    security: 'pending',
    connectedAt: null,
    reconnecting: false,
    awaitingAnswer: false,
    ending: null,
    micMuted: false,
    cameraOff: false,
    peerMicMuted: false,
    peerCameraOff: false,
    localStream: null,
    remoteStream: null,
  };
}

/**
 * One call as the call popup runs it (spec 2 §4): prepares keys, media and ICE servers; the caller
 * sends call_invite and waits for call_accept, the callee sends call_accept; then the peer
 * connection is negotiated with signed descriptions. Every end — hang-up, rejection,
 * cancellation, timeout, lost peer, refused signature — reaches the state `ended` with its French
 * text, and the server hears of the ends it did not cause.
 */
export class CallSession {
  private snapshot: CallSnapshot;
  private readonly listeners = new Set<() => void>();
  private connection: CallConnection | null = null;
  private early: unknown[] = [];
  /** This side took part in the call at the server (invite or accept sent). */
  private serverKnows = false;
  private connectedAnnounced = false;
  private connectTimer: ReturnType<typeof setTimeout> | undefined;
  private verifyFailure: 'no_key' | 'bad' | null = null;
  /** call_accept was handled once (the connection is being set up). */
  private accepted = false;
  private readonly unsubscribe: Array<() => void> = [];
  private started = false;
  private disposed = false;

  constructor(private readonly deps: CallSessionDeps) {
    this.snapshot = initialCallSnapshot(deps.params.incoming);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): CallSnapshot => this.snapshot;

  private update(patch: Partial<CallSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch };
    for (const listener of this.listeners) listener();
  }

  private dispatch(event: CallStateEvent): void {
    const state = nextCallState(this.snapshot.state, event);
    if (state !== this.snapshot.state) this.update({ state });
  }

  private get ended(): boolean {
    return this.snapshot.state === 'ended' || this.disposed;
  }

  private get isCaller(): boolean {
    return !this.deps.params.incoming;
  }

  /** Starts the call once (idempotent). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.listen();
    void this.run().catch((error: unknown) => {
      this.deps.log('Appel interrompu', { error: String(error) });
      this.end({ kind: 'error', message: 'L’appel a rencontré une erreur inattendue.' });
    });
  }

  private listen(): void {
    const { socket, params } = this.deps;
    const on = socket.on.bind(socket) as (name: string, fn: (payload: never) => void) => void;
    const off = socket.off.bind(socket) as (name: string, fn: (payload: never) => void) => void;
    const mine = (e: { ringId?: string; callId?: string }) =>
      e.ringId === params.ringId && e.callId === params.callId;
    for (const name of CALL_EVENTS) {
      const handler = (event: TCallEvent) => {
        if (mine(event)) this.onCallEvent(name, event);
      };
      on(name, handler as (payload: never) => void);
      this.unsubscribe.push(() => off(name, handler as (payload: never) => void));
    }
    for (const name of SIGNAL_EVENTS) {
      const handler = (event: TRtcRelay) => {
        if (!mine(event) || event.fromUserId !== params.peerId) return;
        if (this.connection) this.connection.receive(event.data);
        else if (this.early.length < 500) this.early.push(event.data);
      };
      on(name, handler as (payload: never) => void);
      this.unsubscribe.push(() => off(name, handler as (payload: never) => void));
    }
  }

  private onCallEvent(name: (typeof CALL_EVENTS)[number], event: TCallEvent): void {
    if (this.ended) return;
    const byPeer = event.fromUserId === this.deps.params.peerId;
    if (name === 'call_accept') {
      // The callee answered (call_accept from ourselves is another tab: not this popup's business).
      if (this.isCaller && byPeer) void this.onAccepted();
      return;
    }
    const fallback: Record<string, TCallEndReason> = {
      call_reject: 'rejected',
      call_cancel: 'cancelled',
      call_hangup: 'hangup',
    };
    this.end({ kind: 'server', reason: event.reason ?? fallback[name]!, byPeer }, { tellServer: false });
  }

  private async run(): Promise<void> {
    const { params } = this.deps;
    // Keys first: the popup may still be receiving them from the room (or asking the passphrase).
    await this.deps.keys.signingKey();
    if (this.ended) return;

    this.update({ preparing: 'media' });
    let stream: MediaStream;
    try {
      stream = await this.deps.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
        video: params.audioOnly ? false : { width: { ideal: 1280 }, height: { ideal: 720 } },
      });
    } catch (error) {
      this.end({ kind: 'error', message: mediaError(error, params.audioOnly) });
      return;
    }
    if (this.ended) {
      for (const track of stream.getTracks()) track.stop();
      return;
    }
    this.update({ localStream: stream, preparing: 'network' });
    await this.deps.joined();
    if (this.ended) return;
    this.update({ preparing: null });

    if (this.isCaller) {
      this.serverKnows = true;
      const ack = await this.emit('call_invite', {
        ringId: params.ringId,
        toUserId: params.peerId,
        callId: params.callId,
        audioOnly: params.audioOnly,
      });
      if (this.ended) return;
      if (!ack.ok) {
        this.end({ kind: 'error', message: ack.error ?? NO_ANSWER }, { tellServer: false });
        return;
      }
      this.deps.onInvited?.();
      return;
    }
    if (this.deps.autoAccept) await this.accept();
    else this.update({ awaitingAnswer: true });
  }

  /** The callee answers ("Accepter" in the popup, or at once after "Accepter" in the room). */
  async accept(): Promise<void> {
    if (this.ended || this.isCaller || this.snapshot.state !== 'incoming' || this.serverKnows) return;
    this.update({ awaitingAnswer: false });
    const { params } = this.deps;
    this.serverKnows = true;
    const ack = await this.emit('call_accept', {
      ringId: params.ringId,
      callId: params.callId,
      toUserId: params.peerId,
    });
    if (this.ended) return;
    if (!ack.ok) {
      this.end({ kind: 'error', message: ack.error ?? NO_ANSWER }, { tellServer: false });
      return;
    }
    await this.onAccepted();
  }

  /** The callee declines from the popup ("Refuser"). */
  reject(): void {
    if (this.ended || this.isCaller) return;
    this.end({ kind: 'server', reason: 'rejected', byPeer: false });
  }

  /** "Raccrocher" (or leaving the popup): ends the call for both. */
  hangup(): void {
    if (this.ended) return;
    this.end({ kind: 'local_hangup' });
  }

  toggleMic(): void {
    const muted = !this.snapshot.micMuted;
    for (const track of this.snapshot.localStream?.getAudioTracks() ?? []) track.enabled = !muted;
    this.update({ micMuted: muted });
    this.sendMediaState();
  }

  toggleCamera(): void {
    const off = !this.snapshot.cameraOff;
    for (const track of this.snapshot.localStream?.getVideoTracks() ?? []) track.enabled = !off;
    this.update({ cameraOff: off });
    this.sendMediaState();
  }

  /** Tells the peer (call data channel) whether this side's microphone and camera are off. */
  private sendMediaState(): void {
    const { micMuted, cameraOff } = this.snapshot;
    this.connection?.sendState(encodeMediaState({ micMuted, cameraOff }));
  }

  private onPeerMessage(text: string): void {
    if (this.ended) return;
    const state = parseMediaState(text);
    if (!state) return;
    const { peerMicMuted, peerCameraOff } = this.snapshot;
    if (state.micMuted !== peerMicMuted || state.cameraOff !== peerCameraOff)
      this.update({ peerMicMuted: state.micMuted, peerCameraOff: state.cameraOff });
  }

  /** The browser reports a network change: repair the media path at once. */
  networkChanged(): void {
    this.connection?.restartIce();
  }

  private async onAccepted(): Promise<void> {
    if (this.ended || this.connection || this.accepted) return;
    this.accepted = true;
    this.dispatch({ type: 'accepted' });
    const stream = this.snapshot.localStream;
    if (!stream) return;
    // Relay credentials are handed out for an answered call only (the peer's signals wait in `early`).
    let iceServers: RTCIceServer[];
    try {
      iceServers = await this.deps.iceServers();
    } catch (error) {
      this.end({
        kind: 'error',
        message: `Configuration de l’appel indisponible\u202f: ${(error as Error).message}`,
      });
      return;
    }
    if (this.ended) return;
    const { params, selfId, debug } = this.deps;
    const outgoingContext: CallSignatureContext = {
      ringId: params.ringId,
      callId: params.callId,
      fromMemberId: selfId,
      toMemberId: params.peerId,
    };
    const incomingContext: CallSignatureContext = {
      ...outgoingContext,
      fromMemberId: params.peerId,
      toMemberId: selfId,
    };
    const signingKey = await this.deps.keys.signingKey();
    const connection = new CallConnection({
      iceServers,
      relayOnly: debug.relayOnly,
      // The callee gives way when both offer at once.
      polite: params.incoming,
      localStream: stream,
      sign: async (sdp) => {
        const signature = await signSdp(signingKey, outgoingContext, sdp);
        return debug.tamperSignature ? corruptSignature(signature) : signature;
      },
      verify: async (sdp, signature) => {
        const key = await this.peerVerifyKey();
        if (!key) {
          this.verifyFailure = 'no_key';
          return false;
        }
        const ok = await verifySdp(key, incomingContext, sdp, signature);
        if (!ok) this.verifyFailure = 'bad';
        return ok;
      },
      send: (signal) => this.sendSignal(signal),
      onConnectionState: (state) => this.onConnectionState(state),
      onRemoteStream: (remote) => this.update({ remoteStream: remote }),
      onPeerMessage: (text) => this.onPeerMessage(text),
      onVerified: () => {
        if (this.snapshot.security !== 'verified') this.update({ security: 'verified' });
      },
      onFatal: (cause) => {
        if (cause === 'bad_signature') {
          this.update({ security: this.verifyFailure === 'no_key' ? 'unverified' : 'refused' });
          this.deps.log('Signature d’appel refusée', { callId: params.callId, why: this.verifyFailure });
          this.end(
            this.verifyFailure === 'no_key'
              ? {
                  kind: 'error',
                  message: `Appel interrompu\u202f: aucune clé de sécurité vérifiée pour ${this.peerName} dans ce navigateur.`,
                }
              : { kind: 'bad_signature' },
          );
        } else if (cause === 'certificate_mismatch') {
          this.update({ security: 'refused' });
          this.deps.log('Certificat DTLS refusé', { callId: params.callId });
          this.end({ kind: 'certificate_mismatch' });
        } else {
          this.end({ kind: 'connection_lost' });
        }
      },
      log: this.deps.log,
    });
    this.connection = connection;
    // Sent once the data channel opens (a side that muted before the connection says so then).
    this.sendMediaState();
    if (debug.expose) {
      const snapshot = () => this.snapshot;
      exposeCall({
        pc: connection.pc,
        get localStream() {
          return snapshot().localStream;
        },
        get remoteStream() {
          return snapshot().remoteStream;
        },
      });
    }
    for (const data of this.early) connection.receive(data);
    this.early = [];
    this.connectTimer = setTimeout(() => {
      if (!this.ended && this.snapshot.connectedAt === null)
        this.end({
          kind: 'error',
          message: 'La connexion n’a pas pu être établie avec votre correspondant.',
        });
    }, CONNECT_TIMEOUT_MS);
  }

  private get peerName(): string {
    return this.deps.params.peerName || 'votre correspondant';
  }

  private async peerVerifyKey(): Promise<CryptoKey | undefined> {
    const deadline = Date.now() + VERIFY_KEY_WAIT_MS;
    for (;;) {
      const key = await this.deps.keys.verifyKeyOf(this.deps.params.peerId);
      if (key || Date.now() >= deadline || this.ended) return key;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private onConnectionState(state: RTCPeerConnectionState): void {
    if (this.ended) return;
    this.dispatch({ type: 'connection', state });
    if (state === 'connected') {
      const first = this.snapshot.connectedAt === null;
      this.update({ reconnecting: false, ...(first ? { connectedAt: Date.now() } : {}) });
      clearTimeout(this.connectTimer);
      if (!this.connectedAnnounced) {
        this.connectedAnnounced = true;
        this.deps.onConnected?.();
        const { params } = this.deps;
        void this.emit('call_connected', {
          ringId: params.ringId,
          callId: params.callId,
          toUserId: params.peerId,
        });
      }
    } else if (this.snapshot.connectedAt !== null && (state === 'disconnected' || state === 'failed')) {
      this.update({ reconnecting: true });
    }
  }

  private async sendSignal(signal: OutgoingSignal): Promise<void> {
    const { params } = this.deps;
    const ack = await this.emit(signal.event, {
      ringId: params.ringId,
      callId: params.callId,
      toUserId: params.peerId,
      data: signal.data,
    });
    if (!ack.ok) this.deps.log('Signal d’appel refusé', { event: signal.event, error: ack.error });
  }

  private emit(event: string, payload: object): Promise<Ack> {
    return new Promise((resolve) => {
      const timed = this.deps.socket.timeout(ACK_TIMEOUT_MS) as unknown as {
        emit(name: string, body: object, ack: (error: unknown, result?: Ack) => void): void;
      };
      timed.emit(event, payload, (error, result) => {
        resolve(error || !result ? { ok: false, error: NO_ANSWER } : result);
      });
    });
  }

  /**
   * Ends the call once: state `ended` with its text, media stopped, connection closed. Unless the
   * server told us (`tellServer: false`), it hears of it: call_hangup once this side took part
   * (recorded as a cancellation or a hang-up from the call's state), call_reject from a callee
   * that had not answered yet.
   */
  end(cause: CallEndCause, options: { tellServer?: boolean } = {}): void {
    if (this.snapshot.state === 'ended') return;
    const tellServer = options.tellServer ?? true;
    const { params } = this.deps;
    const event = this.serverKnows ? 'call_hangup' : params.incoming ? 'call_reject' : null;
    if (tellServer && event) {
      void this.emit(event, { ringId: params.ringId, callId: params.callId, toUserId: params.peerId });
    }
    clearTimeout(this.connectTimer);
    this.connection?.close();
    for (const track of this.snapshot.localStream?.getTracks() ?? []) track.stop();
    this.dispatch({ type: 'end' });
    this.update({
      awaitingAnswer: false,
      reconnecting: false,
      ending: {
        text: endingText(cause, { isCaller: this.isCaller, peerName: this.deps.params.peerName }),
        closesScreen: closesScreen(cause),
      },
    });
  }

  /**
   * The popup goes away: leave the call (best effort) if this side took part in it, and let go of
   * everything. A callee that never answered says nothing here: the room that opened the popup
   * sees it closed and declines (and a remount in development must not decline the call).
   */
  dispose(): void {
    if (this.disposed) return;
    if (this.snapshot.state !== 'ended') this.end({ kind: 'local_hangup' }, { tellServer: this.serverKnows });
    this.disposed = true;
    for (const off of this.unsubscribe) off();
    this.listeners.clear();
  }
}
