import { CALL_MESSAGES, type ClientToServerEvents, type ServerToClientEvents } from '@securering/contract';
import type { Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  isTurnServerAvailable,
  startTurnServer,
  type RunningTurnServer,
} from '../../apps/server/test/turn-server';
import { apiJson as api, invitedMember, type RingLogin } from '../support/api';
import {
  admitInRoom,
  closeMemberMenu,
  memberAction,
  memberActions,
  memberSafetyNumber,
  openMemberMenu,
  openUnlockedRoom,
} from '../support/room';
import { screenshot, trackPageErrors } from '../support/browser';
import { CUSTOMER_PASSWORD, subscribedCustomer } from '../support/customer';
import { PAYMENT_TEST_MODE_ENV } from '../support/server';
import { useSuite } from '../support/suite';

const OWNER = 'alice.appels@example.com';
const OWNER_NAME = 'Claire Fontaine';
const RING = 'Cellule Appels';
const MEMBER_PASSWORD = 'Membre-Pass-123';
const PHRASES = {
  owner: 'la voix porte loin ce matin',
  bob: 'bob répond toujours au téléphone',
  carol: 'carol écoute sans rien entendre',
};
/** The call knobs of call-debug.ts (local storage, shared by the room and its popups). */
const KNOBS = {
  relay: 'securering.debug.callRelay',
  tamper: 'securering.debug.callTamperSignature',
  expose: 'securering.debug.callExpose',
};

type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * Records every `data-call-state` a page of the context shows, from its first paint. A popup's
 * window outlives its initial about:blank document, so this polls the current document as well as
 * observing it.
 */
function recordCallStates() {
  const w = window as unknown as { __callStates?: string[] };
  const seen = (w.__callStates ??= []);
  const record = () => {
    const value = document.querySelector('[data-call-state]')?.getAttribute('data-call-state');
    if (value && seen[seen.length - 1] !== value) seen.push(value);
  };
  setInterval(record, 10);
  const observe = () =>
    new MutationObserver(record).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-call-state'],
    });
  observe();
  document.addEventListener('DOMContentLoaded', observe);
}

const statesOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { __callStates: string[] }).__callStates);

async function waitForCallState(page: Page, state: string, timeout = 20_000) {
  await page.locator(`[data-call-state="${state}"]`).waitFor({ timeout });
}

const usersPanel = (page: Page) => page.getByRole('list', { name: 'Membres du Ring' });
const memberRow = (page: Page, name: string) => usersPanel(page).getByRole('listitem', { name });

/** The member's presence line in the users panel ("En ligne", "En appel"…). */
async function presenceIs(page: Page, name: string, text: string) {
  await expect
    .poll(async () => (await memberRow(page, name).locator('p.text-xs').first().textContent())?.trim(), {
      timeout: 10_000,
    })
    .toMatch(new RegExp(`(^|\\. )${text}$`));
}

/** Call popups opened by a test: closed after it, so a failure does not leave members busy. */
const popups: Page[] = [];

/** Clicks "Appel vocal/vidéo avec {name}" in the users panel; resolves the call popup. */
async function call(page: Page, name: string, video = false): Promise<Page> {
  const [popup] = await Promise.all([
    page.waitForEvent('popup'),
    memberAction(page, name, `${video ? 'Appel vidéo' : 'Appel vocal'} avec ${name}`),
  ]);
  errors.push(trackPageErrors(popup));
  popups.push(popup);
  return popup;
}

const incomingCard = (page: Page, name: string, video = false) =>
  page.getByRole('alertdialog', { name: `${video ? 'Appel vidéo' : 'Appel vocal'} avec ${name}` });

/** Waits for the ringing card and clicks "Accepter"; resolves the callee's call popup. */
async function answer(page: Page, name: string, video = false): Promise<Page> {
  const card = incomingCard(page, name, video);
  await card.waitFor({ timeout: 15_000 });
  const [popup] = await Promise.all([
    page.waitForEvent('popup'),
    card.getByRole('button', { name: 'Accepter' }).click(),
  ]);
  errors.push(trackPageErrors(popup));
  popups.push(popup);
  return popup;
}

