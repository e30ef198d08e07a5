import {
  CONNECTION_LOST_AFTER_MS,
  candidateFits,
  decideOnDescription,
  mayOfferNow,
  parseSignal,
  shouldRestartIce,
  type SignedDescription,
} from './call-negotiation';
import { checkRemoteCertificate, extractFingerprints } from './call-signature';

/** What the connection sends to the peer through the server (its own order is kept). */
export type OutgoingSignal =
  | { event: 'call_offer' | 'call_answer'; data: SignedDescription }
  | { event: 'ice_candidate'; data: { candidate: RTCIceCandidateInit } };

export interface CallConnectionOptions {
  iceServers: RTCIceServer[];
  /** Test/debug knob: relay candidates only (proves the TURN path). */
  relayOnly: boolean;
  /** The callee is polite: it gives way when both sides offer at once. */
  polite: boolean;
  localStream: MediaStream;
  /** Signs this side's SDP fingerprints (base64). */
  sign(sdp: string): Promise<string>;
  /** Checks the peer's signature over its SDP fingerprints. */
  verify(sdp: string, signature: string): Promise<boolean>;
  /** Sends one message to the peer; resolves once the server took it (keeps the order). */
  send(signal: OutgoingSignal): Promise<void>;
  onConnectionState(state: RTCPeerConnectionState): void;
  onRemoteStream(stream: MediaStream): void;
  /** The peer's description was verified (the security badge can say so). */
  onVerified(): void;
  /**
   * The call cannot go on: a bad signature, a DTLS certificate that is not the signed one, or the
   * connection did not come back.
   */
  onFatal(cause: 'bad_signature' | 'certificate_mismatch' | 'connection_lost'): void;
  /**
   * A message of the peer on the call's own data channel (microphone and camera state, issue 28):
   * it travels inside the DTLS association whose certificate the peer signed, never through the
   * server. Unchecked text: the session parses it.
   */
  onPeerMessage?(text: string): void;
  log(message: string, details?: unknown): void;
}

/** Longest message the state channel takes from the peer. */
const MAX_PEER_MESSAGE = 1000;

/**
 * The RTCPeerConnection of one call, negotiated with the perfect-negotiation pattern (see
 * call-negotiation.ts): every description this side sends is signed, every description it
 * receives is verified before it is applied, candidates wait for the description they belong to,
 * and a connection that drops is repaired with an ICE restart.
 */
export class CallConnection {
  readonly pc: RTCPeerConnection;
  private readonly remoteStream = new MediaStream();
  private makingOffer = false;
  private ignoreOffer = false;
  private settingRemoteAnswerPending = false;
  /** A first offer of the peer was applied and answered (see mayOfferNow). */
  private answeredPeerOffer = false;
  /** The browser asked for an offer this side held back (the callee, before the caller's offer). */
  private heldOffer = false;
  private incoming: Promise<void> = Promise.resolve();
  private outgoing: Promise<void> = Promise.resolve();
  private pendingCandidates: RTCIceCandidateInit[] = [];
  /** The fingerprints of the peer's last applied, verified description. */
  private signedFingerprints: string[] = [];
  private troubleSince: number | null = null;
  private lastRestartAt: number | null = null;
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  /** The state channel (negotiated on both sides with id 0: no extra offer from the callee). */
  private readonly channel: RTCDataChannel;
  /** The last state this side sent or wants to send (sent again when the channel opens). */
  private lastState: string | null = null;

  constructor(private readonly options: CallConnectionOptions) {
    this.pc = new RTCPeerConnection({
      iceServers: options.iceServers,
      iceTransportPolicy: options.relayOnly ? 'relay' : 'all',
    });
    this.pc.onnegotiationneeded = () => void this.offer();
    this.pc.onicecandidate = ({ candidate }) => {
      if (candidate) this.enqueueSend({ event: 'ice_candidate', data: { candidate: candidate.toJSON() } });
    };
    this.pc.ontrack = ({ track }) => {
      if (!this.remoteStream.getTracks().includes(track)) this.remoteStream.addTrack(track);
      options.onRemoteStream(this.remoteStream);
    };
    this.pc.onconnectionstatechange = () => this.onConnectionState();
    for (const track of options.localStream.getTracks()) this.pc.addTrack(track, options.localStream);
    this.channel = this.pc.createDataChannel('call-state', { negotiated: true, id: 0, ordered: true });
    this.channel.onopen = () => {
      if (this.lastState !== null) this.channel.send(this.lastState);
    };
    this.channel.onmessage = ({ data }: MessageEvent) => {
      if (typeof data === 'string' && data.length <= MAX_PEER_MESSAGE) options.onPeerMessage?.(data);
    };
    this.watchdog = setInterval(() => this.checkHealth(), 1000);
  }

  /** Sends this side's state to the peer now if the channel is open, else as soon as it opens. */
  sendState(text: string): void {
    this.lastState = text;
    if (this.closed || this.channel.readyState !== 'open') return;
    try {
      this.channel.send(text);
    } catch (error) {
      this.options.log('État d’appel non envoyé', { error: String(error) });
    }
  }

  /** A call_offer, call_answer or ice_candidate from the peer; handled one at a time, in order. */
  receive(data: unknown): void {
    this.incoming = this.incoming
      .then(() => this.handle(data))
      .catch((error: unknown) => this.options.log('Signal d’appel non traité', { error: String(error) }));
  }

  /** Restarts ICE at once (network change announced by the browser). */
  restartIce(): void {
    if (!this.closed) this.pc.restartIce();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    this.pc.onnegotiationneeded = null;
    this.pc.onicecandidate = null;
    this.pc.ontrack = null;
    this.pc.onconnectionstatechange = null;
    this.channel.onopen = null;
    this.channel.onmessage = null;
    this.pc.close();
  }

