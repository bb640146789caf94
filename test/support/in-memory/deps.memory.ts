/**
 * The composition root of the unit tests, mirroring shared/wiring: the same use-case dependencies
 * (PaymentDeps, PayoutDeps, WebhookDeps, merchant admin) built on in-memory stores over one shared table,
 * a hand-moved clock, sequential ids, the sandbox connectors (pure), and a publisher that dispatches each
 * committed transaction's events to the delivery queue as the wired publisher does. Any store can be swapped
 * for a real adapter (the DynamoDB property run does) while the rest stays in memory.
 */
import { connectorRegistry } from '../../../shared/adapters/connectors/registry';
import { checkUrlSyntax, UnsafeUrlError } from '../../../shared/adapters/webhooks/ssrf-guard';
import { merchantAdmin, type CreateMerchantInput } from '../../../shared/application/merchants';
import type { Principal } from '../../../shared/application/access';
import type { PaymentDeps, PaymentStore, QrCodes, PayoutStore, RefundStore, SecretGenerator } from '../../../shared/application/ports';
import type { PayoutDeps } from '../../../shared/application/payouts';
import type { WebhookDeps, EventStore } from '../../../shared/application/webhooks';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from '../../../shared/domain/webhooks/retry';
import { signatureHeaders } from '../../../shared/domain/webhooks/signature';
import type { Mode } from '../../../shared/domain/access';
import { memoryApiKeyRepository, type MemoryApiKeyRepository } from './api-key-repository.memory';
import { FakeClock } from './clock.memory';
import { MemoryDeliveryQueue } from './delivery-queue.memory';
import { memoryEventStore } from './event-store.memory';
import { SequentialIds, sequentialSecrets } from './ids.memory';
import { MemoryTable } from './memory-table';
import { memoryMerchantRepository, type MemoryMerchantRepository } from './merchant-repository.memory';
import { memoryPaymentStore } from './payment-store.memory';
import { MemoryPayoutRails } from './payout-rails.memory';
import { memoryPayoutStore } from './payout-store.memory';
import { RecordingPublisher } from './publisher.memory';
import { memoryRefundStore } from './refund-store.memory';
import { MemoryRefundRails } from './refund-rails.memory';
import { checkUrlWithoutDns, ScriptedEndpoint } from './webhook-endpoint.memory';

export const MEMORY_BASE_URL = 'https://pay.example.test';

/** The wired check of a submitted notification_url: the SSRF guard's syntax rules, https required in live mode. */
export function checkNotificationUrl(url: string, livemode: boolean): string | null {
  try {
    checkUrlSyntax(url, { requireHttps: livemode, allowLoopback: false });
    return null;
  } catch (e) {
    if (e instanceof UnsafeUrlError) return e.message;
    throw e;
  }
}

/** QR images without rendering: the text in a data URI is enough for use-case tests. */
export const fakeQr: QrCodes = {
  pngDataUri: async (text) => `data:image/png;base64,${Buffer.from(text).toString('base64')}`,
  png: async (text) => Buffer.from(text),
};

export interface MemoryWorldOptions {
  /** Id seed (see SequentialIds): distinct worlds sharing one real table need distinct seeds. */
  readonly seed?: string;
  readonly clock?: FakeClock;
  readonly retrySchedule?: readonly number[];
  /** Real adapters to use instead of the in-memory stores. */
  readonly stores?: Partial<{ payments: PaymentStore; payouts: PayoutStore; refunds: RefundStore; events: EventStore }>;
}

export interface MemoryWorld {
  readonly table: MemoryTable;
  readonly clock: FakeClock;
  readonly ids: SequentialIds;
  readonly secrets: SecretGenerator;
  readonly stores: {
    readonly payments: PaymentStore;
    readonly payouts: PayoutStore;
    readonly refunds: RefundStore;
    readonly events: EventStore;
    readonly merchants: MemoryMerchantRepository;
    readonly apiKeys: MemoryApiKeyRepository;
  };
  readonly queue: MemoryDeliveryQueue;
  readonly rails: MemoryPayoutRails;
  readonly refundRails: MemoryRefundRails;
  readonly endpoint: ScriptedEndpoint;
  readonly publisher: RecordingPublisher;
  retrySchedule: readonly number[];
}

