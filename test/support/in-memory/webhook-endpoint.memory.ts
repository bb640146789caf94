/**
 * The merchant's side of a webhook delivery: a scripted endpoint (the WebhookDeps.send port) recording each
 * request, and a URL check that applies the real syntax rules without DNS (the WebhookDeps.checkUrl port).
 */
import { checkUrlSyntax } from '../../../shared/adapters/webhooks/ssrf-guard';
import type { DeliveryTarget, WebhookDeps } from '../../../shared/application/webhooks';

export interface EndpointResponse {
  readonly ok: boolean;
  readonly status?: number;
  readonly error?: string;
}

export interface ReceivedWebhook {
  readonly url: string;
  readonly body: any;
  readonly rawBody: string;
  readonly headers: Record<string, string>;
}

export class ScriptedEndpoint {
  readonly received: ReceivedWebhook[] = [];
  private readonly script: EndpointResponse[] = [];

  constructor(private fallback: EndpointResponse = { ok: true, status: 200 }) {}

  /** The next responses, in order; after them, `fallback`. */
  respond(...responses: EndpointResponse[]): this {
    this.script.push(...responses);
    return this;
  }

  always(response: EndpointResponse): this {
    this.fallback = response;
    return this;
  }

  readonly send: WebhookDeps['send'] = async ({ target, body, headers }) => {
    this.received.push({ url: target.url.toString(), body: JSON.parse(body), rawBody: body, headers: { ...headers } });
    const r = this.script.shift() ?? this.fallback;
    return { ...r, durationMs: 3 };
  };
}

/** Syntax rules of the SSRF guard (https in live mode, no credentials, ...); every host "resolves" to a public address. */
export const checkUrlWithoutDns: WebhookDeps['checkUrl'] = async (url, livemode): Promise<DeliveryTarget> => ({
  url: checkUrlSyntax(url, { requireHttps: livemode, allowLoopback: false }),
  address: '203.0.113.10',
  family: 4,
});
