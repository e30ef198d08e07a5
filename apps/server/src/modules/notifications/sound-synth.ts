import type { MessageSound, Ringtone } from '@securering/contract';

/**
 * Notification sounds built in code: 16-bit mono PCM WAV files synthesised from short tone
 * patterns, so the repository ships no binary assets. Pure functions; callers cache the buffers.
 */

export const SAMPLE_RATE = 22050;
const BYTES_PER_SAMPLE = 2;
const HEADER_BYTES = 44;
/** Ramp at both ends of every tone, so notes start and stop without a click. */
const FADE_MS = 6;

export interface Tone {
  /** Start frequency in Hz; 0 is silence. */
  frequency: number;
  /** End frequency in Hz for a glide; defaults to `frequency`. */
  endFrequency?: number;
  durationMs: number;
  /** Peak amplitude, 0..1. */
  gain: number;
}

export type CallKind = 'voice' | 'video';

const note = (frequency: number, durationMs: number, gain: number): Tone => ({
  frequency,
  durationMs,
  gain,
});
const rest = (durationMs: number): Tone => ({ frequency: 0, durationMs, gain: 0 });

const MESSAGE_PATTERNS: Record<MessageSound, readonly Tone[]> = {
  subtle: [note(880, 120, 0.35)],
  mention: [note(784, 90, 0.5), rest(30), note(1175, 140, 0.5)],
  dm: [note(988, 110, 0.45), rest(40), note(740, 160, 0.45)],
  ephemeral: [{ frequency: 1568, endFrequency: 784, durationMs: 260, gain: 0.4 }, note(523, 90, 0.3)],
};

/** About two seconds each, ending in silence so the pattern loops. */
const RINGTONE_PATTERNS: Record<Ringtone, readonly Tone[]> = {
  default: [note(440, 400, 0.6), rest(200), note(440, 400, 0.6), rest(1000)],
  classic: [
    ...Array.from({ length: 14 }, (_, i) => note(i % 2 === 0 ? 1200 : 950, 50, 0.5)),
    rest(200),
    ...Array.from({ length: 14 }, (_, i) => note(i % 2 === 0 ? 1200 : 950, 50, 0.5)),
    rest(400),
  ],
  modern: [
    note(523, 150, 0.5),
    note(659, 150, 0.5),
    note(784, 150, 0.5),
    note(1047, 250, 0.5),
    rest(150),
    note(784, 150, 0.45),
    note(1047, 250, 0.45),
    rest(750),
  ],
  discrete: [note(660, 250, 0.3), rest(120), note(550, 300, 0.3), rest(1330)],
  urgent: Array.from({ length: 10 }, () => [note(1000, 100, 0.7), rest(100)]).flat(),
};

/** Video calls ring a major third higher, so both kinds can be told apart by ear. */
const VIDEO_TRANSPOSE = 1.25;

export function messageSoundPattern(type: MessageSound): readonly Tone[] {
  return MESSAGE_PATTERNS[type];
}

export function ringtonePattern(tone: Ringtone, call: CallKind): readonly Tone[] {
  const pattern = RINGTONE_PATTERNS[tone];
  if (call === 'voice') return pattern;
  return pattern.map((t) => ({
    ...t,
    frequency: t.frequency * VIDEO_TRANSPOSE,
    ...(t.endFrequency === undefined ? {} : { endFrequency: t.endFrequency * VIDEO_TRANSPOSE }),
  }));
}

const samplesFor = (durationMs: number) => Math.round((durationMs * SAMPLE_RATE) / 1000);

export function patternDurationMs(tones: readonly Tone[]): number {
  return tones.reduce((total, t) => total + t.durationMs, 0);
}

/** A complete WAV file (44-byte RIFF header + samples) playing the tones one after another. */
export function synthesizeWav(tones: readonly Tone[]): Buffer {
  for (const t of tones) {
    if (!(t.gain >= 0 && t.gain <= 1)) throw new RangeError(`gain out of 0..1: ${t.gain}`);
    if (!(t.durationMs >= 0) || t.frequency < 0) throw new RangeError('invalid tone');
  }
  // Tone boundaries come from the running time, so rounding never accumulates along a pattern.
  const sampleCount = samplesFor(patternDurationMs(tones));
  const dataBytes = sampleCount * BYTES_PER_SAMPLE;
  const wav = Buffer.alloc(HEADER_BYTES + dataBytes);
  writeHeader(wav, dataBytes);

  let elapsedMs = 0;
  let offset = HEADER_BYTES;
  for (const tone of tones) {
    const count = samplesFor(elapsedMs + tone.durationMs) - samplesFor(elapsedMs);
    elapsedMs += tone.durationMs;
    const fade = Math.min(samplesFor(FADE_MS), Math.floor(count / 2));
    const start = tone.frequency;
    const end = tone.endFrequency ?? tone.frequency;
    let phase = 0;
    for (let i = 0; i < count; i++) {
      let value = 0;
      if (tone.gain > 0 && start > 0) {
        const frequency = start + ((end - start) * i) / count;
        phase += (2 * Math.PI * frequency) / SAMPLE_RATE;
        const envelope = Math.min(1, fade === 0 ? 1 : Math.min(i, count - 1 - i) / fade);
        value = tone.gain * envelope * Math.sin(phase);
      }
      wav.writeInt16LE(toInt16(value), offset);
      offset += BYTES_PER_SAMPLE;
    }
  }
  return wav;
}

function toInt16(value: number): number {
  return Math.max(-32768, Math.min(32767, Math.round(value * 32767)));
}

function writeHeader(wav: Buffer, dataBytes: number): void {
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(HEADER_BYTES - 8 + dataBytes, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(SAMPLE_RATE, 24);
  wav.writeUInt32LE(SAMPLE_RATE * BYTES_PER_SAMPLE, 28); // byte rate
  wav.writeUInt16LE(BYTES_PER_SAMPLE, 32); // block align
  wav.writeUInt16LE(BYTES_PER_SAMPLE * 8, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataBytes, 40);
}
