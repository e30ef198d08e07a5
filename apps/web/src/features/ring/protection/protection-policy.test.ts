import { PROTECTION_LEVELS, type TScreenProtection } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import {
  blockedShortcut,
  devtoolsLikelyOpen,
  windowInactive,
  SIBLING_FOCUS_TTL_MS,
  hiddenReason,
  memoryAboveWarning,
  presetSwitches,
  protectionBehaviours,
  recordingCheckOffsets,
  watermarkText,
  type KeyInput,
} from './protection-policy';

const withPreset = (level: TScreenProtection['level']): TScreenProtection => ({
  level,
  ...presetSwitches(level),
});
const key = (k: string, mods: Partial<KeyInput> = {}): KeyInput => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('protection presets → behaviours (spec 2 §4, §9)', () => {
  it('disabled turns everything off', () => {
    const b = protectionBehaviours(withPreset('disabled'));
    expect(Object.values(b).every((v) => v === false)).toBe(true);
    // Even with switches left on, the level wins.
    expect(protectionBehaviours({ ...withPreset('maximum'), level: 'disabled' }).active).toBe(false);
  });

  it('basic: shortcuts, context menu, hidden tab; selection still allowed, no watermark', () => {
    expect(protectionBehaviours(withPreset('basic'))).toEqual({
      active: true,
      blockShortcuts: true,
      blockContextMenu: true,
      blockSelection: false,
      blockDrag: false,
      hideWhenHidden: true,
      hideOnBlur: false,
      detectDevtools: false,
      watermark: false,
      monitorFocus: false,
      detectRecording: false,
    });
  });

  it('standard adds no drag and the watermark (selection stays, issue 29); maximum adds no selection, focus monitoring and recording detection', () => {
    const standard = protectionBehaviours(withPreset('standard'));
    expect(standard).toMatchObject({
      blockSelection: false,
      blockDrag: true,
      watermark: true,
      detectRecording: false,
    });
    const maximum = protectionBehaviours(withPreset('maximum'));
    expect(maximum).toMatchObject({
      blockSelection: true,
      watermark: true,
      monitorFocus: true,
      detectRecording: true,
    });
  });

  it('issue 28: focus-loss masking and devtools detection belong to maximum only', () => {
    for (const level of ['basic', 'standard'] as const) {
      expect(protectionBehaviours(withPreset(level))).toMatchObject({
        hideWhenHidden: true,
        hideOnBlur: false,
        detectDevtools: false,
      });
    }
    expect(protectionBehaviours(withPreset('maximum'))).toMatchObject({
      hideWhenHidden: true,
      hideOnBlur: true,
      detectDevtools: true,
    });
    // Switches off at maximum: neither.
    expect(
      protectionBehaviours({
        ...withPreset('maximum'),
        enableVisibilityProtection: false,
        enableDevToolsProtection: false,
      }),
    ).toMatchObject({ hideWhenHidden: false, hideOnBlur: false, detectDevtools: false });
  });

  it('windowInactive: hidden tab masks; focus loss masks at maximum unless a Ring popup has the focus', () => {
    const standard = protectionBehaviours(withPreset('standard'));
    const maximum = protectionBehaviours(withPreset('maximum'));
    const base = { hidden: false, focused: true, siblingFocusAt: 0, now: 100_000 };
    expect(windowInactive(standard, { ...base, hidden: true })).toBe(true);
    expect(windowInactive(standard, { ...base, focused: false })).toBe(false);
    expect(windowInactive(maximum, base)).toBe(false);
    expect(windowInactive(maximum, { ...base, focused: false })).toBe(true);
    // A DM or call popup of the Ring said it has the focus a moment ago: not masked.
    expect(windowInactive(maximum, { ...base, focused: false, siblingFocusAt: 99_000 })).toBe(false);
    // Its heartbeat stopped (closed, crashed): masked again.
    expect(
      windowInactive(maximum, {
        ...base,
        focused: false,
        siblingFocusAt: 100_000 - SIBLING_FOCUS_TTL_MS - 1,
      }),
    ).toBe(true);
  });

  it('follows the switches; recording detection needs the experimental features', () => {
    const custom: TScreenProtection = {
      level: 'standard',
      enableDevToolsProtection: false,
      enableVisibilityProtection: false,
      enableExperimentalFeatures: false,
      enableScreenRecordingDetection: true,
    };
    expect(protectionBehaviours(custom)).toMatchObject({
      hideWhenHidden: false,
      hideOnBlur: false,
      detectDevtools: false,
      detectRecording: false,
    });
    expect(protectionBehaviours({ ...custom, enableExperimentalFeatures: true }).detectRecording).toBe(true);
  });

  it('presets match the dashboard: basic and standard devtools + visibility only, maximum all four', () => {
    expect(
      PROTECTION_LEVELS.map((level) => Object.values(presetSwitches(level)).filter(Boolean).length),
    ).toEqual([0, 2, 2, 4]);
  });
});

