/**
 * `new LatamPayments({ apiKey, baseUrl })`: the client, its resources and its webhook helper.
 * The mode follows the key: `sk_test_...` is test mode (sandbox), `sk_live_...` live.
 */
import { Transport, type TransportOptions } from './http.ts';
import { BalanceResource, Checkout, Disputes, Events, Mandates, Methods, Payments, Payouts, Refunds, Sandbox } from './resources.ts';
import { generateTestHeaders, verify } from './webhooks.ts';

export interface LatamPaymentsOptions extends Omit<TransportOptions, 'baseUrl'> {
  /** The API's base URL, e.g. https://api.example.com or http://127.0.0.1:3000 for the local stack. */
  readonly baseUrl: string;
  /** Your merchant id (mch_...): only payments.retrieve needs it, as its path carries it. */
  readonly merchantId?: string;
}

export type Mode = 'test' | 'live';

export class LatamPayments {
  /** 'test' for an sk_test_ key, 'live' for an sk_live_ key. */
  readonly mode: Mode;
  readonly livemode: boolean;
  readonly checkout: Checkout;
  readonly payments: Payments;
  readonly refunds: Refunds;
  readonly payouts: Payouts;
  readonly mandates: Mandates;
  readonly disputes: Disputes;
  readonly balance: BalanceResource;
  readonly methods: Methods;
  readonly events: Events;
  readonly sandbox: Sandbox;
  /** Webhook signature verification; also usable without a client: `import { webhooks }`. */
  readonly webhooks = { verify, generateTestHeaders };
  static readonly webhooks = { verify, generateTestHeaders };

  constructor(options: LatamPaymentsOptions) {
    const { apiKey, baseUrl } = options ?? {};
    if (typeof apiKey !== 'string' || !/^sk_(test|live)_\S+$/.test(apiKey)) {
      throw new TypeError('LatamPayments needs an apiKey: sk_test_... (test mode) or sk_live_... (live)');
    }
    if (typeof baseUrl !== 'string' || !/^https?:\/\//.test(baseUrl)) {
      throw new TypeError('LatamPayments needs a baseUrl such as https://api.example.com');
    }
    this.mode = apiKey.startsWith('sk_live_') ? 'live' : 'test';
    this.livemode = this.mode === 'live';
    const transport = new Transport(options);
    this.checkout = new Checkout(transport);
    this.payments = new Payments(transport, options.merchantId);
    this.refunds = new Refunds(transport);
    this.payouts = new Payouts(transport);
    this.mandates = new Mandates(transport);
    this.disputes = new Disputes(transport);
    this.balance = new BalanceResource(transport);
    this.methods = new Methods(transport);
    this.events = new Events(transport);
    this.sandbox = new Sandbox(transport);
  }
}
