import type { EncryptionLevel, ProtectionLevel, RingMemberStatus } from '@securering/contract';

/** French labels of Ring settings, shared by the customer space and the Ring room. */
export const ENCRYPTION_LABELS: Record<EncryptionLevel, string> = {
  basic: 'Basic (AES-128)',
  standard: 'Standard (AES-256)',
  high: 'Élevé (AES-256, rotation renforcée)',
  military: 'Militaire (double AES)',
};

/** The short cipher shown on the room's badge. */
export const CIPHER_LABELS: Record<EncryptionLevel, string> = {
  basic: 'AES-128',
  standard: 'AES-256',
  high: 'AES-256 renforcé',
  military: 'Double AES',
};

export const PROTECTION_LABELS: Record<ProtectionLevel, string> = {
  disabled: 'Désactivée',
  basic: 'Basique',
  standard: 'Standard',
  maximum: 'Maximale',
};

export const MEMBER_STATUS_LABELS: Record<RingMemberStatus, string> = {
  active: 'Actif',
  invited: 'Invité',
  inactive: 'Inactif',
};
