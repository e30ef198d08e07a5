import type { ProtectionLevel, TScreenProtection } from '@securering/contract';

/**
 * Anti-capture protection (spec 2 §4, §9; issue 11) as pure rules: what each level and switch
 * turns on in the room. It deters casual capture and marks captures; no web page can stop a
 * screenshot, a screen recorder or a photo of the screen.
 */

/** Overlay after a capture shortcut (spec 2 §9). */
export const CAPTURE_OVERLAY_MS = 3000;
/** Devtools heuristic: window size differing by more than this, checked this often (spec 2 §9). */
export const DEVTOOLS_GAP_PX = 160;
export const DEVTOOLS_CHECK_MS = 500;
/** Continuous monitoring (focus) at level maximum. */
export const FOCUS_CHECK_MS = 1000;
/** Experimental recording detection: at most 3 checks every 5 s, for up to 60 s (spec 2 §9). */
export const RECORDING_CHECKS_PER_WINDOW = 3;
export const RECORDING_WINDOW_MS = 5000;
export const RECORDING_DURATION_MS = 60_000;
/** Page memory above which a warning is logged (spec 2 §9). */
export const MEMORY_WARNING_BYTES = 50_000_000;

/** What the room does for a Ring's protection settings. */
export interface ProtectionBehaviours {
  /** Any protection at all (level not disabled). */
  active: boolean;
  /** PrintScreen, platform screenshot shortcuts, F12, Ctrl+Shift+I, Ctrl+U: blocked, overlay 3 s. */
  blockShortcuts: boolean;
  blockContextMenu: boolean;
  /** Standard and maximum: no text selection, no drag. */
  blockSelection: boolean;
  blockDrag: boolean;
  /** Content hidden while the tab is hidden or the window has lost focus. */
  hideWhenInactive: boolean;
  /** Content hidden while the window looks like it has devtools docked. */
  detectDevtools: boolean;
  /** Beyond the spec, standard and maximum: the viewer's name and the date tiled over the chat. */
  watermark: boolean;
  /** Maximum: focus polled every second (catches focus loss no event reported). */
  monitorFocus: boolean;
  /** Experimental: screen capture started by this page, and page memory, checked for a while. */
  detectRecording: boolean;
}

const NONE: ProtectionBehaviours = {
  active: false,
  blockShortcuts: false,
  blockContextMenu: false,
  blockSelection: false,
  blockDrag: false,
  hideWhenInactive: false,
  detectDevtools: false,
  watermark: false,
  monitorFocus: false,
  detectRecording: false,
};

const STRONG: ReadonlySet<ProtectionLevel> = new Set(['standard', 'maximum']);

/**
 * The behaviours of a Ring's level and switches. Level disabled turns everything off (its switches
 * are off too); every other level blocks the capture shortcuts and the context menu; standard and
 * maximum also block selection and drag and tile the watermark; the switches add visibility and
 * devtools protection; recording detection needs the experimental features too.
 */
export function protectionBehaviours(settings: TScreenProtection): ProtectionBehaviours {
  if (settings.level === 'disabled') return NONE;
  const strong = STRONG.has(settings.level);
  return {
    active: true,
    blockShortcuts: true,
    blockContextMenu: true,
    blockSelection: strong,
    blockDrag: strong,
    hideWhenInactive: settings.enableVisibilityProtection,
    detectDevtools: settings.enableDevToolsProtection,
    watermark: strong,
    monitorFocus: settings.level === 'maximum',
    detectRecording: settings.enableExperimentalFeatures && settings.enableScreenRecordingDetection,
  };
}

/** The switches a level preset sets in the dashboard (spec 2 §4), for reference and tests. */
export function presetSwitches(level: ProtectionLevel): Omit<TScreenProtection, 'level'> {
  if (level === 'disabled')
    return {
      enableDevToolsProtection: false,
      enableVisibilityProtection: false,
      enableExperimentalFeatures: false,
      enableScreenRecordingDetection: false,
    };
  const all = level === 'maximum';
  return {
    enableDevToolsProtection: true,
    enableVisibilityProtection: true,
    enableExperimentalFeatures: all,
    enableScreenRecordingDetection: all,
  };
}

