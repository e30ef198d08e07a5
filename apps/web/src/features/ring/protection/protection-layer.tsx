import type { TScreenProtection } from '@securering/contract';
import { EyeOff } from 'lucide-react';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { logToServer } from '@/lib/client-log';
import { cn } from '@/lib/utils';
import { activeDisplayCaptures, usedHeapBytes, watchDisplayCapture } from './display-capture';
import {
  BLUR_GRACE_MS,
  CAPTURE_OVERLAY_MS,
  DEVTOOLS_CHECK_MS,
  FOCUS_CHECK_MS,
  HIDDEN_TEXT,
  blockedShortcut,
  devtoolsLikelyOpen,
  hiddenReason,
  memoryAboveWarning,
  protectionBehaviours,
  recordingCheckOffsets,
  watermarkText,
  windowInactive,
} from './protection-policy';
import { onSiblingFocus } from './window-focus';

/** Security events are logged at most this often (a held key repeats). */
const LOG_EVERY_MS = 10_000;
const WATERMARK_TILES = 160;

/** Is the event's target a place where typing and selecting must keep working? */
function isEditable(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement)
  );
}

/**
 * A drag inside the room that carries no content: a file row moved onto a folder (issue 28,
 * `data-internal-drag`), whose drag data is only the file id under a private type.
 */
function isInternalDrag(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('[data-internal-drag]') !== null;
}

/**
 * The Ring's anti-capture protection (spec 2 §4, §9), applied live from its settings: capture
 * shortcuts blocked with the content hidden for 3 s, the content hidden while the tab is hidden
 * and, at maximum, while the window has lost focus to anything but a popup of the Ring, the devtools
 * heuristic (maximum, zoom-aware), no context menu, no selection or drag at
 * standard and maximum, a watermark with the viewer's name and the date at standard and maximum,
 * and, with the experimental features, the detection of a screen capture started by this page.
 * It deters and marks; it cannot prevent a screenshot.
 */
