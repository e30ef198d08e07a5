import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context';
import { badRequest } from '../../lib/app-error';
import { WebhookService } from './webhook.service';

const header = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? (value[0] ?? '') : (value ?? '');

export async function webhookRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  const service = new WebhookService(ctx);

  // Signatures are computed over the exact bytes received: keep the raw body in this scope.
  await root.register(async (app) => {
    app.addContentTypeParser(
      ['application/json', 'text/plain'],
      { parseAs: 'buffer', bodyLimit: 512 * 1024 },
      (_request, body, done) => {
        done(null, body);
      },
    );

    const json = (raw: unknown): Record<string, unknown> => {
      if (!Buffer.isBuffer(raw)) throw badRequest('Corps de requête manquant');
      try {
        const parsed: unknown = JSON.parse(raw.toString('utf8'));
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        return parsed as Record<string, unknown>;
      } catch {
        throw badRequest('JSON invalide');
      }
    };

    app.post('/api/webhooks/stripe.php', async (request) => {
      if (!Buffer.isBuffer(request.body)) throw badRequest('Corps de requête manquant');
      return service.stripe(request.body, header(request.headers['stripe-signature']) || undefined);
    });

    app.post('/api/webhooks/paypal.php', async (request) => {
      return service.paypal(json(request.body), {
        authAlgo: header(request.headers['paypal-auth-algo']),
        certUrl: header(request.headers['paypal-cert-url']),
        transmissionId: header(request.headers['paypal-transmission-id']),
        transmissionSig: header(request.headers['paypal-transmission-sig']),
        transmissionTime: header(request.headers['paypal-transmission-time']),
      });
    });

    app.post('/api/webhooks/nowpayments.php', async (request) => {
      return service.nowpayments(
        json(request.body),
        header(request.headers['x-nowpayments-sig']) || undefined,
      );
    });
  });
}
