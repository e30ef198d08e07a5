import type { TRingInfo } from '@securering/contract';
import { useQueryClient } from '@tanstack/react-query';
import {
  lazy,
  Suspense,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { logToServer } from '@/lib/client-log';
import {
  forgetRememberedIdentity,
  getRememberedIdentity,
  putRememberedIdentity,
} from '@/lib/remembered-keys';
import { RING_INFO_KEY } from '../api/ring-info';
import { useRingEvent, useRingSocket } from '../realtime/ring-socket';
import { Keyring, LOCKED_KEYRING, type RememberedIdentityStore } from './keyring';
import { needsKeySync } from './keyring-policy';
import { createKeysApi, membersOf } from './keys-api';
import type { PassphraseDialogMode } from './passphrase-dialog';
import { hasSameOriginOpener, requestKeyringFromOpener, serveKeyringToPopups } from './popup-bridge';
import { browserLocalTrustStore } from './local-trust-store';
import { RingKeysContext, type RingKeys } from './use-ring-keys';

/** A burst of keys_changed events makes one state read. */
const SYNC_DEBOUNCE_MS = 250;
/** While waiting for keys: ask the key holders again, and read the state again as a safety net. */
const REQUEST_KEYS_EVERY_MS = 5000;
const WAITING_SYNC_EVERY_MS = 10_000;

const noop = () => () => undefined;

/** « Se souvenir sur cet appareil »: IndexedDB, key objects stored as such (non-extractable). */
const rememberedStore: RememberedIdentityStore = {
  get: (ringId, memberId) => getRememberedIdentity(ringId, memberId),
  put: (ringId, memberId, identity, publicKeys) =>
    putRememberedIdentity({ ringId, memberId, identity, publicKeys, savedAt: new Date().toISOString() }),
  forget: forgetRememberedIdentity,
};

// The passphrase dialog (with its strength meter and recovery form) loads the first time this
// device has to ask for the passphrase: a member whose keys are remembered here never downloads it.
const PassphraseDialog = lazy(() =>
  import('./passphrase-dialog').then((m) => ({ default: m.PassphraseDialog })),
);

// « Clé de secours »: shown once per member, loaded only then.
const RecoveryKeyDialog = lazy(() =>
  import('./recovery-key-dialog').then((m) => ({ default: m.RecoveryKeyDialog })),
);

/**
 * The room's keyring (issue 10): loads the member's key record, asks for the passphrase (or, in a
 * DM/call popup, takes the keys from the room that opened it), then keeps the Ring's epoch keys in
 * step with the server — reading the key state on every `keys_changed`, sharing keys with members
 * who lack them, asking for keys while waiting. Renders the passphrase dialog; children read the
 * keys with `useRingKeys()`.
 */
export function RingKeysProvider({ info, children }: { info: TRingInfo; children: ReactNode }) {
  const client = useQueryClient();
  const { socket, status: connection, joinCatchUp } = useRingSocket();
  const ringId = info.ring.id;
  const memberId = info.user.id;
  const [keyring, setKeyring] = useState<Keyring | null>(null);
  const [dismissed, setDismissed] = useState(false);
  const [resetOpen, setResetOpen] = useState(false);
  const [recoverOpen, setRecoverOpen] = useState(false);

  // Read by the keyring's callbacks, which outlive a render.
  const live = useRef({ socket, level: info.ring.encryptionLevel, role: info.user.role });
  useEffect(() => {
    live.current = { socket, level: info.ring.encryptionLevel, role: info.user.role };
  });

  useEffect(() => {
    const created = new Keyring({
      ringId,
      memberId,
      level: () => live.current.level,
      role: () => live.current.role,
      api: createKeysApi(client),
      localTrust: browserLocalTrustStore(),
      remembered: rememberedStore,
      log: (message, details) =>
        logToServer('warning', 'security', message, { ringId, ...details }, memberId),
    });
    // The keyring lives exactly as long as this effect: its state hands it to the children.
    setKeyring(created);
    void (async () => {
      if (hasSameOriginOpener(window) && globalThis.crypto?.subtle) {
        created.markWaitingForOpener(true);
        const transfer = await requestKeyringFromOpener({ ringId, memberId });
        if (transfer) await created.adopt(transfer);
        else created.markWaitingForOpener(false);
      } else {
        await created.load();
      }
    })();
    return () => {
      created.dispose();
      setKeyring(null);
    };
  }, [ringId, memberId, client]);

  const snapshot = useSyncExternalStore(
    keyring?.subscribe ?? noop,
    keyring?.getSnapshot ?? (() => LOCKED_KEYRING),
    () => LOCKED_KEYRING,
  );

  // Members and their published keys: safety numbers and trust on first use. Presence updates
  // change `info` often; the keyring hears only of changes to who is there and their keys.
  const membersKey = JSON.stringify(membersOf(info));
  useEffect(() => {
    if (keyring) void keyring.setMembers(JSON.parse(membersKey) as ReturnType<typeof membersOf>);
  }, [keyring, membersKey]);

  // Popups this room opened get its unlocked keys.
  useEffect(() => {
    if (!keyring) return;
    return serveKeyringToPopups(() => keyring.exportTransfer());
  }, [keyring]);

  const syncTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const scheduleSync = useRef(() => undefined as void);
  useEffect(() => {
    scheduleSync.current = () => {
      clearTimeout(syncTimer.current);
      syncTimer.current = setTimeout(() => void keyring?.sync(), SYNC_DEBOUNCE_MS);
    };
    return () => clearTimeout(syncTimer.current);
  }, [keyring]);

  useRingEvent('keys_changed', (event) => {
    // New or reset member keys change the safety numbers and who gets shares; a rotation falls
    // due when the membership changed (a member deactivated or back): read the members again.
    if (event.reason === 'member_keys' || event.reason === 'rotation_due' || event.reason === 'membership') {
      void client.invalidateQueries({ queryKey: RING_INFO_KEY });
    }
    scheduleSync.current();
  });
  useRingEvent('ring_settings_updated', (event) => {
    if (typeof event.updated.encryption_level === 'string' || 'share_history' in event.updated) {
      scheduleSync.current();
    }
  });
  // Once unlocked (keys possibly just published or reset): read the members' keys again.
  const ready = snapshot.phase === 'ready';
  useEffect(() => {
    if (ready) void client.invalidateQueries({ queryKey: RING_INFO_KEY });
  }, [ready, client]);

  // At every join (a reconnection may have missed keys_changed events): read the key state again,
  // unless the Ring's key revision is still the one of the state held.
  useEffect(() => {
    if (!keyring) return;
    return joinCatchUp.register({
      held: () => [],
      wantsKeyRevision: () => true,
      joined: ({ keyRevision }) => {
        if (!needsKeySync(keyring.keyRevision, keyRevision)) return;
        scheduleSync.current();
      },
    });
  }, [keyring, joinCatchUp]);

  // Waiting for keys: nudge the key holders now and every few seconds, and read the state again.
  const waiting = snapshot.status === 'waiting_keys' && snapshot.currentEpoch > 0;
  useEffect(() => {
    if (!waiting || connection !== 'connected' || !keyring) return;
    const ask = () => live.current.socket?.emit('request_keys', { ringId });
    ask();
    const asking = setInterval(ask, REQUEST_KEYS_EVERY_MS);
    const reading = setInterval(() => void keyring.sync(), WAITING_SYNC_EVERY_MS);
    return () => {
      clearInterval(asking);
      clearInterval(reading);
    };
  }, [waiting, connection, keyring, ringId]);

  const value = useMemo<RingKeys>(
    () => ({
      state: snapshot.status,
      phase: snapshot.phase,
      ringId,
      memberId,
      currentEpoch: snapshot.currentEpoch,
      signingKey: keyring?.signingKey ?? null,
      epochKey: (epoch) => keyring?.epochKey(epoch),
      currentEpochKey: () => keyring?.currentEpochKey(),
      namesKey: () => keyring?.namesKey(),
      verifyKeyOf: async (id) => (keyring ? (await keyring.verifyKeysOf(id))[0] : undefined),
      verifyKeysOf: async (id) => (keyring ? keyring.verifyKeysOf(id) : []),
      metaSignerKeys: async (pin) => (keyring ? keyring.metaSignerKeys(pin) : []),
      logHead: () => keyring?.logHead(),
      ensureSendableEpoch: () => {
        if (!keyring) return Promise.reject(new Error('Clés du Ring indisponibles'));
        return keyring.ensureSendableEpoch();
      },
      rotateAhead: (epoch) => keyring?.rotateAhead(epoch),
      refresh: () => void keyring?.sync(),
      encryptText: (conversationId, plaintext, epochKey, clientMessageId, ephemeralSec, chain) => {
        if (!keyring) return Promise.reject(new Error('Clés du Ring indisponibles'));
        return keyring.encryptText(conversationId, plaintext, epochKey, clientMessageId, ephemeralSec, chain);
      },
      decryptText: (content, conversationId) => {
        if (!keyring) return Promise.reject(new Error('Clés du Ring indisponibles'));
        return keyring.decryptText(content, conversationId);
      },
      safety: snapshot.safety,
      admission: snapshot.admission,
      mayAdmit: snapshot.mayAdmit,
      confirmers: snapshot.confirmers,
      keyChanges: snapshot.keyChanges,
      membershipChanges: snapshot.membershipChanges,
      remembered: snapshot.remembered,
      waiting: snapshot.waiting,
      historyOffered: snapshot.historyOffered,
      ignoredPending: snapshot.ignoredPending,
      logProblem: snapshot.logProblem,
      verifiedKeyChanged: snapshot.verifiedKeyChanged,
      markVerified: async (id, shown) => (keyring ? keyring.markVerified(id, shown) : false),
      unmarkVerified: async (id) => (keyring ? keyring.unmarkVerified(id) : false),
      confirmKey: async (id, expectedFingerprint) =>
        keyring ? keyring.confirmKey(id, expectedFingerprint) : false,
      admit: async (id, options) => (keyring ? keyring.admit(id, options) : false),
      refuse: async (id) => (keyring ? keyring.refuse(id) : false),
      departed: snapshot.departed,
      reactivatable: snapshot.reactivatable,
      noAdminToVouch: snapshot.noAdminToVouch,
      recordDeparture: async (id) => (keyring ? keyring.recordDeparture(id) : false),
      reactivate: async (id) => (keyring ? keyring.reactivate(id) : false),
      isLogOwner: snapshot.isLogOwner,
      setRole: async (id, role) => (keyring ? keyring.setRole(id, role) : false),
      reading: snapshot.reading,
      setReading: async (settings) => (keyring ? keyring.setReading(settings) : false),
      openUnlock: () => setDismissed(false),
      resetKeys: () => setResetOpen(true),
    }),
    // The snapshot changes whenever the keyring does.
    [keyring, snapshot, ringId, memberId],
  );

  const needsPassphrase =
    snapshot.phase === 'setup' || snapshot.phase === 'unlock' || snapshot.phase === 'load_failed';
  const mode: PassphraseDialogMode | null = resetOpen
    ? 'reset'
    : recoverOpen && snapshot.phase === 'unlock'
      ? 'recover'
      : needsPassphrase && !dismissed
        ? snapshot.phase === 'setup'
          ? 'create'
          : snapshot.phase === 'unlock'
            ? 'unlock'
            : 'load_failed'
        : null;
  // Once loaded, the dialog stays mounted (closed) so that closing it keeps its animation.
  const [passphraseAsked, setPassphraseAsked] = useState(false);
  if (mode !== null && !passphraseAsked) setPassphraseAsked(true);

  return (
    <RingKeysContext.Provider value={value}>
      {children}
      {passphraseAsked ? (
        <Suspense fallback={null}>
          <PassphraseDialog
            mode={mode}
            busy={snapshot.busy}
            error={snapshot.error}
            userInputs={[info.user.username, info.ring.name]}
            onClose={() => {
              if (resetOpen) setResetOpen(false);
              else if (recoverOpen) setRecoverOpen(false);
              else setDismissed(true);
            }}
            onRecover={() => setRecoverOpen(true)}
            onForgot={() => {
              setRecoverOpen(false);
              setResetOpen(true);
            }}
            onRetryLoad={() => void keyring?.load()}
            remembered={snapshot.remembered}
            onSubmit={async (passphrase, recoveryKey, remember) => {
              if (!keyring) return false;
              let done = false;
              if (mode === 'reset') {
                done = await keyring.resetKeys(passphrase);
                if (done) setResetOpen(false);
              } else if (mode === 'recover') {
                done = await keyring.recover(recoveryKey, passphrase);
                if (done) setRecoverOpen(false);
              } else if (mode === 'create') {
                done = await keyring.createPassphrase(passphrase);
              } else if (mode === 'unlock') {
                done = await keyring.unlock(passphrase);
              }
              if (done) await keyring.rememberOnDevice(remember);
              return done;
            }}
          />
        </Suspense>
      ) : null}
      {snapshot.recoveryKey && mode === null ? (
        <Suspense fallback={null}>
          <RecoveryKeyDialog
            recoveryKey={snapshot.recoveryKey}
            ringName={info.ring.name}
            onDone={() => keyring?.acknowledgeRecoveryKey()}
          />
        </Suspense>
      ) : null}
    </RingKeysContext.Provider>
  );
}