export function memoryWorld(opts: MemoryWorldOptions = {}): MemoryWorld {
  const table = new MemoryTable();
  const clock = opts.clock ?? new FakeClock();
  const events = opts.stores?.events ?? memoryEventStore(table);
  const queue = new MemoryDeliveryQueue();
  return {
    table,
    clock,
    ids: new SequentialIds(opts.seed),
    secrets: sequentialSecrets(opts.seed),
    stores: {
      payments: opts.stores?.payments ?? memoryPaymentStore(table),
      payouts: opts.stores?.payouts ?? memoryPayoutStore(table),
      refunds: opts.stores?.refunds ?? memoryRefundStore(table),
      events,
      merchants: memoryMerchantRepository(table),
      apiKeys: memoryApiKeyRepository(table),
    },
    queue,
    rails: new MemoryPayoutRails(),
    refundRails: new MemoryRefundRails(),
    endpoint: new ScriptedEndpoint(),
    publisher: new RecordingPublisher({ queue }),
    retrySchedule: opts.retrySchedule ?? [...DEFAULT_RETRY_SCHEDULE_SECONDS],
  };
}

/** shared/wiring/payments.ts paymentDeps(), on the world's stores. */
export function memoryPaymentDeps(w: MemoryWorld = memoryWorld()): PaymentDeps {
  const deps = {
    store: w.stores.payments,
    refunds: w.stores.refunds,
    refundRails: w.refundRails,
    connectors: connectorRegistry(() => MEMORY_BASE_URL),
    merchants: w.stores.merchants,
    ids: w.ids,
    clock: w.clock,
    checkNotificationUrl,
    baseUrl: () => MEMORY_BASE_URL,
    qr: fakeQr,
    publisher: w.publisher,
  };
  return deps;
}

/** shared/wiring/payouts.ts payoutDeps(). */
export function memoryPayoutDeps(w: MemoryWorld = memoryWorld()): PayoutDeps {
  return { store: w.stores.payouts, rails: w.rails, ids: w.ids, clock: w.clock, checkNotificationUrl, publisher: w.publisher };
}

/** shared/wiring/webhooks.ts webhookDeps(): the real signer; the endpoint and DNS-free URL check stand in for the network. */
export function memoryWebhookDeps(w: MemoryWorld = memoryWorld()): WebhookDeps {
  return {
    events: w.stores.events,
    queue: w.queue,
    merchants: w.stores.merchants,
    clock: w.clock,
    schedule: () => w.retrySchedule,
    checkUrl: checkUrlWithoutDns,
    signHeaders: signatureHeaders,
    send: w.endpoint.send,
  };
}

/** shared/wiring/admin.ts adminService({ seedBalances: false }) on the world's repositories. */
export function memoryAdmin(w: MemoryWorld) {
  return merchantAdmin({ merchants: w.stores.merchants, apiKeys: w.stores.apiKeys, ids: w.ids, secrets: w.secrets, clock: w.clock });
}

/** A new active merchant (every country and method, like the CLI's default) and a principal of its first key. */
export async function memoryMerchant(
  w: MemoryWorld,
  input: Partial<CreateMerchantInput> = {},
  mode: Mode = 'test',
): Promise<{ principal: Principal; webhookSecret: string }> {
  const admin = memoryAdmin(w);
  const created = await admin.createMerchant({ name: 'Loja Exemplo', ...input });
  const key = mode === 'test' ? created.apiKey.key : (await admin.createKey(created.merchant.merchant_id, 'live')).key;
  return { principal: { merchant: created.merchant, key, mode, livemode: mode === 'live' }, webhookSecret: created.webhookSecret };
}