  private async offer(): Promise<void> {
    if (this.closed) return;
    if (!mayOfferNow({ polite: this.options.polite, answeredPeerOffer: this.answeredPeerOffer })) {
      this.heldOffer = true;
      return;
    }
    try {
      this.makingOffer = true;
      await this.pc.setLocalDescription();
      this.sendLocalDescription();
    } catch (error) {
      this.options.log('Offre impossible', { error: String(error) });
    } finally {
      this.makingOffer = false;
    }
  }

  /** Queues the current local description, signed, before any candidate gathered after it. */
  private sendLocalDescription(): void {
    const local = this.pc.localDescription;
    if (!local || (local.type !== 'offer' && local.type !== 'answer')) return;
    const description = { type: local.type, sdp: local.sdp };
    this.outgoing = this.outgoing
      .then(async () => {
        const signature = await this.options.sign(description.sdp);
        await this.options.send({
          event: description.type === 'offer' ? 'call_offer' : 'call_answer',
          data: { description, signature },
        });
      })
      .catch((error: unknown) =>
        this.options.log('Envoi de la description impossible', { error: String(error) }),
      );
  }

  private enqueueSend(signal: OutgoingSignal): void {
    this.outgoing = this.outgoing
      .then(() => this.options.send(signal))
      .catch((error: unknown) => this.options.log('Envoi du candidat impossible', { error: String(error) }));
  }

  private async handle(data: unknown): Promise<void> {
    if (this.closed) return;
    const signal = parseSignal(data);
    if (!signal) return;
    if ('candidate' in signal) {
      await this.addCandidate(signal.candidate);
      return;
    }
    const { description, signature } = signal;
    // The peer's key must vouch for the DTLS fingerprints before anything of its SDP is used.
    if (!(await this.options.verify(description.sdp, signature))) {
      this.options.onFatal('bad_signature');
      return;
    }
    if (this.closed) return;
    this.options.onVerified();
    const decision = decideOnDescription({
      type: description.type,
      polite: this.options.polite,
      makingOffer: this.makingOffer,
      signalingState: this.pc.signalingState,
      settingRemoteAnswerPending: this.settingRemoteAnswerPending,
    });
    this.ignoreOffer = decision === 'ignore';
    if (this.ignoreOffer) return;
    this.settingRemoteAnswerPending = description.type === 'answer';
    try {
      await this.pc.setRemoteDescription(description);
      this.signedFingerprints = extractFingerprints(description.sdp);
    } finally {
      this.settingRemoteAnswerPending = false;
    }
    if (description.type === 'offer') {
      await this.pc.setLocalDescription();
      this.sendLocalDescription();
      if (!this.answeredPeerOffer) {
        this.answeredPeerOffer = true;
        if (this.heldOffer) this.offerWhatTheAnswerLeftOut();
      }
    }
    await this.flushCandidates();
  }

  /**
   * After the first answer, the callee offers only if some of its tracks found no place in the
   * caller's offer (the browser does not ask again for a negotiation it asked for while held).
   */
  private offerWhatTheAnswerLeftOut(): void {
    this.heldOffer = false;
    const unplaced = this.pc.getTransceivers().some((t) => t.mid === null && t.sender.track !== null);
    if (unplaced) void this.offer();
  }

  private async addCandidate(candidate: RTCIceCandidateInit): Promise<void> {
    if (!candidateFits(candidate, this.pc.remoteDescription?.sdp ?? null)) {
      // Its description is not applied yet (or was an ignored offer): keep it for later.
      this.pendingCandidates.push(candidate);
      if (this.pendingCandidates.length > 200) this.pendingCandidates.shift();
      return;
    }
    try {
      await this.pc.addIceCandidate(candidate);
    } catch (error) {
      if (!this.ignoreOffer) this.options.log('Candidat ICE refusé', { error: String(error) });
    }
  }

  private async flushCandidates(): Promise<void> {
    const waiting = this.pendingCandidates;
    this.pendingCandidates = [];
    for (const candidate of waiting) await this.addCandidate(candidate);
  }

  private onConnectionState(): void {
    const state = this.pc.connectionState;
    if (state === 'connected') {
      this.troubleSince = null;
      void this.checkCertificate();
    } else if ((state === 'disconnected' || state === 'failed') && this.troubleSince === null) {
      this.troubleSince = Date.now();
    }
    this.options.onConnectionState(state);
    this.checkHealth();
  }

  /** Review L2: the peer's DTLS certificate must be the one its signed description names. */
  private async checkCertificate(): Promise<void> {
    try {
      const result = await checkRemoteCertificate(this.pc, this.signedFingerprints);
      if (this.closed) return;
      if (result === 'mismatch') this.options.onFatal('certificate_mismatch');
      else if (result === 'unavailable') this.options.log('Certificat DTLS du correspondant illisible');
    } catch (error) {
      this.options.log('Vérification du certificat DTLS impossible', { error: String(error) });
    }
  }

  /** ICE restart when the network changed; the end of the call if it never comes back. */
  private checkHealth(): void {
    if (this.closed || this.troubleSince === null) return;
    const troubleForMs = Date.now() - this.troubleSince;
    if (troubleForMs >= CONNECTION_LOST_AFTER_MS) {
      this.options.onFatal('connection_lost');
      return;
    }
    const restart = shouldRestartIce({
      polite: this.options.polite,
      connectionState: this.pc.connectionState,
      troubleForMs,
      sinceLastRestartMs: this.lastRestartAt === null ? null : Date.now() - this.lastRestartAt,
    });
    if (restart) {
      this.options.log('Redémarrage ICE', { state: this.pc.connectionState });
      this.lastRestartAt = Date.now();
      this.pc.restartIce();
    }
  }
}
