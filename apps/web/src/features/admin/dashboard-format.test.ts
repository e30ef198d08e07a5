import { describe, expect, it } from 'vitest';
import {
  dayLabel,
  diskFreeSummary,
  formatGo,
  formatMo,
  formatMs,
  formatUptime,
  monthLabel,
} from './dashboard-format';

describe('dashboard formats', () => {
  it('writes uptime in days, hours and minutes', () => {
    expect(formatUptime(0)).toBe('0 min');
    expect(formatUptime(59)).toBe('0 min');
    expect(formatUptime(3 * 3600 + 5 * 60)).toBe('3 h 5 min');
    expect(formatUptime(2 * 86_400 + 4 * 3600 + 12 * 60 + 30)).toBe('2 j 4 h 12 min');
  });

  it('writes storage in French gigabytes', () => {
    expect(formatGo(0)).toBe('0,00 Go');
    expect(formatGo(1.25 * 1024 ** 3)).toBe('1,25 Go');
    expect(formatGo(1536 * 1024 ** 3)).toBe('1\u202f536,00 Go');
    expect(formatMo(12.4 * 1024 ** 2)).toBe('12,4 Mo');
  });

  it('labels months and days in French', () => {
    expect(monthLabel('2026-11')).toBe('nov. 26');
    expect(monthLabel('2027-01')).toBe('janv. 27');
    expect(monthLabel('2026-05')).toBe('mai 26');
    expect(dayLabel('2026-03-01')).toBe('01/03');
    expect(formatMs(12.5)).toBe('12,5 ms');
  });

  it('gives free disk space the tone of the server thresholds, with an alert when low or full', () => {
    const MIB = 1024 ** 2;
    const disk = (freeBytes: number, state: 'ok' | 'low' | 'full') => ({
      freeBytes,
      totalBytes: 100 * 1024 * MIB,
      minFreeBytes: 200 * MIB,
      warnFreeBytes: 1024 * MIB,
      state,
    });
    const ok = diskFreeSummary(disk(50 * 1024 * MIB, 'ok'));
    expect(ok).toMatchObject({ value: '50,00 Go', tone: 'ok', alert: null });
    expect(ok.detail).toBe('50 % de 100,00 Go · alerte sous 1,00 Go, écritures refusées sous 200 Mo');
    const low = diskFreeSummary(disk(800 * MIB, 'low'));
    expect(low).toMatchObject({ value: '800 Mo', tone: 'warning' });
    expect(low.alert).toContain('Espace disque faible');
    const full = diskFreeSummary(disk(150 * MIB, 'full'));
    expect(full).toMatchObject({ value: '150 Mo', tone: 'danger' });
    expect(full.alert).toContain('Disque plein');
    expect(diskFreeSummary(null)).toMatchObject({ value: '—', tone: 'warning', alert: null });
  });
});
