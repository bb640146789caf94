/** Checks a webhook delivery the three ways a merchant could: by hand, with Standard Webhooks, with the docs/webhooks.md recipe. */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from './merchant-verify';

export function expectGenuine(
  r: { headers: Record<string, unknown>; rawBody: Buffer },
  secret: string,
  hexHeader: 'x-signature' | 'x-webhook-signature' = 'x-signature',
) {
  // By hand: hex HMAC-SHA256 of the raw body keyed with the whole secret string.
  expect(String(r.headers[hexHeader]).split(',')).toContain(createHmac('sha256', secret).update(r.rawBody).digest('hex'));
  // By an independent Standard Webhooks implementation.
  const wh = new Webhook(secret.slice('whsec_'.length));
  expect(() =>
    wh.verify(r.rawBody.toString('utf8'), {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    }),
  ).not.toThrow();
  // By the recipe merchants copy from docs/webhooks.md.
  expect(verifyWebhook(r.rawBody, r.headers as Record<string, string>, secret)).toMatchObject({ ok: true });
}