/** The part of a keyboard event the shortcut rule reads. */
export interface KeyInput {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/**
 * Which blocked shortcut a key press is (spec 2 §9): `capture` — PrintScreen, macOS
 * Cmd+Shift+3/4/5/6, Windows Win+Shift+S; `devtools` — F12, Ctrl/Cmd+Shift+I (and J, C), Cmd+Alt+I;
 * `source` — Ctrl/Cmd+U. Null for anything else.
 */
export function blockedShortcut(event: KeyInput): 'capture' | 'devtools' | 'source' | null {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const code = event.code ?? '';
  if (key === 'PrintScreen' || code === 'PrintScreen') return 'capture';
  if (event.metaKey && event.shiftKey && ['3', '4', '5', '6', '#', '$', '%', '^'].includes(key))
    return 'capture';
  if (event.metaKey && event.shiftKey && ['Digit3', 'Digit4', 'Digit5', 'Digit6'].includes(code))
    return 'capture';
  if (event.metaKey && event.shiftKey && key === 's') return 'capture';
  if (key === 'F12') return 'devtools';
  const mod = event.ctrlKey || event.metaKey;
  if (mod && event.shiftKey && ['i', 'j', 'c'].includes(key)) return 'devtools';
  if (event.metaKey && event.altKey && (key === 'i' || code === 'KeyI')) return 'devtools';
  if (mod && !event.shiftKey && !event.altKey && key === 'u') return 'source';
  return null;
}

/**
 * The devtools heuristic of the spec: a docked panel makes the window's outer size exceed its inner
 * size by more than 160 px. Undocked devtools, browser side panels or zoom make it unreliable both
 * ways: it is a deterrent, not a detector. Zero sizes (some embedded contexts) never count.
 */
export function devtoolsLikelyOpen(size: {
  outerWidth: number;
  innerWidth: number;
  outerHeight: number;
  innerHeight: number;
}): boolean {
  if (size.outerWidth <= 0 || size.outerHeight <= 0) return false;
  return (
    size.outerWidth - size.innerWidth > DEVTOOLS_GAP_PX ||
    size.outerHeight - size.innerHeight > DEVTOOLS_GAP_PX
  );
}

/**
 * When the experimental recording checks run, in ms after they start: at most 3 per 5 s window,
 * spread evenly, for up to 60 s (spec 2 §9).
 */
export function recordingCheckOffsets(
  durationMs = RECORDING_DURATION_MS,
  windowMs = RECORDING_WINDOW_MS,
  perWindow = RECORDING_CHECKS_PER_WINDOW,
): number[] {
  const step = Math.ceil(windowMs / perWindow);
  const offsets: number[] = [];
  for (let start = 0; start < durationMs; start += windowMs) {
    for (let i = 0; i < perWindow && start + i * step < Math.min(durationMs, start + windowMs); i++) {
      offsets.push(start + i * step);
    }
  }
  return offsets;
}

/** The spec's memory warning: more than 50,000,000 bytes of JavaScript heap. */
export function memoryAboveWarning(usedJsHeapBytes: number | undefined): boolean {
  return usedJsHeapBytes !== undefined && usedJsHeapBytes > MEMORY_WARNING_BYTES;
}

/** Why the content is hidden, in the overlay's words (null: shown). */
export type HiddenReason = 'capture' | 'devtools' | 'inactive' | 'recording' | null;

export const HIDDEN_TEXT: Record<Exclude<HiddenReason, null>, string> = {
  capture: 'Capture d’écran détectée\u202f: le contenu est masqué quelques secondes.',
  devtools: 'Outils de développement détectés\u202f: le contenu reste masqué tant qu’ils sont ouverts.',
  inactive: 'Contenu masqué tant que la fenêtre n’est pas au premier plan.',
  recording: 'Partage d’écran en cours depuis cette page\u202f: le contenu est masqué.',
};

/** The reason shown when several apply, most specific first. */
export function hiddenReason(state: {
  captureUntil: number;
  now: number;
  devtools: boolean;
  inactive: boolean;
  recording: boolean;
}): HiddenReason {
  if (state.recording) return 'recording';
  if (state.captureUntil > state.now) return 'capture';
  if (state.devtools) return 'devtools';
  if (state.inactive) return 'inactive';
  return null;
}

/** The watermark line: who is looking, and when ("claire · 24/11/2026 10:05"). */
export function watermarkText(username: string, date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${username} · ${pad(date.getDate())}/${pad(date.getMonth() + 1)}/${date.getFullYear()} ${pad(
    date.getHours(),
  )}:${pad(date.getMinutes())}`;
}
