import type { TAdminLogEntry } from '@securering/contract';
import { describe, expect, it } from 'vitest';
import { formatDetails, logEntryToText } from './logs-format';

const entry: TAdminLogEntry = {
  id: 'log-1',
  level: 'error',
  category: 'payment',
  message: 'Paiement refusé',
  details: { url: '/api/x', status: 502 },
  created_at: '2026-11-22T10:00:05.000Z',
  ip_address: '203.0.113.7',
  user_id: 'admin-1',
  user_agent: 'Firefox',
  user_label: 'root',
};

describe('log entry text', () => {
  it('labels every field in French for the clipboard', () => {
    const text = logEntryToText(entry);
    expect(text).toContain('ERREUR Paiement — Paiement refusé');
    expect(text).toContain('Date (UTC)\u202f: 2026-11-22T10:00:05.000Z');
    expect(text).toContain('IP\u202f: 203.0.113.7');
    expect(text).toContain('Utilisateur\u202f: root (admin-1)');
    expect(text).toContain('Navigateur\u202f: Firefox');
    expect(text).toContain('"status": 502');
  });

  it('leaves out what the entry does not have', () => {
    const text = logEntryToText({
      ...entry,
      details: null,
      ip_address: null,
      user_id: null,
      user_agent: null,
    });
    expect(text).not.toContain('IP :');
    expect(text).not.toContain('Utilisateur');
    expect(text).not.toContain('Détails');
  });

  it('shows text details as they are and JSON indented', () => {
    expect(formatDetails('texte')).toBe('texte');
    expect(formatDetails({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(formatDetails(null)).toBe('');
  });
});
