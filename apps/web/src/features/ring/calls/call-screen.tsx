import { CALL_API_PATHS, ZCallConfigResponse, type TRingInfo } from '@securering/contract';
import {
  ArrowLeft,
  Loader2,
  Lock,
  Mic,
  MicOff,
  Phone,
  PhoneOff,
  ShieldAlert,
  ShieldCheck,
  Video,
  VideoOff,
  Volume2,
} from 'lucide-react';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { apiRequest } from '@/lib/api-client';
import { logToServer } from '@/lib/client-log';
import { CIPHER_LABELS } from '@/lib/ring-labels';
import { cn } from '@/lib/utils';
import { hasSameOriginOpener } from '../e2ee/popup-bridge';
import { useRingKeys } from '../e2ee/use-ring-keys';
import { useRingSocket } from '../realtime/ring-socket';
import { readCallDebugKnobs } from './call-debug';
import {
  callTitle,
  formatCallDuration,
  parseCallParams,
  securityBadge,
  type CallParams,
} from './call-policy';
import { CallSession, initialCallSnapshot, type CallSnapshot } from './call-session';
import { announceCallProgress } from './call-timeline';

/** How long an ended call screen stays before closing itself (rejected or cancelled calls). */
const CLOSE_AFTER_END_MS = 3000;

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

/** A value that resolves the promises handed out before it was known. */
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * `/ring?voice=1&…`: the call screen in its popup (spec 2 §2 Call screen). Its keys come from the
 * room that opened it; the query says who is called and how. A malformed query shows an error.
 */
export default function CallScreen({ info }: { info: TRingInfo }) {
  const parsed = useMemo(() => parseCallParams(window.location.search), []);
  const peerName = info.users.find((u) => u.id === parsed?.peerId)?.username ?? parsed?.peerName ?? '';
  const videoAllowed = info.ring.capabilities.video;
  // One object per call (the session restarts when it changes), not one per render.
  const params = useMemo<CallParams | null>(
    () =>
      parsed
        ? {
            ...parsed,
            peerName,
            // Video only where the Ring allows it (spec 2 §6); otherwise the call is audio only.
            audioOnly: parsed.audioOnly || !videoAllowed,
          }
        : null,
    // The name and the video switch as first read: later changes do not restart the call.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [parsed],
  );
  if (!params || params.ringId !== info.ring.id || params.peerId === info.user.id) {
    return (
      <main className="mx-auto max-w-md px-4 py-16">
        <Alert variant="error" title="Appel impossible">
          Ce lien d’appel n’est pas valide pour ce Ring.
        </Alert>
      </main>
    );
  }
  return <CallView info={info} params={params} />;
}

