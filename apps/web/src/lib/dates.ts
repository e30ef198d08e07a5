import { format } from 'date-fns';
import { fr } from 'date-fns/locale';

export { formatRelative } from './relative-time';

/** "22 novembre 2027" */
export function formatDateLong(iso: string): string {
  return format(new Date(iso), 'd MMMM yyyy', { locale: fr });
}

/** "22/11/2026 18:30": French short date and time. */
export function formatDateTimeShort(iso: string): string {
  return format(new Date(iso), 'dd/MM/yyyy HH:mm', { locale: fr });
}