/** The call popup's RTCPeerConnection stats, summed (the expose knob puts the pc on window). */
function mediaStats(page: Page) {
  return page.evaluate(async () => {
    const exposed = (window as unknown as { __secureringCall?: { pc: RTCPeerConnection | null } })
      .__secureringCall;
    const pc = exposed?.pc;
    if (!pc) return null;
    const report = await pc.getStats();
    const stats = new Map<string, Record<string, unknown>>();
    report.forEach((s: Record<string, unknown>) => stats.set(String(s.id), s));
    let audioPackets = 0;
    let videoFrames = 0;
    let pair: { local?: string; remote?: string; localUrl?: string } = {};
    for (const s of stats.values()) {
      if (s.type === 'inbound-rtp' && s.kind === 'audio') audioPackets += Number(s.packetsReceived ?? 0);
      if (s.type === 'inbound-rtp' && s.kind === 'video') videoFrames += Number(s.framesDecoded ?? 0);
      if (s.type === 'transport' && typeof s.selectedCandidatePairId === 'string') {
        const selected = stats.get(s.selectedCandidatePairId);
        const local = selected && stats.get(String(selected.localCandidateId));
        const remote = selected && stats.get(String(selected.remoteCandidateId));
        pair = {
          local: String(local?.candidateType),
          remote: String(remote?.candidateType),
          localUrl: String(local?.url),
        };
      }
    }
    return { audioPackets, videoFrames, pair, state: pc.connectionState };
  });
}

/** What ICE did in a call popup (candidates and pairs), printed when a relay call does not connect. */
function iceReport(page: Page) {
  return page.evaluate(async () => {
    const exposed = (window as unknown as { __secureringCall?: { pc: RTCPeerConnection | null } })
      .__secureringCall;
    const pc = exposed?.pc;
    if (!pc) return 'no peer connection';
    const lines = [
      `connection ${pc.connectionState}, ice ${pc.iceConnectionState}, gathering ${pc.iceGatheringState}`,
    ];
    (await pc.getStats()).forEach((s: Record<string, unknown>) => {
      if (s.type === 'local-candidate' || s.type === 'remote-candidate')
        lines.push(
          `${s.type} ${s.id}: ${s.candidateType} ${s.protocol} ${s.address}:${s.port} ${s.url ?? ''}`,
        );
      if (s.type === 'candidate-pair')
        lines.push(
          `pair ${s.localCandidateId} -> ${s.remoteCandidateId}: ${s.state}, requests ${s.requestsSent}/${s.responsesReceived}`,
        );
    });
    return lines.join('\n');
  });
}

async function waitForAudio(page: Page) {
  await expect
    .poll(async () => (await mediaStats(page))?.audioPackets ?? 0, { timeout: 15_000, interval: 250 })
    .toBeGreaterThan(0);
}

const localTrackEnabled = (page: Page, kind: 'audio' | 'video') =>
  page.evaluate((k) => {
    const exposed = (window as unknown as { __secureringCall?: { localStream: MediaStream | null } })
      .__secureringCall;
    const tracks =
      k === 'audio' ? exposed?.localStream?.getAudioTracks() : exposed?.localStream?.getVideoTracks();
    return tracks?.map((t) => t.enabled) ?? [];
  }, kind);

/** Sets or clears a call knob in the room's local storage (its popups read it when they open). */
const setKnob = (page: Page, key: string, on: boolean) =>
  page.evaluate(({ key, on }) => (on ? localStorage.setItem(key, '1') : localStorage.removeItem(key)), {
    key,
    on,
  });

/** Hangs up from `from`; both popups must show `ended` within 2 s. */
async function hangUpBoth(from: Page, other: Page) {
  const started = Date.now();
  await from.getByRole('button', { name: 'Raccrocher' }).click();
  await Promise.all([waitForCallState(from, 'ended', 2000), waitForCallState(other, 'ended', 2000)]);
  expect(Date.now() - started).toBeLessThan(2500);
}

/** Opens « Message privé à {name} » from the users panel; resolves the conversation's region. */
async function openDm(page: Page, name: string) {
  const [popup] = await Promise.all([
    page.waitForEvent('popup'),
    memberAction(page, name, `Message privé à ${name}`),
  ]);
  errors.push(trackPageErrors(popup));
  popups.push(popup);
  await popup.waitForURL(/convId=dm%3A/);
  return { popup, chat: popup.getByRole('region', { name: `Conversation privée avec ${name}` }) };
}

const errors: string[][] = [];

