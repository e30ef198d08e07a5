import {
  ENCRYPTION_LEVELS,
  centsToEuros,
  frenchTypography,
  parseFeatures,
  type EncryptionLevel,
  type TPublicPlan,
} from '@securering/contract';
import type { PlanRow } from './plan.repository';

const GIB = 1024 ** 3;

export function parseEncryptionLevels(json: string): EncryptionLevel[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? ENCRYPTION_LEVELS.filter((level) => parsed.includes(level)) : [];
}

/** Storage in GiB with 2 decimals (the API and the editor show Go, base 1024). */
export function storageGb(bytes: number): number {
  return Math.round((bytes / GIB) * 100) / 100;
}

/**
 * A plan as the site and /subscribe show it. The feature lines are the back office's text
 * ("Rings: 1"), given French typography for display ("Rings : 1" with U+202F).
 */
export function toPublicPlan(row: PlanRow): TPublicPlan {
  const active = row.is_active === 1;
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    price: centsToEuros(row.price_cents),
    video_option: centsToEuros(row.video_option_cents),
    max_users: row.max_users,
    max_rings: row.max_rings,
    storage_gb: storageGb(row.storage_bytes),
    support_level: row.support_level,
    features: parseFeatures(row.features).map(frenchTypography),
    features_chat: row.features_chat === 1,
    features_voice: row.features_voice === 1,
    features_video: row.features_video === 1,
    encryption_levels: parseEncryptionLevels(row.encryption_levels),
    ephemeral_allowed: row.ephemeral_allowed === 1,
    is_active: active,
    active,
    popular: row.popular === 1,
  };
}