function CallView({ info, params }: { info: TRingInfo; params: CallParams }) {
  const navigate = useNavigate();
  const session = useCallSession(info.user.id, params);
  const snapshot = useSyncExternalStore(session?.subscribe ?? noopSubscribe, session?.getSnapshot ?? initial);

  useEffect(() => {
    document.title = callTitle(params.audioOnly, params.peerName);
  }, [params.audioOnly, params.peerName]);

  // Rejected or cancelled: the screen closes by itself (spec 2 §4).
  const closes = snapshot.ending?.closesScreen ?? false;
  useEffect(() => {
    if (!closes || !window.opener) return;
    const timer = setTimeout(() => window.close(), CLOSE_AFTER_END_MS);
    return () => clearTimeout(timer);
  }, [closes]);

  const [confirmLeave, setConfirmLeave] = useState(false);
  const active = snapshot.state !== 'ended';
  const leave = () => {
    session?.hangup();
    if (window.opener) window.close();
    else void navigate('/ring');
  };
  // « Retour » (issue 28): never a silent hang-up. In the popup, the room comes to the front and
  // the call goes on (the room shows « … en cours — Revenir à l'appel »); on its own page, where
  // leaving would end the call, it asks first.
  const handleBack = () => {
    if (!active) return leave();
    const opener = hasSameOriginOpener(window) ? (window.opener as Window) : null;
    if (opener && !opener.closed) opener.focus();
    else setConfirmLeave(true);
  };
  const level = info.ring.encryptionLevel;
  const video = !params.audioOnly;
  // The peer's picture fills the screen while connected (and while the connection recovers),
  // unless the peer turned its camera off: then its avatar and « Caméra coupée » (issue 28).
  const inCall = snapshot.state === 'connected' || snapshot.reconnecting;
  const showVideo = video && snapshot.remoteStream !== null && inCall && !snapshot.peerCameraOff;

  return (
    <div data-call-state={snapshot.state} className="flex h-dvh min-h-0 flex-col bg-slate-950 text-white">
      <header className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-white/10 px-3 py-2">
        <Button
          variant="ghost"
          size="sm"
          className="text-white hover:bg-white/10"
          onClick={handleBack}
          aria-label="Retour"
        >
          <ArrowLeft aria-hidden /> <span className="hidden sm:inline">Retour</span>
        </Button>
        <h1 className="min-w-0 flex-1 truncate font-semibold">
          {callTitle(params.audioOnly, params.peerName)}
        </h1>
        <Badge variant="success" title="Niveau de chiffrement du Ring">
          <Lock className="size-3" aria-hidden />
          {level === 'military' ? 'Chiffrement quantique' : CIPHER_LABELS[level]}
        </Badge>
        <SecurityStatus badge={securityBadge(snapshot.security, snapshot.state)} />
      </header>

      <main className="relative flex min-h-0 flex-1 flex-col items-center justify-center overflow-hidden">
        {video ? <RemoteVideo stream={snapshot.remoteStream} hidden={!showVideo} /> : null}
        {!showVideo ? (
          <PeerAvatar
            name={params.peerName}
            ringing={snapshot.state === 'outgoing' || snapshot.state === 'incoming'}
            note={video && inCall && snapshot.peerCameraOff ? 'Caméra coupée' : null}
          />
        ) : null}
        <div
          className={cn(
            'z-10 flex flex-col items-center gap-3 px-4 text-center',
            showVideo
              ? 'absolute top-3 left-1/2 -translate-x-1/2 rounded-full bg-black/60 px-4 py-1'
              : 'relative mt-4',
          )}
        >
          <CallStatus snapshot={snapshot} params={params} />
          {active && inCall && snapshot.peerMicMuted ? (
            <p
              className="flex items-center gap-1 rounded-full bg-black/60 px-3 py-1 text-sm text-amber-200"
              data-testid="peer-muted"
            >
              <MicOff className="size-4" aria-hidden /> {params.peerName} a coupé son micro
            </p>
          ) : null}
          {snapshot.awaitingAnswer ? (
            <div className="flex gap-3">
              <Button variant="destructive" onClick={() => session?.reject()}>
                <PhoneOff aria-hidden /> Refuser
              </Button>
              <Button className="bg-emerald-600 hover:bg-emerald-700" onClick={() => void session?.accept()}>
                <Phone aria-hidden /> Accepter
              </Button>
            </div>
          ) : null}
        </div>
        {video && snapshot.localStream && active ? (
          <LocalPreview stream={snapshot.localStream} off={snapshot.cameraOff} name={info.user.username} />
        ) : null}
        <RemoteAudio stream={snapshot.remoteStream} />
      </main>

      <footer className="flex flex-wrap items-center justify-center gap-3 border-t border-white/10 px-3 py-4">
        {active ? (
          <>
            {snapshot.localStream && snapshot.state !== 'outgoing' && snapshot.state !== 'incoming' ? (
              <ToggleButton
                pressed={snapshot.micMuted}
                onClick={() => session?.toggleMic()}
                on={
                  <>
                    <MicOff aria-hidden /> Réactiver le micro
                  </>
                }
                off={
                  <>
                    <Mic aria-hidden /> Couper le micro
                  </>
                }
              />
            ) : null}
            {video &&
            snapshot.localStream &&
            snapshot.state !== 'outgoing' &&
            snapshot.state !== 'incoming' ? (
              <ToggleButton
                pressed={snapshot.cameraOff}
                onClick={() => session?.toggleCamera()}
                on={
                  <>
                    <VideoOff aria-hidden /> Réactiver la caméra
                  </>
                }
                off={
                  <>
                    <Video aria-hidden /> Couper la caméra
                  </>
                }
              />
            ) : null}
            {!snapshot.awaitingAnswer ? (
              <Button variant="destructive" onClick={() => session?.hangup()}>
                <PhoneOff aria-hidden /> Raccrocher
              </Button>
            ) : null}
          </>
        ) : (
          <Button key="close" variant="secondary" onClick={handleBack}>
            Fermer
          </Button>
        )}
      </footer>
      <ConfirmDialog
        open={confirmLeave}
        onOpenChange={setConfirmLeave}
        title={'Quitter l’appel\u202f?'}
        description={`L’appel avec ${params.peerName} est en cours. Revenir au Ring y met fin.`}
        cancelLabel="Rester dans l’appel"
        confirmLabel="Raccrocher et revenir au Ring"
        onConfirm={() => {
          setConfirmLeave(false);
          leave();
        }}
      />
    </div>
  );
}

