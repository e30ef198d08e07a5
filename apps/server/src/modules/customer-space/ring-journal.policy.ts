import type { EncryptionLevel, TRingJournalEntry } from '@securering/contract';
import type { RingJournalEventsTable } from '../../db/schema';

/**
 * The French sentences of « Journal du Ring » (issue 25), from what the server holds in clear: a
 * membership link's type, author, member ids and usernames, seq and time (never a signature or a
 * key), and the server's own records. Pure, so each wording is unit-tested.
 */

/** A stored membership link as the journal reads it. */
export interface JournalLinkRow {
  seq: number;
  type: string;
  author_member_id: string;
  link: string;
  created_at: string;
}

export type JournalEventRow = Pick<
  RingJournalEventsTable,
  'kind' | 'member_id' | 'member_username' | 'details' | 'created_at'
>;

const LEVEL_LABELS: Record<EncryptionLevel, string> = {
  basic: 'Basic (AES-128)',
  standard: 'Standard (AES-256)',
  high: 'Élevé',
  military: 'Militaire (double AES)',
};

/** Ring settings columns in the words of the « Paramètres Ring » tab. */
const SETTING_LABELS: Record<string, string> = {
  name: 'nom',
  encryption_level: 'niveau de chiffrement',
  ephemeral_messages: 'messages éphémères',
  auto_destroy_delay: 'délai d’autodestruction',
  allow_voice: 'appels vocaux',
  allow_video: 'vidéo',
  voice_admin_only: 'appels réservés aux administrateurs',
  max_file_size_mb: 'taille maximale des fichiers',
  share_history: 'partage de l’historique',
  screen_protection_level: 'protection anti-capture',
  screen_devtools_protection: 'protection anti-capture',
  screen_visibility_protection: 'protection anti-capture',
  screen_experimental_features: 'protection anti-capture',
  screen_recording_detection: 'protection anti-capture',
};

const UNKNOWN_MEMBER = 'un membre inconnu';

type Names = ReadonlyMap<string, string>;

function parseBody(link: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(link);
    const body = (parsed as { body?: unknown } | null)?.body;
    return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

function nameOf(names: Names, id: unknown, fallback?: unknown): string {
  return (typeof id === 'string' ? names.get(id) : undefined) ?? text(fallback) ?? UNKNOWN_MEMBER;
}

/** The sentence of one membership link; `names` maps member ids to the usernames the server knows. */
export function describeLink(row: JournalLinkRow, names: Names): string {
  const body = parseBody(row.link);
  const author = nameOf(names, row.author_member_id);
  const member = (body.member ?? {}) as { id?: unknown; username?: unknown };
  const target = nameOf(names, body.memberId ?? member.id, body.username ?? member.username);
  switch (row.type) {
    case 'genesis':
      return `${author} a ouvert le journal du Ring`;
    case 'admit':
      return body.role === 'admin'
        ? `${author} a admis ${target} comme administrateur`
        : `${author} a admis ${target}`;
    case 'refuse':
      return `${target} a été refusé par ${author}`;
    case 'deactivate':
      return `${author} a retiré ${target} du Ring`;
    case 'reactivate':
      return `${author} a réactivé ${target}`;
    case 'role':
      return body.role === 'admin'
        ? `${author} a nommé ${target} administrateur`
        : `${author} a nommé ${target} membre`;
    case 'key_change':
      return body.memberId === row.author_member_id
        ? `${target} a changé ses clés`
        : `${author} a enregistré de nouvelles clés pour ${target}`;
    case 'level': {
      const level = LEVEL_LABELS[body.level as EncryptionLevel];
      return level
        ? `Niveau de sécurité changé\u202f: ${level} (par ${author})`
        : `Niveau de sécurité changé (par ${author})`;
    }
    case 'reading': {
      const on = (value: unknown) => (value === true ? 'activés' : 'désactivés');
      return `Indicateurs de saisie ${on(body.typing)}, accusés de lecture ${on(body.receipts)} (par ${author})`;
    }
    default:
      return `Changement du journal signé par ${author}`;
  }
}

/** The settings a `settings_changed` entry names, in French, each once. */
export function settingLabels(fields: readonly string[]): string[] {
  return [...new Set(fields.map((field) => SETTING_LABELS[field] ?? field))];
}

function detailsFields(details: string | null): string[] {
  if (!details) return [];
  try {
    const fields = (JSON.parse(details) as { fields?: unknown }).fields;
    return Array.isArray(fields) ? fields.filter((f): f is string => typeof f === 'string') : [];
  } catch {
    return [];
  }
}

/** The sentence of one of the server's own records. */
export function describeEvent(row: JournalEventRow, names: Names): string {
  const member = nameOf(names, row.member_id, row.member_username);
  switch (row.kind) {
    case 'invitation_created':
      return `Invitation créée pour ${member}`;
    case 'invitation_accepted':
      return `${member} a rejoint le Ring (invitation acceptée)`;
    case 'invitation_removed':
      return `Invitation de ${member} supprimée`;
    case 'member_deactivated':
      return `${member} a été désactivé depuis l’espace client`;
    case 'member_reactivated':
      return `${member} a été réactivé depuis l’espace client`;
    case 'settings_changed': {
      const labels = settingLabels(detailsFields(row.details));
      return labels.length > 0 ? `Paramètres modifiés\u202f: ${labels.join(', ')}` : 'Paramètres modifiés';
    }
    default:
      return 'Événement du serveur';
  }
}

export function linkEntry(row: JournalLinkRow, names: Names): TRingJournalEntry {
  return { at: row.created_at, source: 'log', kind: row.type, seq: row.seq, text: describeLink(row, names) };
}

export function eventEntry(row: JournalEventRow, names: Names): TRingJournalEntry {
  return { at: row.created_at, source: 'server', kind: row.kind, seq: null, text: describeEvent(row, names) };
}

/**
 * Two lists each sorted newest first, merged newest first (on equal times, the log's later seq
 * first, then the log before the server), cut to `limit`.
 */
export function mergeNewestFirst(
  a: readonly TRingJournalEntry[],
  b: readonly TRingJournalEntry[],
  limit: number,
): TRingJournalEntry[] {
  const order = (x: TRingJournalEntry, y: TRingJournalEntry) =>
    y.at.localeCompare(x.at) || (y.seq ?? -1) - (x.seq ?? -1);
  return [...a, ...b].sort(order).slice(0, limit);
}
