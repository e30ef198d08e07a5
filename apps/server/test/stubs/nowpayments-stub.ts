import { randomInt } from 'node:crypto';
import { StubServer } from './stub-server';

/** EUR per coin used by the stub's estimates. */
const RATES: Record<string, number> = { btc: 60000, eth: 3000, usdttrc20: 0.92, usdc: 0.92 };

/** Local stand-in for NOWPayments: estimate and hosted invoices, with the API key checked. */
export class NowPaymentsStub extends StubServer {
  readonly invoices = new Map<string, Record<string, unknown>>();

  constructor(private readonly apiKey: string) {
    super();
    this.route('GET', '/v1/estimate', (req) => {
      if (req.headers['x-api-key'] !== this.apiKey)
        return { status: 403, body: { message: 'Invalid api key' } };
      const amount = Number(req.query.get('amount'));
      const to = req.query.get('currency_to') ?? '';
      return {
        body: {
          currency_from: 'eur',
          amount_from: amount,
          currency_to: to,
          estimated_amount: Number((amount / (RATES[to] ?? 1)).toFixed(8)),
        },
      };
    });
    this.route('POST', '/v1/invoice', (req) => {
      if (req.headers['x-api-key'] !== this.apiKey)
        return { status: 403, body: { message: 'Invalid api key' } };
      const body = JSON.parse(req.rawBody) as Record<string, unknown>;
      const invoiceId = String(randomInt(1_000_000, 9_999_999));
      const invoice = {
        id: invoiceId,
        ...body,
        invoice_url: `${this.base}/payment/?iid=${invoiceId}`,
        created_at: new Date().toISOString(),
      };
      this.invoices.set(invoiceId, invoice);
      return { body: invoice };
    });
  }

  /** The IPN NOWPayments posts for an invoice reaching `status`. */
  ipn(invoiceId: string, status: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const invoice = this.invoices.get(invoiceId);
    if (!invoice) throw new Error(`unknown invoice ${invoiceId}`);
    const payCurrency = String(invoice.pay_currency);
    const payAmount = Number((Number(invoice.price_amount) / (RATES[payCurrency] ?? 1)).toFixed(8));
    return {
      payment_id: Number(invoiceId) * 10 + 1,
      invoice_id: Number(invoiceId),
      payment_status: status,
      pay_address: 'bc1qstubaddress0000000000000000000000',
      price_amount: invoice.price_amount,
      price_currency: invoice.price_currency,
      pay_amount: payAmount,
      actually_paid: status === 'finished' ? payAmount : status === 'partially_paid' ? payAmount / 2 : 0,
      pay_currency: payCurrency,
      order_id: invoice.order_id,
      order_description: invoice.order_description,
      purchase_id: String(Number(invoiceId) * 3),
      outcome_amount: payAmount,
      outcome_currency: payCurrency,
      ...overrides,
    };
  }
}