const noopSubscribe = () => () => undefined;
const INITIAL: CallSnapshot = initialCallSnapshot(false);
const initial = () => INITIAL;

/** Creates the call session once the socket exists, and ends it when the popup goes away. */
function useCallSession(selfId: string, params: CallParams): CallSession | null {
  const keys = useRingKeys();
  const { socket, status } = useRingSocket();
  const [session, setSession] = useState<CallSession | null>(null);
  // The keys and the joined socket reach the session (which outlives renders) as they come.
  const keyWait = useRef<Deferred<CryptoKey> | null>(null);
  const joinWait = useRef<Deferred<void> | null>(null);
  const latest = useRef({ keys, status });
  useEffect(() => {
    latest.current = { keys, status };
    if (keys.signingKey) keyWait.current?.resolve(keys.signingKey);
    if (status === 'connected') joinWait.current?.resolve();
  }, [keys, status]);

  useEffect(() => {
    if (!socket) return;
    const keyReady = deferred<CryptoKey>();
    const joinReady = deferred<void>();
    keyWait.current = keyReady;
    joinWait.current = joinReady;
    if (latest.current.keys.signingKey) keyReady.resolve(latest.current.keys.signingKey);
    if (latest.current.status === 'connected') joinReady.resolve();
    const created = new CallSession({
      params,
      selfId,
      socket,
      joined: () => joinReady.promise,
      keys: {
        signingKey: () => keyReady.promise,
        verifyKeyOf: (id) => latest.current.keys.verifyKeyOf(id),
      },
      iceServers: async () => {
        // TURN credentials exist only for an answered call, bound to it (the session asks then).
        const query = new URLSearchParams({ callId: params.callId });
        const config = await apiRequest(`${CALL_API_PATHS.callConfig}?${query.toString()}`, {
          auth: 'ring',
          schema: ZCallConfigResponse,
        });
        return config.iceServers.map((server) => ({
          urls: server.urls,
          ...(server.username !== undefined ? { username: server.username } : {}),
          ...(server.credential !== undefined ? { credential: server.credential } : {}),
        }));
      },
      getUserMedia: (constraints) => navigator.mediaDevices.getUserMedia(constraints),
      autoAccept: params.incoming && hasSameOriginOpener(window),
      onInvited: () => announceCallProgress(params.callId, 'invited'),
      onConnected: () => announceCallProgress(params.callId, 'connected'),
      debug: readCallDebugKnobs(window.localStorage),
      log: (message, details) => logToServer('warning', 'realtime', message, details, selfId),
    });
    // The session lives exactly as long as this effect: the state hands it to the screen.
    setSession(created);
    created.start();
    const leave = () => created.dispose();
    const online = () => created.networkChanged();
    window.addEventListener('pagehide', leave);
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('pagehide', leave);
      window.removeEventListener('online', online);
      created.dispose();
    };
  }, [socket, params, selfId]);

  return session;
}

function SecurityStatus({ badge }: { badge: ReturnType<typeof securityBadge> }) {
  if (badge === 'verified') {
    return (
      <span className="flex items-center gap-1 text-xs text-emerald-300" data-testid="call-security">
        <ShieldCheck className="size-4" aria-hidden /> Appel chiffré de bout en bout
      </span>
    );
  }
  if (badge === 'refused') {
    return (
      <span className="flex items-center gap-1 text-xs text-red-300" data-testid="call-security">
        <ShieldAlert className="size-4" aria-hidden /> Signature de sécurité refusée
      </span>
    );
  }
  if (badge === 'unverified') {
    return (
      <span className="flex items-center gap-1 text-xs text-red-300" data-testid="call-security">
        <ShieldAlert className="size-4" aria-hidden /> Sécurité de l’appel non vérifiée
      </span>
    );
  }
  if (badge === 'checking') {
    return (
      <span className="flex items-center gap-1 text-xs text-amber-200" data-testid="call-security">
        <Loader2 className="size-4 animate-spin" aria-hidden /> Vérification de la sécurité de l’appel…
      </span>
    );
  }
  return null;
}

