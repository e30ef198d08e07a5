import { z } from 'zod';
import { successOf } from '../common';

/** `data[category][key].setting_value`, the shape every settings read answers. */
export const ZSettingsData = z.record(
  z.string(),
  z.record(z.string(), z.object({ setting_value: z.string() })),
);
export type TSettingsData = z.infer<typeof ZSettingsData>;

export const ZGetSettingsQuery = z.object({ category: z.string().trim().min(1).optional() });
export type TGetSettingsQuery = z.infer<typeof ZGetSettingsQuery>;

export const ZGetSettingsResponse = successOf({ data: ZSettingsData });
export type TGetSettingsResponse = z.infer<typeof ZGetSettingsResponse>;

/** POST /api/admin/settings.php: `{ category, settings: { key: value } }`. */
export const ZSaveSettingsRequest = z.object({
  category: z.string().trim().min(1, 'Catégorie requise'),
  settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});
export type TSaveSettingsRequest = z.infer<typeof ZSaveSettingsRequest>;

export const ZSaveSettingsResponse = successOf({ message: z.string() });
export type TSaveSettingsResponse = z.infer<typeof ZSaveSettingsResponse>;