describe('blocked shortcuts', () => {
  it('recognises capture, devtools and view-source shortcuts', () => {
    expect(blockedShortcut(key('PrintScreen'))).toBe('capture');
    expect(blockedShortcut(key('Unidentified', { code: 'PrintScreen' }))).toBe('capture');
    expect(blockedShortcut(key('3', { metaKey: true, shiftKey: true }))).toBe('capture');
    expect(blockedShortcut(key('$', { metaKey: true, shiftKey: true, code: 'Digit4' }))).toBe('capture');
    expect(blockedShortcut(key('S', { metaKey: true, shiftKey: true }))).toBe('capture');
    expect(blockedShortcut(key('F12'))).toBe('devtools');
    expect(blockedShortcut(key('I', { ctrlKey: true, shiftKey: true }))).toBe('devtools');
    expect(blockedShortcut(key('i', { metaKey: true, altKey: true }))).toBe('devtools');
    expect(blockedShortcut(key('u', { ctrlKey: true }))).toBe('source');
  });

  it('leaves ordinary typing and editing shortcuts alone', () => {
    for (const input of [
      key('a'),
      key('u'),
      key('I', { shiftKey: true }),
      key('c', { ctrlKey: true }),
      key('v', { metaKey: true }),
      key('Enter'),
      key('3', { shiftKey: true }),
    ]) {
      expect(blockedShortcut(input)).toBeNull();
    }
  });
});

describe('detection heuristics', () => {
  it('suspects docked devtools beyond 160 px of difference only', () => {
    const size = {
      outerWidth: 1280,
      innerWidth: 1280,
      outerHeight: 880,
      innerHeight: 800,
      devicePixelRatio: 1,
    };
    expect(devtoolsLikelyOpen(size)).toBe(false);
    expect(devtoolsLikelyOpen({ ...size, innerWidth: 1120 })).toBe(false);
    expect(devtoolsLikelyOpen({ ...size, innerWidth: 1119 })).toBe(true);
    expect(devtoolsLikelyOpen({ ...size, innerHeight: 700 })).toBe(true);
    expect(devtoolsLikelyOpen({ outerWidth: 0, innerWidth: 1280, outerHeight: 0, innerHeight: 800 })).toBe(
      false,
    );
  });

  it('issue 28: browser zoom is not devtools; devtools docked in a zoomed page still are', () => {
    // 1280×880 window, 80 px of toolbar, page zoomed to 125 % (inner size in CSS px shrinks).
    const zoomed = { outerWidth: 1280, innerWidth: 1024, outerHeight: 880, innerHeight: 640 };
    expect(devtoolsLikelyOpen({ ...zoomed, devicePixelRatio: 1.25 })).toBe(false);
    // Same on a 2× screen (devicePixelRatio 2.5), or zoomed out to 80 %.
    expect(devtoolsLikelyOpen({ ...zoomed, devicePixelRatio: 2.5 })).toBe(false);
    expect(
      devtoolsLikelyOpen({
        outerWidth: 1280,
        innerWidth: 1600,
        outerHeight: 880,
        innerHeight: 1000,
        devicePixelRatio: 0.8,
      }),
    ).toBe(false);
    // Zoomed to 125 % with a 400 px panel docked on the right, or 300 px at the bottom.
    expect(devtoolsLikelyOpen({ ...zoomed, innerWidth: 704, devicePixelRatio: 1.25 })).toBe(true);
    expect(devtoolsLikelyOpen({ ...zoomed, innerHeight: 400, devicePixelRatio: 1.25 })).toBe(true);
  });

  it('runs recording checks at most 3 times every 5 s, for 60 s', () => {
    const offsets = recordingCheckOffsets();
    expect(offsets).toHaveLength(36);
    expect(offsets.slice(0, 4)).toEqual([0, 1667, 3334, 5000]);
    expect(Math.max(...offsets)).toBeLessThan(60_000);
    for (let start = 0; start < 60_000; start += 5000) {
      expect(offsets.filter((t) => t >= start && t < start + 5000).length).toBeLessThanOrEqual(3);
    }
  });

  it('warns above 50,000,000 bytes of memory', () => {
    expect(memoryAboveWarning(50_000_000)).toBe(false);
    expect(memoryAboveWarning(50_000_001)).toBe(true);
    expect(memoryAboveWarning(undefined)).toBe(false);
  });

  it('hides the content for the most specific reason, and for 3 s after a capture', () => {
    const base = { captureUntil: 0, now: 1000, devtools: false, inactive: false, recording: false };
    expect(hiddenReason(base)).toBeNull();
    expect(hiddenReason({ ...base, captureUntil: 4000 })).toBe('capture');
    expect(hiddenReason({ ...base, captureUntil: 1000 })).toBeNull();
    expect(hiddenReason({ ...base, inactive: true, devtools: true })).toBe('devtools');
    expect(hiddenReason({ ...base, inactive: true })).toBe('inactive');
    expect(hiddenReason({ ...base, recording: true, captureUntil: 4000 })).toBe('recording');
  });

  it('watermarks with the viewer’s name and the date', () => {
    expect(watermarkText('claire', new Date(2026, 10, 24, 9, 5))).toBe('claire · 24/11/2026 09:05');
  });
});
