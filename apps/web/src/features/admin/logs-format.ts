import {
  LOG_CATEGORY_LABELS,
  LOG_LEVEL_LABELS,
  type LogCategory,
  type TAdminLogEntry,
} from '@securering/contract';

/** "22/11/2026 10:00:05", in the browser's time zone. */
export function formatLogTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('fr-FR', {
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

export function categoryLabel(category: string): string {
  return LOG_CATEGORY_LABELS[category as LogCategory] ?? category;
}

/** Details as readable text: JSON indented, plain text as is. */
export function formatDetails(details: unknown): string {
  if (details === null || details === undefined || details === '') return '';
  if (typeof details === 'string') return details;
  try {
    return JSON.stringify(details, null, 2);
  } catch {
    return String(details);
  }
}

/** The text the copy button puts on the clipboard: one entry, every field labelled in French. */
export function logEntryToText(entry: TAdminLogEntry): string {
  const lines = [
    `[${formatLogTime(entry.created_at)}] ${LOG_LEVEL_LABELS[entry.level].toUpperCase()} ${categoryLabel(entry.category)} — ${entry.message}`,
    `Date (UTC)\u202f: ${entry.created_at}`,
    `Identifiant\u202f: ${entry.id}`,
  ];
  if (entry.ip_address) lines.push(`IP\u202f: ${entry.ip_address}`);
  if (entry.user_id)
    lines.push(
      `Utilisateur\u202f: ${entry.user_label ? `${entry.user_label} (${entry.user_id})` : entry.user_id}`,
    );
  if (entry.user_agent) lines.push(`Navigateur\u202f: ${entry.user_agent}`);
  const details = formatDetails(entry.details);
  if (details) lines.push(`Détails\u202f:\n${details}`);
  return lines.join('\n');
}
