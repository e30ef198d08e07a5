import {
  DEFAULT_NOTIFICATION_SETTINGS,
  ZNotificationSettings,
  type TNotificationSettings,
} from '@securering/contract';
import type { AppContext } from '../../app-context';
import { newId } from '../../lib/ids';
import { NotificationSettingsRepository } from './notification-settings.repository';
import type { NotificationOwner } from './notifications.guard';

/**
 * Stored settings over the defaults, field by field: a field that is missing or no longer valid
 * (unreadable JSON, a removed ringtone…) takes its default instead of failing the whole read.
 */
export function parseStoredSettings(json: string | undefined): TNotificationSettings {
  let stored: unknown;
  try {
    stored = json === undefined ? undefined : JSON.parse(json);
  } catch {
    stored = undefined;
  }
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    return { ...DEFAULT_NOTIFICATION_SETTINGS };
  }
  const fields = ZNotificationSettings.shape;
  const valid = Object.fromEntries(
    Object.entries(stored).filter(
      ([key, value]) =>
        Object.hasOwn(fields, key) && fields[key as keyof typeof fields].safeParse(value).success,
    ),
  );
  return ZNotificationSettings.parse({ ...DEFAULT_NOTIFICATION_SETTINGS, ...valid });
}

/** Notification preferences of one customer or Ring member. */
export class NotificationSettingsService {
  private readonly repo: NotificationSettingsRepository;

  constructor(private readonly ctx: AppContext) {
    this.repo = new NotificationSettingsRepository(ctx.db);
  }

  async get(owner: NotificationOwner): Promise<TNotificationSettings> {
    const row = await this.repo.find(owner.type, owner.id);
    return parseStoredSettings(row?.settings);
  }

  /** Merges the given fields into the stored settings and returns the result. */
  async save(
    owner: NotificationOwner,
    changes: Partial<TNotificationSettings>,
  ): Promise<TNotificationSettings> {
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    const settings = ZNotificationSettings.parse({ ...(await this.get(owner)), ...defined });
    await this.repo.upsert({
      id: newId(),
      owner_type: owner.type,
      owner_id: owner.id,
      settings: JSON.stringify(settings),
      updated_at: this.ctx.clock.now().toISOString(),
    });
    return settings;
  }
}
