import { describe, expect, it } from 'vitest';
import { csvAmount, csvDate, csvField, csvLine, transactionsToCsv } from './admin-transactions.csv';

describe('transactions CSV', () => {
  it('quotes fields the RFC 4180 way', () => {
    expect(csvField('simple')).toBe('simple');
    expect(csvField('a;b')).toBe('"a;b"');
    expect(csvField('dit "bonjour"')).toBe('"dit ""bonjour"""');
    expect(csvField('ligne\nsuivante')).toBe('"ligne\nsuivante"');
    expect(csvField(null)).toBe('');
    expect(csvField(12)).toBe('12');
  });

  it('neutralises spreadsheet formulas in text cells only', () => {
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField('+33 1 02')).toBe("'+33 1 02");
    expect(csvField('-5', { text: false })).toBe('-5');
    expect(csvLine(['-1,00', '@a'], new Set([0]))).toBe("-1,00;'@a\r\n");
  });

  it('writes French amounts and Paris dates', () => {
    expect(csvAmount(1234.5)).toBe('1234,50');
    expect(csvAmount(0)).toBe('0,00');
    expect(csvDate('2026-11-22T18:30:00.000Z')).toBe('22/11/2026 19:30');
    expect(csvDate('2026-07-01T10:00:00.000Z')).toBe('01/07/2026 12:00');
  });

  it('starts with a BOM and the header line, one CRLF line per transaction', () => {
    const csv = transactionsToCsv([
      {
        id: 'p1',
        customer_id: 'c1',
        customer_name: 'Dupont; "Jo"',
        customer_email: 'jo@example.com',
        amount: 29.9,
        currency: 'EUR',
        payment_provider: 'paypal',
        transaction_id: 'TX-1',
        status: 'completed',
        computed_status: 'completed_expired',
        created_at: '2026-01-05T08:00:00.000Z',
        plan_name: 'Professional',
        billing_cycle: 'yearly',
        reference: 'TX-1',
      },
    ]);
    expect(
      csv.startsWith('\uFEFFDate;Client;Email;Plan;Période;Montant;Devise;Passerelle;Statut;Référence\r\n'),
    ).toBe(true);
    expect(csv.split('\r\n')[1]).toBe(
      '05/01/2026 09:00;"Dupont; ""Jo""";jo@example.com;Professional;Annuel;29,90;EUR;PayPal;Payé (Expiré);TX-1',
    );
    expect(csv.endsWith('\r\n')).toBe(true);
  });
});