function CallStatus({ snapshot, params }: { snapshot: CallSnapshot; params: CallParams }) {
  if (snapshot.state === 'ended') {
    return (
      <p role="status" className="text-lg font-medium" data-testid="call-ended">
        {snapshot.ending?.text ?? 'Appel terminé'}
      </p>
    );
  }
  if (snapshot.preparing === 'keys') return <Status>Récupération de vos clés de chiffrement…</Status>;
  if (snapshot.preparing === 'media')
    return <Status>{params.audioOnly ? 'Accès au micro…' : 'Accès au micro et à la caméra…'}</Status>;
  if (snapshot.state === 'outgoing') return <Status>En attente de réponse…</Status>;
  if (snapshot.state === 'incoming')
    return (
      <Status>
        {snapshot.awaitingAnswer ? `${params.peerName} vous appelle…` : 'Préparation de l’appel…'}
      </Status>
    );
  if (snapshot.state === 'connected' && snapshot.connectedAt !== null)
    return <CallTimer since={snapshot.connectedAt} />;
  if (snapshot.reconnecting) return <Status>Reconnexion…</Status>;
  return <Status>Connexion en cours…</Status>;
}

function Status({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="text-base text-slate-300">
      {children}
    </p>
  );
}

/** `mm:ss` since the connection, refreshed every second. */
function CallTimer({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <p className="font-mono text-2xl tabular-nums" data-testid="call-timer" aria-label="Durée de l’appel">
      {formatCallDuration(now - since)}
    </p>
  );
}

function PeerAvatar({ name, ringing, note }: { name: string; ringing: boolean; note: string | null }) {
  return (
    <div className="flex flex-col items-center gap-3">
      <span
        className={cn(
          'flex size-24 items-center justify-center rounded-full bg-primary/30 text-4xl font-semibold uppercase sm:size-32',
          ringing && 'animate-pulse',
        )}
        aria-hidden
      >
        {name.charAt(0)}
      </span>
      <p className="text-xl font-semibold">{name}</p>
      {note ? (
        <p className="flex items-center gap-1 text-sm text-slate-300" data-testid="peer-camera-off">
          <VideoOff className="size-4" aria-hidden /> {note}
        </p>
      ) : null}
    </div>
  );
}

/** The peer's video (muted: the sound plays through RemoteAudio, which autoplay may allow later). */
function RemoteVideo({ stream, hidden }: { stream: MediaStream | null; hidden: boolean }) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    element.srcObject = stream;
    if (stream) void element.play().catch(() => undefined);
  }, [stream]);
  return (
    <video
      ref={ref}
      data-testid="remote-video"
      autoPlay
      playsInline
      muted
      className={cn('absolute inset-0 size-full bg-black object-contain', hidden && 'invisible')}
    />
  );
}

function LocalPreview({ stream, off, name }: { stream: MediaStream; off: boolean; name: string }) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    element.srcObject = stream;
    void element.play().catch(() => undefined);
  }, [stream]);
  return (
    <div className="absolute right-3 bottom-3 z-20 w-28 overflow-hidden rounded-lg border border-white/20 bg-black shadow-lg sm:w-48">
      <video
        ref={ref}
        data-testid="local-video"
        autoPlay
        playsInline
        muted
        aria-label="Votre caméra"
        className={cn('aspect-video w-full -scale-x-100 object-cover', off && 'invisible')}
      />
      {off ? (
        <span className="absolute inset-0 flex flex-col items-center justify-center gap-1 text-xs text-slate-300">
          <span
            className="flex size-8 items-center justify-center rounded-full bg-primary/40 text-sm font-semibold text-white uppercase sm:size-12 sm:text-lg"
            aria-hidden
          >
            {name.charAt(0)}
          </span>
          Caméra coupée
        </span>
      ) : null}
    </div>
  );
}

/** The peer's sound; if the browser blocks autoplay, a button starts it. */
function RemoteAudio({ stream }: { stream: MediaStream | null }) {
  const ref = useRef<HTMLAudioElement>(null);
  const [blocked, setBlocked] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    element.srcObject = stream;
    if (!stream) return;
    element.play().then(
      () => setBlocked(false),
      () => setBlocked(true),
    );
  }, [stream]);
  return (
    <>
      <audio ref={ref} autoPlay data-testid="remote-audio" className="hidden" />
      {blocked ? (
        <Button
          variant="secondary"
          size="sm"
          className="absolute top-3 left-1/2 z-30 -translate-x-1/2"
          onClick={() => {
            void ref.current?.play().then(() => setBlocked(false));
          }}
        >
          <Volume2 aria-hidden /> Activer le son
        </Button>
      ) : null}
    </>
  );
}

function ToggleButton({
  pressed,
  onClick,
  on,
  off,
}: {
  pressed: boolean;
  onClick: () => void;
  on: ReactNode;
  off: ReactNode;
}) {
  return (
    <Button
      variant="secondary"
      aria-pressed={pressed}
      className={cn(pressed && 'bg-amber-200 text-amber-950 hover:bg-amber-300')}
      onClick={onClick}
    >
      {pressed ? on : off}
    </Button>
  );
}
