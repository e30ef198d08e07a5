import type { ReadingMark } from './reading-marks';

/**
 * A date separator and/or the « Nouveaux messages » line before a message (issue 29): the day
 * first, as it heads everything below it.
 */
export function ReadingMarkLine({ mark }: { mark: ReadingMark | undefined }) {
  if (!mark) return null;
  return (
    <>
      {mark.day ? (
        <p role="separator" aria-label={mark.day} data-testid="day-separator" className="flex justify-center">
          <span className="rounded-full bg-slate-100 px-3 py-0.5 text-xs font-medium text-slate-600">
            {mark.day}
          </span>
        </p>
      ) : null}
      {mark.firstUnread ? (
        <p
          role="separator"
          aria-label="Nouveaux messages"
          data-testid="new-messages-line"
          className="flex items-center gap-2 text-xs font-medium text-primary before:h-px before:flex-1 before:bg-primary/40 after:h-px after:flex-1 after:bg-primary/40"
        >
          Nouveaux messages
        </p>
      ) : null}
    </>
  );
}