export function ProtectionLayer({
  settings,
  viewerName,
  memberId,
  children,
  className,
  contentClassName,
}: {
  settings: TScreenProtection;
  viewerName: string;
  memberId: string;
  children: ReactNode;
  className?: string;
  /** Layout of the wrapper around the children (it is the one hidden). */
  contentClassName?: string;
}) {
  const b = protectionBehaviours(settings);
  const [capturing, setCapturing] = useState(false);
  const [inactive, setInactive] = useState(false);
  const [devtools, setDevtools] = useState(false);
  const [recording, setRecording] = useState(false);
  const lastLog = useRef(0);

  const report = useRef((message: string, details: Record<string, unknown>) => {
    const now = Date.now();
    if (now - lastLog.current < LOG_EVERY_MS) return;
    lastLog.current = now;
    logToServer('warning', 'security', message, details, memberId);
  });

  // Capture shortcuts: blocked, content hidden for 3 s.
  useEffect(() => {
    if (!b.blockShortcuts) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onKey = (event: KeyboardEvent) => {
      const kind = blockedShortcut(event);
      if (!kind) return;
      event.preventDefault();
      event.stopPropagation();
      setCapturing(true);
      clearTimeout(timer);
      timer = setTimeout(() => setCapturing(false), CAPTURE_OVERLAY_MS);
      if (event.type === 'keydown' || kind === 'capture')
        report.current('Raccourci de capture bloqué', { kind });
    };
    window.addEventListener('keydown', onKey, true);
    // PrintScreen often reaches pages only as a keyup.
    window.addEventListener('keyup', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('keyup', onKey, true);
      clearTimeout(timer);
      setCapturing(false);
    };
  }, [b.blockShortcuts]);

  // Context menu.
  useEffect(() => {
    if (!b.blockContextMenu) return;
    const block = (event: MouseEvent) => {
      if (!isEditable(event.target)) event.preventDefault();
    };
    document.addEventListener('contextmenu', block);
    return () => document.removeEventListener('contextmenu', block);
  }, [b.blockContextMenu]);

  // Hidden while the tab is hidden; at maximum also once the window lost focus (after a short grace,
  // and not while a DM or call popup of the Ring has it), focus being polled every second.
  useEffect(() => {
    const rules = { hideWhenHidden: b.hideWhenHidden, hideOnBlur: b.hideOnBlur };
    if (!rules.hideWhenHidden && !rules.hideOnBlur) return;
    let focused = true;
    let siblingFocusAt = 0;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const update = () =>
      setInactive(
        windowInactive(rules, {
          hidden: document.visibilityState === 'hidden',
          focused,
          siblingFocusAt,
          now: Date.now(),
        }),
      );
    const onBlur = () => {
      focused = false;
      clearTimeout(grace);
      grace = setTimeout(update, BLUR_GRACE_MS);
    };
    const onFocus = () => {
      focused = true;
      update();
    };
    document.addEventListener('visibilitychange', update);
    window.addEventListener('blur', onBlur);
    window.addEventListener('focus', onFocus);
    const stopSibling = rules.hideOnBlur
      ? onSiblingFocus((at) => {
          siblingFocusAt = at;
          update();
        })
      : undefined;
    const poll = b.monitorFocus
      ? setInterval(() => {
          focused = document.hasFocus();
          update();
        }, FOCUS_CHECK_MS)
      : undefined;
    return () => {
      document.removeEventListener('visibilitychange', update);
      window.removeEventListener('blur', onBlur);
      window.removeEventListener('focus', onFocus);
      stopSibling?.();
      clearTimeout(grace);
      clearInterval(poll);
      setInactive(false);
    };
  }, [b.hideWhenHidden, b.hideOnBlur, b.monitorFocus]);

  // Devtools heuristic, every 500 ms.
  useEffect(() => {
    if (!b.detectDevtools) return;
    const check = () => {
      const open = devtoolsLikelyOpen(window);
      setDevtools(open);
      if (open) report.current('Outils de développement probablement ouverts', {});
    };
    check();
    const timer = setInterval(check, DEVTOOLS_CHECK_MS);
    return () => {
      clearInterval(timer);
      setDevtools(false);
    };
  }, [b.detectDevtools]);

  // Experimental: a screen capture started by this page (at once, and in the spec's checks: at most
  // 3 every 5 s for 60 s), and the page memory warning.
  useEffect(() => {
    if (!b.detectRecording) return;
    let warned = false;
    const check = () => {
      const active = activeDisplayCaptures() > 0;
      setRecording(active);
      if (active) report.current('Partage d’écran lancé depuis la page du Ring', {});
      const heap = usedHeapBytes();
      if (!warned && memoryAboveWarning(heap)) {
        warned = true;
        logToServer('warning', 'security', 'Mémoire de la page élevée', { bytes: heap }, memberId);
      }
    };
    const stop = watchDisplayCapture(check);
    const timers = recordingCheckOffsets().map((offset) => setTimeout(check, offset));
    return () => {
      stop();
      timers.forEach(clearTimeout);
      setRecording(false);
    };
  }, [b.detectRecording, memberId]);

  const reason = b.active
    ? hiddenReason({ captureUntil: capturing ? Infinity : 0, now: 0, devtools, inactive, recording })
    : null;

  return (
    <div
      className={cn('relative', b.blockSelection && 'select-none', className)}
      data-protection-level={settings.level}
      onDragStart={
        b.blockDrag
          ? (event) => !isEditable(event.target) && !isInternalDrag(event.target) && event.preventDefault()
          : undefined
      }
      onCopy={b.blockSelection ? (event) => !isEditable(event.target) && event.preventDefault() : undefined}
    >
      <div className={cn(contentClassName, reason && 'invisible')} aria-hidden={reason ? true : undefined}>
        {children}
      </div>
      {b.watermark && !reason ? <Watermark name={viewerName} /> : null}
      {reason ? (
        <div
          role="status"
          data-testid="protection-overlay"
          data-reason={reason}
          className="absolute inset-0 z-30 flex min-h-48 flex-col items-center justify-center gap-3 rounded-xl bg-slate-900 p-6 text-center text-white"
        >
          <EyeOff className="size-8" aria-hidden />
          <p className="max-w-sm text-sm">{HIDDEN_TEXT[reason]}</p>
        </div>
      ) : null}
    </div>
  );
}

/** The viewer's name and the date, tiled faintly over the content (refreshed every minute). */
function Watermark({ name }: { name: string }) {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const text = watermarkText(name, now);
  const tiles = useMemo(() => Array.from({ length: WATERMARK_TILES }, (_, i) => i), []);
  return (
    <div
      aria-hidden
      data-testid="watermark"
      data-text={text}
      className="pointer-events-none absolute inset-0 z-20 select-none overflow-hidden"
    >
      <div className="absolute -inset-1/2 flex -rotate-[24deg] flex-wrap content-start gap-x-16 gap-y-14 p-8">
        {tiles.map((i) => (
          <span key={i} className="whitespace-nowrap text-xs font-medium text-slate-900 opacity-[0.07]">
            {text}
          </span>
        ))}
      </div>
    </div>
  );
}
