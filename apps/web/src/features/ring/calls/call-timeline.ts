import { dmConversationId, type TCallEndReason, type TCallEvent } from '@securering/contract';
import { useEffect, useRef } from 'react';
import { createDm } from '../chat/chat-api';
import { useChat } from '../chat/chat-provider';
import { useRingEvent } from '../realtime/ring-socket';
import { isCallPopup } from './call-popups';
import { encodeCallNotice, outcomeOf } from './call-notice';
import type { CallParams } from './call-policy';

/** What a call popup posts to the room that opened it: the server took its invitation, or connected. */
const PROGRESS = 'securering:call-progress';

/**
 * Tells the room that opened this call popup how the call goes (best effort): `invited` once the
 * callee rings, `connected` once the media flows.
 */
export function announceCallProgress(
  callId: string,
  step: 'invited' | 'connected',
  self: Window = window,
): void {
  const opener = self.opener as Window | null;
  if (!opener) return;
  try {
    opener.postMessage({ type: PROGRESS, callId, step }, self.location.origin);
  } catch {
    // A foreign or closed opener: nothing to tell.
  }
}

interface Placed {
  params: CallParams;
  /** The server took the invitation (the callee's room rang). */
  invited: boolean;
  answeredAt: number | null;
  /** When the popup said the call connected (the length counts from then). */
  connectedAt: number | null;
}

/** The calls this room placed and that are not over yet, by call id. */
const placed = new Map<string, Placed>();

/** A call placed from this room's users panel (its popup was opened). */
export function trackPlacedCall(params: CallParams): void {
  placed.set(params.callId, { params, invited: false, answeredAt: null, connectedAt: null });
}

/** How many times a busy conversation (a message being sent) is tried again, 500 ms apart. */
const SEND_ATTEMPTS = 20;

type Writer = (call: Placed, reason: TCallEndReason, endedAt: number) => Promise<void>;
/** The room's writer (set while its call host is mounted). */
let writer: Writer | null = null;

/**
 * A call this room placed is over (an ending event, or its popup closed): its entry is written
 * once, if the server had taken the invitation.
 */
export function endPlacedCall(callId: string, reason: TCallEndReason): void {
  const call = placed.get(callId);
  if (!call) return;
  placed.delete(callId);
  if (!call.invited || !writer) return;
  writer(call, reason, Date.now()).catch(() => undefined);
}

/**
 * The caller's side of calls in the private conversation's timeline (issue 29): when a call this
 * room placed ends — missed, declined or answered — one call entry goes to the private
 * conversation with the callee as an ordinary encrypted, signed message (see call-notice.ts). Only
 * calls the server took are written (the popup says so); one entry per call.
 */
export function useCallTimeline(): void {
  const chat = useChat();
  const latestChat = useRef(chat);
  useEffect(() => {
    latestChat.current = chat;
  });

  useEffect(() => {
    const write: Writer = async (call, reason, endedAt) => {
      const { params } = call;
      const text = encodeCallNotice({
        callId: params.callId,
        video: !params.audioOnly,
        outcome: outcomeOf(reason, {
          answered: call.answeredAt !== null,
          connected: call.connectedAt !== null,
        }),
        durationSec: call.connectedAt === null ? 0 : (endedAt - call.connectedAt) / 1000,
      });
      const current = latestChat.current;
      const conversationId = await createDm(params.peerId);
      if (conversationId !== dmConversationId(current.info.user.id, params.peerId)) return;
      const feed = current.feed(conversationId);
      for (let attempt = 0; attempt < SEND_ATTEMPTS; attempt += 1) {
        if (feed.send(text, params.peerName, 'call_notice')) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    writer = write;
    return () => {
      if (writer === write) writer = null;
    };
  }, []);

  // The popup of a call this room placed says the server took its invitation, or it connected.
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== window.location.origin) return;
      const data = event.data as { type?: unknown; callId?: unknown; step?: unknown } | null;
      if (data?.type !== PROGRESS || typeof data.callId !== 'string') return;
      const call = placed.get(data.callId);
      if (!call || !isCallPopup(data.callId, event.source)) return;
      call.invited = true;
      if (data.step === 'connected' && call.connectedAt === null) call.connectedAt = Date.now();
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);

  useRingEvent('call_accept', (event: TCallEvent) => {
    const call = placed.get(event.callId);
    if (call && event.fromUserId === call.params.peerId && call.answeredAt === null) {
      call.invited = true;
      call.answeredAt = Date.now();
    }
  });
  const ended = (fallback: TCallEndReason) => (event: TCallEvent) => {
    const call = placed.get(event.callId);
    if (call && (event.fromUserId === call.params.peerId || event.toUserId === call.params.peerId))
      endPlacedCall(event.callId, event.reason ?? fallback);
  };
  useRingEvent('call_cancel', ended('cancelled'));
  useRingEvent('call_reject', ended('rejected'));
  useRingEvent('call_hangup', ended('hangup'));
}
