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
/** Focus lost: masked after this grace, unless another window of the Ring (a DM or call popup) took it. */
export const BLUR_GRACE_MS = 250;
/** A Ring popup's focus heartbeat (sent every FOCUS_CHECK_MS) counts for this long. */
export const SIBLING_FOCUS_TTL_MS = 2500;
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
  /** Maximum only (issue 29): no text selection (chat text offers « Copier » instead). */
  blockSelection: boolean;
  /** Standard and maximum: no drag. */
  blockDrag: boolean;
  /** Content hidden while the tab is hidden (visibility switch, any active level). */
  hideWhenHidden: boolean;
  /** Maximum only (issue 28): content hidden while the window has lost focus to another app. */
  hideOnBlur: boolean;
  /** Maximum only (issue 28): content hidden while the window looks like it has devtools docked. */
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
  hideWhenHidden: false,
  hideOnBlur: false,
  detectDevtools: false,
  watermark: false,
  monitorFocus: false,
  detectRecording: false,
};

const STRONG: ReadonlySet<ProtectionLevel> = new Set(['standard', 'maximum']);

/**
 * The behaviours of a Ring's level and switches. Level disabled turns everything off (its switches
 * are off too); every other level blocks the capture shortcuts and the context menu; standard and
 * maximum also block drag and tile the watermark, maximum blocks text selection (issue 29); the visibility switch hides the
 * content while the tab is hidden. Focus-loss masking and the devtools size heuristic belong to the
 * strict level (maximum) only (issue 28: at standard they blacked out the chat when a popup of the
 * Ring took focus, or at 125 % zoom); recording detection needs the experimental features too.
 */
export function protectionBehaviours(settings: TScreenProtection): ProtectionBehaviours {
  if (settings.level === 'disabled') return NONE;
  const strong = STRONG.has(settings.level);
  return {
    active: true,
    blockShortcuts: true,
    blockContextMenu: true,
    blockSelection: settings.level === 'maximum',
    blockDrag: strong,
    hideWhenHidden: settings.enableVisibilityProtection,
    hideOnBlur: settings.enableVisibilityProtection && settings.level === 'maximum',
    detectDevtools: settings.enableDevToolsProtection && settings.level === 'maximum',
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
 * size by more than 160 px. Page zoom shrinks the inner size (in CSS px) too, in both directions at
 * once, so the inner size is first scaled by the zoom: the smallest of the width ratio, the height
 * ratio and `devicePixelRatio`, each of which is at least the zoom (borders, toolbars and screen
 * scale only add to them), while a docked panel inflates only one ratio. Undocked devtools or
 * browser side panels still escape it: it is a deterrent, not a detector. Zero sizes never count.
 */
export function devtoolsLikelyOpen(size: {
  outerWidth: number;
  innerWidth: number;
  outerHeight: number;
  innerHeight: number;
  devicePixelRatio?: number;
}): boolean {
  if (size.outerWidth <= 0 || size.outerHeight <= 0 || size.innerWidth <= 0 || size.innerHeight <= 0)
    return false;
  const dpr = size.devicePixelRatio && size.devicePixelRatio > 0 ? size.devicePixelRatio : Infinity;
  const zoom = Math.min(size.outerWidth / size.innerWidth, size.outerHeight / size.innerHeight, dpr);
  return (
    size.outerWidth - size.innerWidth * zoom > DEVTOOLS_GAP_PX ||
    size.outerHeight - size.innerHeight * zoom > DEVTOOLS_GAP_PX
  );
}

/**
 * Is the window "inactive" for the protection? Hidden tab (visibility switch); or, at maximum, the
 * window without focus while no other window of the Ring (its DM or call popup) said within
 * SIBLING_FOCUS_TTL_MS that it has the focus: focus moving to the product's own popups never masks.
 */
export function windowInactive(
  b: Pick<ProtectionBehaviours, 'hideWhenHidden' | 'hideOnBlur'>,
  state: { hidden: boolean; focused: boolean; siblingFocusAt: number; now: number },
): boolean {
  if (b.hideWhenHidden && state.hidden) return true;
  return b.hideOnBlur && !state.focused && state.now - state.siblingFocusAt > SIBLING_FOCUS_TTL_MS;
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
