import {
  MESSAGE_SOUNDS,
  RINGTONES,
  ZSaveNotificationSettingsRequest,
  type ZNotificationSettingsResponse,
} from '@securering/contract';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context';
import { parseInput } from '../../lib/app-error';
import { NotificationSettingsService } from './notification-settings.service';
import { notificationOwner, requireCustomerOrMember } from './notifications.guard';
import { messageSoundPattern, ringtonePattern, synthesizeWav } from './sound-synth';

type SettingsResponse = z.output<typeof ZNotificationSettingsResponse>;

export const SETTINGS_SAVED = 'Préférences de notification enregistrées';

const ZSoundQuery = z.object({ type: z.enum(MESSAGE_SOUNDS, { message: 'Type de son inconnu' }) });
const ZRingtoneQuery = z.object({
  tone: z.enum(RINGTONES, { message: 'Sonnerie inconnue' }),
  call: z.enum(['voice', 'video'], { message: "Type d'appel inconnu" }).default('voice'),
});

export async function notificationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new NotificationSettingsService(ctx);
  const guard = { preHandler: requireCustomerOrMember(ctx) };

  app.get('/api/notifications/get-settings.php', guard, async (request): Promise<SettingsResponse> => {
    return { success: true, settings: await service.get(notificationOwner(request)) };
  });

  app.put(
    '/api/notifications/save-settings.php',
    guard,
    async (request): Promise<SettingsResponse & { message: string }> => {
      const { settings } = parseInput(ZSaveNotificationSettingsRequest, request.body);
      const saved = await service.save(notificationOwner(request), settings);
      return { success: true, settings: saved, message: SETTINGS_SAVED };
    },
  );

  // A handful of fixed sounds: each is synthesised on first request, then served from memory.
  const sounds = new Map<string, Buffer>();
  const sendWav = (reply: FastifyReply, key: string, build: () => Buffer) => {
    let wav = sounds.get(key);
    if (!wav) {
      wav = build();
      sounds.set(key, wav);
    }
    return reply
      .header('Content-Type', 'audio/wav')
      .header('Cache-Control', 'public, max-age=86400')
      .send(wav);
  };

  app.get('/api/notifications/sound.php', async (request, reply) => {
    const { type } = parseInput(ZSoundQuery, request.query);
    return sendWav(reply, `sound:${type}`, () => synthesizeWav(messageSoundPattern(type)));
  });

  app.get('/api/notifications/ringtone.php', async (request, reply) => {
    const { tone, call } = parseInput(ZRingtoneQuery, request.query);
    return sendWav(reply, `ringtone:${tone}:${call}`, () => synthesizeWav(ringtonePattern(tone, call)));
  });
}
