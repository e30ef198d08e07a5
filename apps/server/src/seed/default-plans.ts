import type { PlansTable } from '../db/schema';

const GIB = 1024 ** 3;

type PlanSeed = Omit<PlansTable, 'id' | 'created_at' | 'updated_at'>;

/**
 * The three Ring plans of spec 2: starter (chat, basic encryption, no file sharing), professional
 * (adds video, advanced encryption, file sharing), enterprise (everything, military-grade
 * encryption). The feature lines say only what the server allows (`fileSharingAllowed`).
 */
export const DEFAULT_PLANS: PlanSeed[] = [
  {
    slug: 'starter',
    name: 'Starter',
    price_cents: 990,
    video_option_cents: 490,
    max_users: 10,
    max_rings: 1,
    storage_bytes: 5 * GIB,
    support_level: 'email',
    features: JSON.stringify([
      'Chiffrement Standard',
      'Rings: 1',
      'Chat sécurisé',
      'Appels vocaux',
      'Espace disque: 5 Go',
    ]),
    features_chat: 1,
    features_voice: 1,
    features_video: 0,
    encryption_levels: JSON.stringify(['basic', 'standard']),
    ephemeral_allowed: 0,
    is_active: 1,
    popular: 0,
    sort_order: 1,
  },
  {
    slug: 'professional',
    name: 'Professional',
    price_cents: 2990,
    video_option_cents: 990,
    max_users: 50,
    max_rings: 3,
    storage_bytes: 50 * GIB,
    support_level: 'priority',
    features: JSON.stringify([
      'Chiffrement Élevé',
      'Rings: 3',
      'Chat sécurisé',
      'Messages éphémères',
      'Appels vocaux',
      'Partage de fichiers',
      'Espace disque: 50 Go',
      'Support prioritaire',
    ]),
    features_chat: 1,
    features_voice: 1,
    features_video: 0,
    encryption_levels: JSON.stringify(['basic', 'standard', 'high']),
    ephemeral_allowed: 1,
    is_active: 1,
    popular: 1,
    sort_order: 2,
  },
  {
    slug: 'enterprise',
    name: 'Enterprise',
    price_cents: 9900,
    video_option_cents: 0,
    max_users: -1,
    max_rings: -1,
    storage_bytes: 500 * GIB,
    support_level: 'dedicated',
    features: JSON.stringify([
      'Chiffrement Militaire',
      'Rings: Illimités',
      'Chat sécurisé',
      'Messages éphémères',
      'Appels vocaux',
      'Visioconférence',
      'Partage de fichiers',
      'Espace disque: 500 Go',
      'Journal d’audit',
      'Tableau de bord analytique',
      'Support prioritaire',
    ]),
    features_chat: 1,
    features_voice: 1,
    features_video: 1,
    encryption_levels: JSON.stringify(['basic', 'standard', 'high', 'military']),
    ephemeral_allowed: 1,
    is_active: 1,
    popular: 0,
    sort_order: 3,
  },
];