describe('[CALLS] one-to-one voice and video calls between Ring members (WebRTC, signed DTLS fingerprints, TURN)', () => {
  const env: Record<string, string> = { ...PAYMENT_TEST_MODE_ENV };
  let turn: RunningTurnServer | undefined;
  // Before the suite's server starts: it reads TURN_URLS / TURN_SECRET from this env.
  beforeAll(async () => {
    if (!isTurnServerAvailable()) return;
    turn = await startTurnServer();
    env.TURN_URLS = turn.url;
    env.TURN_SECRET = turn.secret;
  });
  afterAll(async () => {
    await turn?.stop();
  });
  const suite = useSuite({ mailbox: true, env });

  let customerToken = '';
  let ringId = '';
  const logins: Record<'owner' | 'bob' | 'carol', RingLogin> = {} as never;
  let alice: Page;
  let bob: Page;
  let carol: Page;
  let carolSocket: TestSocket;
  const carolEvents: string[] = [];
  const sockets: TestSocket[] = [];

  async function memberSocket(token: string): Promise<TestSocket> {
    const minted = await api<{ stream_token: string }>(
      suite.server.url,
      'POST',
      '/api/rings/mint-stream-token.php',
      undefined,
      token,
    );
    const socket: TestSocket = io(suite.server.url, {
      path: '/socket.io',
      auth: { token: minted.stream_token },
      transports: ['websocket'],
      reconnection: false,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const joined = await socket.emitWithAck('join_ring', { ringId });
    if (!joined.ok) throw new Error(`join_ring refused: ${joined.error}`);
    sockets.push(socket);
    return socket;
  }

  /** A room in its own browser context, signed in with the session cookies, keys unlocked. */
  async function openRoom(login: RingLogin, phrase: string): Promise<Page> {
    const page = await suite.page();
    errors.push(trackPageErrors(page));
    await page.context().addInitScript(recordCallStates);
    await openUnlockedRoom(page, suite.server.url, login, phrase);
    await setKnob(page, KNOBS.expose, true);
    return page;
  }

  beforeAll(async () => {
    await subscribedCustomer(suite.server, suite.mailbox, OWNER);
    const login = await api<{ token: string }>(suite.server.url, 'POST', '/api/auth/customer-login.php', {
      email: OWNER,
      password: CUSTOMER_PASSWORD,
    });
    customerToken = login.token;
    const created = await api<{ data: { id: string } }>(
      suite.server.url,
      'POST',
      '/api/customer/rings.php',
      { name: RING },
      customerToken,
    );
    ringId = created.data.id;
    logins.owner = await api<RingLogin>(suite.server.url, 'POST', '/api/rings/login.php', {
      email: OWNER,
      password: CUSTOMER_PASSWORD,
    });
    for (const name of ['bob', 'carol'] as const)
      logins[name] = await invitedMember(suite.server.url, customerToken, ringId, name, MEMBER_PASSWORD);
    alice = await openRoom(logins.owner, PHRASES.owner);
    bob = await openRoom(logins.bob, PHRASES.bob);
    carol = await openRoom(logins.carol, PHRASES.carol);
    // The owner admits both in the room (issue 24): calls verify peers by the membership log.
    await admitInRoom(alice, 'bob');
    await admitInRoom(alice, 'carol');
    // Everyone sees everyone's keys (the call popups verify the peer's signature with them).
    for (const page of [alice, bob, carol]) {
      for (const name of [OWNER_NAME, 'bob', 'carol']) await memberSafetyNumber(page, name, 20_000);
    }
    // The third member listens on its own socket too: it must never hear of the others' calls.
    carolSocket = await memberSocket(logins.carol.token);
    carolSocket.onAny((name: string) => carolEvents.push(name));
  });

  afterEach(async () => {
    const open = popups.splice(0).filter((popup) => !popup.isClosed());
    await Promise.all(open.map((popup) => popup.close()));
    // The rooms see the popups closed (500 ms) and end their calls.
    if (open.length) await alice.waitForTimeout(1500);
  });

  afterAll(() => {
    for (const socket of sockets) socket.close();
  });

  it('[CALLS] the users panel offers voice and video calls to online members, never to oneself', async () => {
    // The calls are actions of the member's « ⋯ » menu (issue 28: one line per member).
    const bobRow = await openMemberMenu(alice, 'bob');
    await bobRow.getByRole('menuitem', { name: 'Appel vocal avec bob' }).waitFor();
    await bobRow.getByRole('menuitem', { name: 'Appel vidéo avec bob' }).waitFor();
    await closeMemberMenu(alice, 'bob');
    expect((await memberActions(alice, OWNER_NAME)).filter((name) => name.startsWith('Appel'))).toEqual([]);
    await (
      await openMemberMenu(bob, OWNER_NAME)
    )
      .getByRole('menuitem', { name: `Appel vocal avec ${OWNER_NAME}` })
      .waitFor();
    await closeMemberMenu(bob, OWNER_NAME);
  });

  it('[CALLS] a voice call connects: audio flows, the timer runs, mute works, a third member sees "En appel", hang-up ends both sides', async () => {
    const callerPopup = await call(alice, 'bob');
    await waitForCallState(callerPopup, 'outgoing');
    await callerPopup.getByText('En attente de réponse…').waitFor();
    // No key check can have happened yet: the screen does not claim encryption.
    expect(await callerPopup.getByText('Appel chiffré de bout en bout').count()).toBe(0);

    // The callee's room rings: card, ringtone at its volume, in a loop.
    const card = incomingCard(bob, OWNER_NAME);
    await card.waitFor({ timeout: 15_000 });
    await card.getByText(`${OWNER_NAME} vous appelle`).waitFor();
    const ringtone = bob.getByTestId('call-ringtone');
    expect(await ringtone.getAttribute('src')).toBe(
      '/api/notifications/ringtone.php?tone=default&call=voice',
    );
    await expect
      .poll(() =>
        ringtone.evaluate((el: HTMLAudioElement) => ({
          loop: el.loop,
          volume: el.volume,
          playing: !el.paused,
        })),
      )
      .toEqual({ loop: true, volume: 0.7, playing: true });
    await screenshot(bob, 'calls-incoming-card');
    // Nobody else rings.
    expect(await incomingCard(carol, OWNER_NAME).count()).toBe(0);

    const calleePopup = await answer(bob, OWNER_NAME);
    expect(await bob.getByTestId('call-ringtone').count()).toBe(0);
    await Promise.all([
      waitForCallState(callerPopup, 'connected'),
      waitForCallState(calleePopup, 'connected'),
    ]);
    for (const popup of [callerPopup, calleePopup]) {
      await popup.getByText('Appel chiffré de bout en bout').waitFor();
      expect((await mediaStats(popup))?.state).toBe('connected');
      // Review L2: this Chromium hands out the peer's DTLS certificate, which the popup compared
      // with the signed fingerprint (a mismatch would have ended the call; see call-session.test.ts).
      expect(await popup.evaluate(() => typeof RTCDtlsTransport.prototype.getRemoteCertificates)).toBe(
        'function',
      );
    }
    // No second passphrase prompt in the popups: the keys came from the rooms.
    expect(await calleePopup.getByRole('dialog', { name: 'Phrase secrète' }).count()).toBe(0);
    await Promise.all([waitForAudio(callerPopup), waitForAudio(calleePopup)]);

    // The timer runs (mm:ss).
    const timer = callerPopup.getByTestId('call-timer');
    const first = (await timer.textContent())!;
    expect(first).toMatch(/^\d{2}:\d{2}$/);
    await expect.poll(() => timer.textContent(), { timeout: 5000 }).not.toBe(first);

    // Presence: the other members see both "En appel".
    for (const name of [OWNER_NAME, 'bob']) await presenceIs(carol, name, 'En appel');

    // Mute and unmute the microphone.
    await callerPopup.getByRole('button', { name: 'Couper le micro' }).click();
    expect(await localTrackEnabled(callerPopup, 'audio')).toEqual([false]);
    expect(
      await callerPopup.getByRole('button', { name: 'Réactiver le micro' }).getAttribute('aria-pressed'),
    ).toBe('true');
    await callerPopup.getByRole('button', { name: 'Réactiver le micro' }).click();
    expect(await localTrackEnabled(callerPopup, 'audio')).toEqual([true]);
    // A voice call has no camera toggle.
    expect(await callerPopup.getByRole('button', { name: 'Couper la caméra' }).count()).toBe(0);

    await callerPopup.setViewportSize({ width: 900, height: 700 });
    await screenshot(callerPopup, 'calls-voice-connected');

    await hangUpBoth(callerPopup, calleePopup);
    await calleePopup.getByText(`${OWNER_NAME} a raccroché`).waitFor();
    await callerPopup.getByText('Appel terminé').waitFor();
    for (const name of [OWNER_NAME, 'bob']) await presenceIs(carol, name, 'En ligne');
    const seen = await statesOf(callerPopup);
    expect(seen.slice(0, 1)).toEqual(['outgoing']);
    expect(seen).toContain('connecting');
    expect(seen.at(-1)).toBe('ended');
    expect(seen.indexOf('connected')).toBeGreaterThan(seen.indexOf('connecting'));

    // The third member heard presence, never the call's own events.
    expect(carolEvents.filter((name) => /^call_|^ice_candidate$/.test(name))).toEqual([]);
    expect(carolEvents).toContain('presence_update');
    await Promise.all([callerPopup.close(), calleePopup.close()]);
  });

  it('[CALLS] a video call connects: the remote video has a size, the camera toggle works; screen at 900×700 and 375 px', async () => {
    const callerPopup = await call(bob, OWNER_NAME, true);
    const calleePopup = await answer(alice, 'bob', true);
    await Promise.all([
      waitForCallState(callerPopup, 'connected'),
      waitForCallState(calleePopup, 'connected'),
    ]);
    await Promise.all([waitForAudio(callerPopup), waitForAudio(calleePopup)]);
    for (const popup of [callerPopup, calleePopup]) {
      await expect
        .poll(() => popup.getByTestId('remote-video').evaluate((v: HTMLVideoElement) => v.videoWidth), {
          timeout: 15_000,
        })
        .toBeGreaterThan(0);
      expect(
        await popup.getByTestId('local-video').evaluate((v: HTMLVideoElement) => v.videoWidth),
      ).toBeGreaterThan(0);
    }
    await callerPopup.setViewportSize({ width: 900, height: 700 });
    await callerPopup.waitForTimeout(500);
    await screenshot(callerPopup, 'calls-video-900x700');
    await calleePopup.getByRole('button', { name: 'Couper la caméra' }).click();
    expect(await localTrackEnabled(calleePopup, 'video')).toEqual([false]);
    await calleePopup.getByText('Caméra coupée').waitFor();
    await calleePopup.getByRole('button', { name: 'Réactiver la caméra' }).click();
    expect(await localTrackEnabled(calleePopup, 'video')).toEqual([true]);

    await callerPopup.setViewportSize({ width: 375, height: 700 });
    await callerPopup.waitForTimeout(500);
    await screenshot(callerPopup, 'calls-video-375');

    await hangUpBoth(calleePopup, callerPopup);
    await callerPopup.getByText(`${OWNER_NAME} a raccroché`).waitFor();
    await Promise.all([callerPopup.close(), calleePopup.close()]);
  });

  it('[CALLS] a rejected call ends and closes the caller’s screen; a cancelled one stops the ringing', async () => {
    // Rejection.
    let callerPopup = await call(alice, 'bob');
    const card = incomingCard(bob, OWNER_NAME);
    await card.waitFor({ timeout: 15_000 });
    const rejectedAt = Date.now();
    await card.getByRole('button', { name: 'Refuser' }).click();
    await waitForCallState(callerPopup, 'ended', 2000);
    expect(Date.now() - rejectedAt).toBeLessThan(2500);
    await callerPopup.getByText('bob a refusé l’appel').waitFor();
    await screenshot(callerPopup, 'calls-rejected');
    expect(await card.count()).toBe(0);
    expect(await bob.getByTestId('call-ringtone').count()).toBe(0);
    // The screen closes by itself (spec 2 §4).
    await callerPopup.waitForEvent('close', { timeout: 6000 });

    // Cancellation: the caller closes its popup before an answer (the room checks every 500 ms).
    callerPopup = await call(alice, 'bob');
    await incomingCard(bob, OWNER_NAME).waitFor({ timeout: 15_000 });
    const closedAt = Date.now();
    await callerPopup.close();
    await incomingCard(bob, OWNER_NAME).waitFor({ state: 'detached', timeout: 2000 });
    expect(Date.now() - closedAt).toBeLessThan(2500);
    expect(await bob.getByTestId('call-ringtone').count()).toBe(0);

    // Both are free again: a new call rings at once.
    callerPopup = await call(alice, 'bob');
    await incomingCard(bob, OWNER_NAME).waitFor({ timeout: 15_000 });
    await callerPopup.getByRole('button', { name: 'Raccrocher' }).click();
    await incomingCard(bob, OWNER_NAME).waitFor({ state: 'detached', timeout: 2000 });
    await callerPopup.close();
  });

  it('[CALLS] under voiceAdminOnly a plain member has no call button and the server refuses its forced call', async () => {
    const saved = await api<{ success: boolean }>(
      suite.server.url,
      'PUT',
      '/api/customer/rings.php',
      { ring_id: ringId, voice_admin_only: true },
      customerToken,
    );
    expect(saved.success).toBe(true);
    // Live: the member's call actions go (from the open menu), the owner's stay.
    await (
      await openMemberMenu(bob, OWNER_NAME)
    )
      .getByRole('menuitem', { name: `Appel vocal avec ${OWNER_NAME}` })
      .waitFor({ state: 'detached', timeout: 10_000 });
    await closeMemberMenu(bob, OWNER_NAME);
    for (const name of [OWNER_NAME, 'carol'])
      expect(
        (await memberActions(bob, name)).filter((action) => /^Appel (vocal|vidéo) avec/.test(action)),
      ).toEqual([]);
    await (
      await openMemberMenu(alice, 'bob')
    )
      .getByRole('menuitem', { name: 'Appel vocal avec bob' })
      .waitFor();
    await closeMemberMenu(alice, 'bob');

    const bobSocket = await memberSocket(logins.bob.token);
    const forced = await bobSocket.emitWithAck('call_invite', {
      ringId,
      toUserId: logins.owner.user.id,
      audioOnly: true,
    });
    expect(forced).toEqual({ ok: false, error: CALL_MESSAGES.adminOnly });
    expect(await incomingCard(alice, 'bob').count()).toBe(0);

    // The owner still calls.
    const callerPopup = await call(alice, 'bob');
    await incomingCard(bob, OWNER_NAME).waitFor({ timeout: 15_000 });
    await callerPopup.getByRole('button', { name: 'Raccrocher' }).click();
    await incomingCard(bob, OWNER_NAME).waitFor({ state: 'detached', timeout: 2000 });
    await callerPopup.close();

    await api(
      suite.server.url,
      'PUT',
      '/api/customer/rings.php',
      { ring_id: ringId, voice_admin_only: false },
      customerToken,
    );
    await (
      await openMemberMenu(bob, OWNER_NAME)
    )
      .getByRole('menuitem', { name: `Appel vocal avec ${OWNER_NAME}` })
      .waitFor();
    await closeMemberMenu(bob, OWNER_NAME);
  });

  it.skipIf(!isTurnServerAvailable())(
    '[CALLS] a relay-only call connects through coturn (TURN credentials from call-config)',
    async () => {
      await Promise.all([setKnob(alice, KNOBS.relay, true), setKnob(bob, KNOBS.relay, true)]);
      try {
        const callerPopup = await call(alice, 'bob');
        const calleePopup = await answer(bob, OWNER_NAME);
        try {
          await Promise.all([
            waitForCallState(callerPopup, 'connected'),
            waitForCallState(calleePopup, 'connected'),
          ]);
        } catch (error) {
          // What the browsers and coturn saw, for a run where the relay never came up.
          for (const [who, popup] of [
            ['caller', callerPopup],
            ['callee', calleePopup],
          ] as const)
            console.log(`[CALLS] ${who}: states ${String(await statesOf(popup))}\n${await iceReport(popup)}`);
          console.log(`[CALLS] coturn log (end):\n${turn!.log().split('\n').slice(-80).join('\n')}`);
          throw error;
        }
        await Promise.all([waitForAudio(callerPopup), waitForAudio(calleePopup)]);
        for (const popup of [callerPopup, calleePopup]) {
          const stats = await mediaStats(popup);
          // Both sides send through a relay allocated on this test's coturn.
          expect(stats?.pair).toMatchObject({ local: 'relay', remote: 'relay' });
          expect(stats?.pair.localUrl).toContain(`127.0.0.1:${turn!.port}`);
        }
        await hangUpBoth(callerPopup, calleePopup);
        await Promise.all([callerPopup.close(), calleePopup.close()]);
      } finally {
        await Promise.all([setKnob(alice, KNOBS.relay, false), setKnob(bob, KNOBS.relay, false)]);
      }
    },
  );

  it('[CALLS] a tampered SDP signature is refused: the call ends with the French message and never connects', async () => {
    await setKnob(bob, KNOBS.tamper, true);
    try {
      const callerPopup = await call(alice, 'bob');
      const calleePopup = await answer(bob, OWNER_NAME);
      await waitForCallState(callerPopup, 'ended', 20_000);
      await callerPopup
        .getByText(
          'Appel interrompu\u202f: la signature de sécurité de bob est invalide. La connexion pourrait être interceptée.',
        )
        .waitFor();
      await callerPopup.getByText('Signature de sécurité refusée').waitFor();
      await waitForCallState(calleePopup, 'ended', 5000);
      await screenshot(callerPopup, 'calls-signature-refused');
      for (const popup of [callerPopup, calleePopup]) {
        expect(await statesOf(popup)).not.toContain('connected');
        expect(await popup.getByTestId('call-timer').count()).toBe(0);
      }
      expect(await callerPopup.getByText('Appel chiffré de bout en bout').count()).toBe(0);
      await Promise.all([callerPopup.close(), calleePopup.close()]);
    } finally {
      await setKnob(bob, KNOBS.tamper, false);
    }
  });

  it('[CALLS] « Retour » during a call brings the room forward and the call goes on; the room offers « Revenir à l’appel »; the call is in the private conversation', async () => {
    const callerPopup = await call(alice, 'bob');
    await waitForCallState(callerPopup, 'outgoing');
    await callerPopup.getByText('En attente de réponse…').waitFor();
    const calleePopup = await answer(bob, OWNER_NAME);
    // Ringing, nothing was checked yet and nothing failed: no « non vérifiée » (issue 28).
    for (const popup of [callerPopup, calleePopup])
      expect(await popup.getByText('Sécurité de l’appel non vérifiée').count()).toBe(0);
    await Promise.all([
      waitForCallState(callerPopup, 'connected'),
      waitForCallState(calleePopup, 'connected'),
    ]);
    await callerPopup.getByText('Appel chiffré de bout en bout').waitFor();

    await callerPopup.getByRole('button', { name: 'Retour' }).click();
    // No silent hang-up: the popup stays, both sides stay connected, nobody asked anything.
    await callerPopup.waitForTimeout(1500);
    expect(callerPopup.isClosed()).toBe(false);
    for (const popup of [callerPopup, calleePopup]) {
      expect(await popup.locator('[data-call-state]').getAttribute('data-call-state')).toBe('connected');
      expect(await popup.getByRole('alertdialog').count()).toBe(0);
    }
    expect(await statesOf(callerPopup)).not.toContain('ended');
    // Both rooms say a call is going on and offer to go back to it.
    await alice.getByTestId('ongoing-call').getByText('Appel vocal avec bob en cours').waitFor();
    await bob.getByTestId('ongoing-call').getByText(`Appel vocal avec ${OWNER_NAME} en cours`).waitFor();
    await screenshot(alice, 'calls-room-ongoing-call');
    await alice.getByRole('button', { name: 'Revenir à l’appel' }).click();
    await waitForAudio(calleePopup);

    await calleePopup.waitForTimeout(1200);
    await hangUpBoth(callerPopup, calleePopup);
    await alice.getByTestId('ongoing-call').waitFor({ state: 'detached', timeout: 3000 });
    await bob.getByTestId('ongoing-call').waitFor({ state: 'detached', timeout: 3000 });
    // An ended call never claims its security failed.
    expect(await callerPopup.getByText('Sécurité de l’appel non vérifiée').count()).toBe(0);
    await Promise.all([callerPopup.close(), calleePopup.close()]);

    // « Appel vocal · N s » in the private conversation, on both sides, as an encrypted message.
    const bobDm = await openDm(bob, OWNER_NAME);
    const entry = bobDm.chat.getByTestId('call-notice').last();
    await expect.poll(() => entry.textContent(), { timeout: 10_000 }).toMatch(/^Appel vocal · \d+\u202fs/);
    const aliceDm = await openDm(alice, 'bob');
    await expect
      .poll(() => aliceDm.chat.getByTestId('call-notice').last().textContent(), { timeout: 10_000 })
      .toMatch(/^Appel vocal · \d+\u202fs/);
    await screenshot(bobDm.popup, 'calls-dm-timeline-answered');
    await Promise.all([bobDm.popup.close(), aliceDm.popup.close()]);
  });

  it('[CALLS] a camera turned off shows the avatar and « Caméra coupée » on both sides; muting is shown to the other side', async () => {
    const callerPopup = await call(bob, OWNER_NAME, true);
    const calleePopup = await answer(alice, 'bob', true);
    await Promise.all([
      waitForCallState(callerPopup, 'connected'),
      waitForCallState(calleePopup, 'connected'),
    ]);
    const remoteVideo = callerPopup.getByTestId('remote-video');
    await expect
      .poll(() => remoteVideo.evaluate((v: HTMLVideoElement) => v.videoWidth), { timeout: 15_000 })
      .toBeGreaterThan(0);
    expect(await callerPopup.getByTestId('peer-camera-off').count()).toBe(0);

    await calleePopup.getByRole('button', { name: 'Couper la caméra' }).click();
    // Her own preview: her avatar and « Caméra coupée »; bob's screen: her avatar instead of a black picture.
    await calleePopup.getByText('Caméra coupée').waitFor();
    await callerPopup.getByTestId('peer-camera-off').getByText('Caméra coupée').waitFor({ timeout: 5000 });
    await expect.poll(() => remoteVideo.isVisible()).toBe(false);
    await callerPopup.getByText(OWNER_NAME, { exact: true }).waitFor();

    await calleePopup.getByRole('button', { name: 'Couper le micro' }).click();
    await callerPopup
      .getByTestId('peer-muted')
      .getByText(`${OWNER_NAME} a coupé son micro`)
      .waitFor({ timeout: 5000 });
    await callerPopup.setViewportSize({ width: 900, height: 700 });
    await screenshot(callerPopup, 'calls-peer-camera-off-muted');

    await calleePopup.getByRole('button', { name: 'Réactiver le micro' }).click();
    await callerPopup.getByTestId('peer-muted').waitFor({ state: 'detached', timeout: 5000 });
    await calleePopup.getByRole('button', { name: 'Réactiver la caméra' }).click();
    await callerPopup.getByTestId('peer-camera-off').waitFor({ state: 'detached', timeout: 5000 });
    await expect.poll(() => remoteVideo.isVisible()).toBe(true);

    await hangUpBoth(callerPopup, calleePopup);
    await Promise.all([callerPopup.close(), calleePopup.close()]);
  });

  it('[CALLS] an unanswered call leaves « Appel manqué » for the callee, in the room and in the private conversation', async () => {
    const callerPopup = await call(alice, 'bob');
    await incomingCard(bob, OWNER_NAME).waitFor({ timeout: 15_000 });
    // Ringing: nothing is being checked, so no security claim either way (issue 28).
    expect(await callerPopup.getByTestId('call-security').count()).toBe(0);
    await callerPopup.getByRole('button', { name: 'Raccrocher' }).click();
    await incomingCard(bob, OWNER_NAME).waitFor({ state: 'detached', timeout: 3000 });
    // Ended before any check: that is no failed verification.
    await waitForCallState(callerPopup, 'ended');
    expect(await callerPopup.getByText('Sécurité de l’appel non vérifiée').count()).toBe(0);
    await bob.getByText(`Appel manqué de ${OWNER_NAME}`).first().waitFor({ timeout: 5000 });
    await callerPopup.close();

    const bobDm = await openDm(bob, OWNER_NAME);
    // The latest entry (earlier tests' unanswered calls left theirs too).
    await expect
      .poll(() => bobDm.chat.getByTestId('call-notice').last().textContent(), { timeout: 10_000 })
      .toMatch(new RegExp(`^Appel manqué de ${OWNER_NAME}`));
    await screenshot(bobDm.popup, 'calls-dm-timeline-missed');
    const aliceDm = await openDm(alice, 'bob');
    await expect
      .poll(() => aliceDm.chat.getByTestId('call-notice').last().textContent(), { timeout: 10_000 })
      .toMatch(/^Appel vocal sans réponse/);
    // The entry is an ordinary message of the conversation: its text never left the browsers in clear.
    const stored = await api<{ messages: Array<{ content: string }> }>(
      suite.server.url,
      'GET',
      `/api/messages/get.php?conversation_id=${encodeURIComponent(new URL(bobDm.popup.url()).searchParams.get('convId')!)}`,
      undefined,
      logins.bob.token,
    );
    expect(stored.messages.length).toBeGreaterThan(0);
    for (const message of stored.messages) {
      expect(message.content).not.toContain('missed');
      expect(message.content).not.toContain('Appel');
    }

    // A video call nobody answers: the server ends it after 30 s; the entry reaches the open
    // conversation live, on both sides.
    const before = await bobDm.chat.getByTestId('call-notice').count();
    const unanswered = await call(alice, 'bob', true);
    await incomingCard(bob, OWNER_NAME, true).waitFor({ timeout: 15_000 });
    await unanswered.getByText('bob n’a pas répondu').waitFor({ timeout: 40_000 });
    await incomingCard(bob, OWNER_NAME, true).waitFor({ state: 'detached', timeout: 3000 });
    await bob.getByText(`Appel manqué de ${OWNER_NAME}`).first().waitFor({ timeout: 5000 });
    await expect
      .poll(() => bobDm.chat.getByTestId('call-notice').count(), { timeout: 10_000 })
      .toBe(before + 1);
    expect(await bobDm.chat.getByTestId('call-notice').last().textContent()).toMatch(
      new RegExp(`^Appel manqué de ${OWNER_NAME}`),
    );
    await expect
      .poll(() => aliceDm.chat.getByTestId('call-notice').last().textContent(), { timeout: 10_000 })
      .toMatch(/^Appel vidéo sans réponse/);
    await Promise.all([bobDm.popup.close(), aliceDm.popup.close(), unanswered.close()]);
  });

  it('[CALLS] a call screen opened on its own asks before « Retour » hangs up', async () => {
    const callerPopup = await call(alice, 'bob');
    await incomingCard(bob, OWNER_NAME).waitFor({ timeout: 15_000 });
    // Bob answers from a tab of his own (no room opened it): leaving that page would end the call.
    const callUrl = new URL(callerPopup.url());
    const query = new URLSearchParams({
      voice: '1',
      peerId: logins.owner.user.id,
      peerName: OWNER_NAME,
      audioOnly: '1',
      incoming: '1',
      callId: callUrl.searchParams.get('callId')!,
      ringId,
    });
    const own = await bob.context().newPage();
    errors.push(trackPageErrors(own));
    popups.push(own);
    await own.goto(`${suite.server.url}/ring?${query.toString()}`);
    const unlock = own.getByRole('dialog', { name: 'Phrase secrète' });
    await unlock.waitFor({ timeout: 15_000 });
    await unlock.getByLabel('Phrase secrète', { exact: true }).fill(PHRASES.bob);
    await unlock.getByRole('button', { name: 'Déverrouiller' }).click();
    await own.getByRole('button', { name: 'Accepter' }).click({ timeout: 15_000 });
    await Promise.all([waitForCallState(callerPopup, 'connected'), waitForCallState(own, 'connected')]);

    await own.getByRole('button', { name: 'Retour' }).click();
    const ask = own.getByRole('alertdialog', { name: 'Quitter l’appel\u202f?' });
    await ask.waitFor();
    await screenshot(own, 'calls-leave-confirm');
    await ask.getByRole('button', { name: 'Rester dans l’appel' }).click();
    await ask.waitFor({ state: 'detached' });
    await own.waitForTimeout(500);
    expect(await own.locator('[data-call-state]').getAttribute('data-call-state')).toBe('connected');
    expect(await callerPopup.locator('[data-call-state]').getAttribute('data-call-state')).toBe('connected');

    await own.getByRole('button', { name: 'Retour' }).click();
    await ask.getByRole('button', { name: 'Raccrocher et revenir au Ring' }).click();
    await waitForCallState(callerPopup, 'ended', 3000);
    await callerPopup.getByText('bob a raccroché').waitFor();
    await own.waitForURL((url) => url.pathname === '/ring' && !url.searchParams.has('voice'));
    await Promise.all([callerPopup.close(), own.close()]);
  });

  it('[CALLS] the pages ran without errors', () => {
    expect(errors.flat()).toEqual([]);
  });
});
