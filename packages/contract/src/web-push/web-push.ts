import { z } from 'zod';
import { successOf, zBoundedString } from '../common';

/**
 * Web Push (issue 29): notifications when the room's tab is closed. A member opts in per device;
 * the browser's push subscription (the push service's endpoint and the keys that encrypt to it) is
 * kept by the server, which asks the push service to wake the device when a message is stored for
 * one of the member's conversations and no socket of the member is connected. The payload names
 * no one and carries no content (TWebPushPayload): the device composes « Nouveau message dans
 * {Ring} » from what it already knows.
 */
export const WEB_PUSH_API_PATHS = {
  publicKey: '/api/push/public-key.php',
  subscribe: '/api/push/subscribe.php',
  unsubscribe: '/api/push/unsubscribe.php',
} as const;

/** Devices (push subscriptions) one member may keep; a new one beyond this replaces the oldest. */
export const WEB_PUSH_MAX_SUBSCRIPTIONS = 5;

export const WEB_PUSH_MESSAGES = {
  invalidEndpoint: 'Adresse du service de notification invalide',
  untrustedEndpoint: 'Service de notification non reconnu',
  invalidKeys: 'Clés de notification invalides',
  subscribed: 'Notifications activées sur cet appareil',
  unsubscribed: 'Notifications désactivées sur cet appareil',
} as const;

/** Unpadded base64url, as PushSubscription.toJSON() gives the keys. */
const zBase64Url = (max: number) =>
  zBoundedString(max, WEB_PUSH_MESSAGES.invalidKeys).regex(/^[A-Za-z0-9_-]+$/, WEB_PUSH_MESSAGES.invalidKeys);

const zEndpoint = zBoundedString(1024, WEB_PUSH_MESSAGES.invalidEndpoint).url(
  WEB_PUSH_MESSAGES.invalidEndpoint,
);

/** GET public-key.php — the server's VAPID public key (applicationServerKey), base64url. */
export const ZWebPushPublicKeyResponse = successOf({ publicKey: z.string() });
export type TWebPushPublicKeyResponse = z.infer<typeof ZWebPushPublicKeyResponse>;

/** POST subscribe.php — PushSubscription.toJSON()'s endpoint and keys (p256dh: 65 bytes, auth: 16). */
export const ZWebPushSubscribeRequest = z.object({
  endpoint: zEndpoint,
  keys: z.object(
    {
      // 65 bytes → 87 characters; 16 bytes → 22 characters.
      p256dh: zBase64Url(128).length(87, WEB_PUSH_MESSAGES.invalidKeys),
      auth: zBase64Url(64).length(22, WEB_PUSH_MESSAGES.invalidKeys),
    },
    { message: WEB_PUSH_MESSAGES.invalidKeys },
  ),
});
export type TWebPushSubscribeRequest = z.infer<typeof ZWebPushSubscribeRequest>;
export const ZWebPushSubscribeResponse = successOf({ message: z.string() });

/** POST unsubscribe.php — forgets this device's subscription for the caller (idempotent). */
export const ZWebPushUnsubscribeRequest = z.object({ endpoint: zEndpoint });
export const ZWebPushUnsubscribeResponse = successOf({ message: z.string() });

/**
 * What the push service delivers, encrypted (aes128gcm) to the device: that a message arrived in a
 * conversation of the member, and in which Ring (a routing token the device maps to the name it
 * stored itself). No sender, no text, no conversation name.
 */
export const ZWebPushPayload = z.object({ t: z.literal('msg'), r: z.string().max(64) });
export type TWebPushPayload = z.infer<typeof ZWebPushPayload>;
