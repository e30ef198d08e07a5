import { MESSAGE_SOUNDS, RINGTONES } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import {
  SAMPLE_RATE,
  messageSoundPattern,
  patternDurationMs,
  ringtonePattern,
  synthesizeWav,
  type Tone,
} from './sound-synth';

function samplesOf(wav: Buffer): Int16Array {
  const data = wav.subarray(44);
  return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
}

const durationMsOf = (wav: Buffer) => (wav.readUInt32LE(40) / 2 / SAMPLE_RATE) * 1000;

describe('synthesizeWav', () => {
  it('writes a 16-bit mono PCM RIFF/WAVE header with consistent sizes', () => {
    const wav = synthesizeWav([{ frequency: 440, durationMs: 100, gain: 0.5 }]);
    const dataBytes = Math.round(0.1 * SAMPLE_RATE) * 2;
    expect(wav.length).toBe(44 + dataBytes);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(36 + dataBytes);
    expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
    expect(wav.toString('ascii', 12, 16)).toBe('fmt ');
    expect(wav.readUInt32LE(16)).toBe(16);
    expect(wav.readUInt16LE(20)).toBe(1);
    expect(wav.readUInt16LE(22)).toBe(1);
    expect(wav.readUInt32LE(24)).toBe(22050);
    expect(wav.readUInt32LE(28)).toBe(44100);
    expect(wav.readUInt16LE(32)).toBe(2);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.toString('ascii', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(dataBytes);
  });

  it('lasts as long as its tones, silences included', () => {
    const tones: Tone[] = [
      { frequency: 440, durationMs: 200, gain: 0.5 },
      { frequency: 0, durationMs: 300, gain: 0 },
      { frequency: 660, endFrequency: 330, durationMs: 150, gain: 0.5 },
    ];
    expect(durationMsOf(synthesizeWav(tones))).toBeCloseTo(650, 0);
  });

  it('fades in and out, and keeps silence silent', () => {
    const samples = samplesOf(
      synthesizeWav([
        { frequency: 440, durationMs: 100, gain: 1 },
        { frequency: 0, durationMs: 50, gain: 0 },
      ]),
    );
    const toneSamples = Math.round(0.1 * SAMPLE_RATE);
    expect(samples[0]).toBe(0);
    expect(Math.abs(samples[toneSamples - 1]!)).toBeLessThan(100);
    expect(samples.subarray(toneSamples).every((s) => s === 0)).toBe(true);
    expect(Math.max(...samples.subarray(0, toneSamples))).toBeGreaterThan(30000);
  });

  it('refuses a gain outside 0..1 rather than clipping', () => {
    expect(() => synthesizeWav([{ frequency: 440, durationMs: 10, gain: 1.5 }])).toThrow(RangeError);
  });
});

describe('notification patterns', () => {
  const messageSounds = MESSAGE_SOUNDS.map((type) => synthesizeWav(messageSoundPattern(type)));
  const ringtones = RINGTONES.flatMap((tone) =>
    (['voice', 'video'] as const).map((call) => synthesizeWav(ringtonePattern(tone, call))),
  );

  it('gives every message sound and ringtone its own bytes', () => {
    const all = [...messageSounds, ...ringtones].map((wav) => wav.toString('base64'));
    expect(new Set(all).size).toBe(all.length);
  });

  it('keeps message sounds short and ringtones about two seconds', () => {
    for (const type of MESSAGE_SOUNDS) {
      const duration = patternDurationMs(messageSoundPattern(type));
      expect(duration).toBeGreaterThan(0);
      expect(duration).toBeLessThanOrEqual(500);
    }
    for (const tone of RINGTONES) {
      for (const call of ['voice', 'video'] as const) {
        const pattern = ringtonePattern(tone, call);
        expect(patternDurationMs(pattern)).toBe(2000);
        expect(durationMsOf(synthesizeWav(pattern))).toBeCloseTo(2000, 0);
        // Ends in silence, so a looping player does not click at the seam.
        expect(pattern.at(-1)?.gain).toBe(0);
      }
    }
  });

  it('never clips: samples stay within int16 and below full scale', () => {
    for (const wav of [...messageSounds, ...ringtones]) {
      const samples = samplesOf(wav);
      let peak = 0;
      for (const s of samples) peak = Math.max(peak, Math.abs(s));
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThan(32767);
    }
  });
});
