import type { ProtectionLevel } from '../constants';
import { formatCount } from '../plans/money';

/** The four detail switches of the anti-capture protection (spec 2 §4). */
export interface ProtectionSwitches {
  devtools: boolean;
  visibility: boolean;
  experimental: boolean;
  recording: boolean;
}

/**
 * Presets: disabled turns everything off; basic and standard turn on devtools and visibility
 * protection only; maximum turns on all four.
 */
export function protectionPreset(level: ProtectionLevel): ProtectionSwitches {
  switch (level) {
    case 'disabled':
      return { devtools: false, visibility: false, experimental: false, recording: false };
    case 'basic':
    case 'standard':
      return { devtools: true, visibility: true, experimental: false, recording: false };
    case 'maximum':
      return { devtools: true, visibility: true, experimental: true, recording: true };
  }
}

/**
 * Applies the switch rules: nothing is on at level disabled, and recording detection needs the
 * experimental features.
 */
export function normaliseProtection(
  level: ProtectionLevel,
  switches: ProtectionSwitches,
): ProtectionSwitches {
  if (level === 'disabled') return protectionPreset('disabled');
  return { ...switches, recording: switches.experimental && switches.recording };
}

/** Auto-destroy delay in seconds: 10 to 86400, 300 when not a number (spec 2 §5). */
export const AUTO_DESTROY = { min: 10, max: 86_400, fallback: 300 } as const;

export function normaliseAutoDestroyDelay(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(String(value ?? '').trim());
  if (!Number.isFinite(n)) return AUTO_DESTROY.fallback;
  return Math.min(AUTO_DESTROY.max, Math.max(AUTO_DESTROY.min, Math.round(n)));
}

/** Ready-made self-destruct delays offered beside the field (issue 28). */
export const AUTO_DESTROY_PRESETS = [
  { label: '30\u00a0s', seconds: 30 },
  { label: '5\u00a0min', seconds: 300 },
  { label: '1\u00a0h', seconds: 3_600 },
  { label: '1\u00a0jour', seconds: 86_400 },
] as const;

/**
 * A count of seconds as French readers write it: « 86 400 s » (narrow no-break space between
 * thousands). formatCount writes the grouping out: a French Intl.NumberFormat made when this module
 * loads mapped about 4 MiB of ICU data into every process importing the contract, the server's included.
 */
export function formatSeconds(seconds: number): string {
  return `${formatCount(seconds)}\u00a0s`;
}

/** Max file size per upload, in MB (default 10). */
export const MAX_FILE_SIZE_MB = { min: 1, max: 2048, fallback: 10 } as const;
