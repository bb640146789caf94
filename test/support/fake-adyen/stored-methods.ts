/**
 * The fake Adyen's tokenization (Checkout v71): the rules a request that stores a card or charges a stored one must
 * keep (beyond our schemas: the fields Adyen requires together, and what our mandates must send), the tokens stored
 * per shopperReference, and how a ContAuth charge is answered (a token that is not there: Refused "803 PaymentDetail
 * not found", as Adyen's libraries and plugins quote it; declines by amount or scripted).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type * as z from '../../../shared/domain/zod';
import { storedPaymentMethodsQuerySchema, type PaymentRequest } from '../../../shared/adapters/providers/adyen/adyen.schemas';
import { AdyenError } from './adyen-error';

export interface StoredMethod {
  readonly id: string;
  readonly shopperReference: string;
  readonly brand: string;
  readonly lastFour: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
  readonly holderName: string;
  readonly supportedRecurringProcessingModels: string[];
  /** Adyen keeps one token per card and shopper: the same card stored again answers alreadyExisting (a hash, not the PAN). */
  readonly fingerprint: string;
  disabled: boolean;
}

/** How the next ContAuth charge answers (default: by amount, else Authorised). */
export type StoredChargeScript =
  { resultCode: 'Authorised' } | { resultCode: 'Refused'; refusalReasonCode: string; refusalReason?: string };

/**
 * Declines of a ContAuth charge by its amount's last two digits (minor units): 51 Not enough balance (12, hard),
 * 52 Acquirer Error (4, soft), 53 Issuer Unavailable (9, soft), 54 Expired Card (6).
 */
export const STORED_CHARGE_DECLINES: Readonly<Record<number, { refusalReasonCode: string; refusalReason: string }>> = {
  51: { refusalReasonCode: '12', refusalReason: 'Not enough balance' },
  52: { refusalReasonCode: '4', refusalReason: 'Acquirer Error' },
  53: { refusalReasonCode: '9', refusalReason: 'Issuer Unavailable' },
  54: { refusalReasonCode: '6', refusalReason: 'Expired Card' },
};

const variantOf = (number: string) =>
  /^4/.test(number) ? 'visa' : /^(5[1-5]|2[2-7])/.test(number) ? 'mc' : /^3[47]/.test(number) ? 'amex' : 'unknown';

/**
 * What a /payments body breaks of Adyen's tokenization rules, as our mandates use them (empty: none). storePaymentMethod
 * needs shopperReference and recurringProcessingModel (Adyen: required when creating a token); a zero-value card
 * authorisation is only ever a card being stored; a charge on a token is ContAuth with its shopperReference and
 * model and carries nothing of 3-D Secure (no shopper is there); ContAuth is only ever a charge on a token.
 */
export function tokenizationViolations(body: PaymentRequest): string[] {
  const out: string[] = [];
  const pm = body.paymentMethod;
  if (pm.type !== 'scheme') return out;
  const stored = 'storedPaymentMethodId' in pm;
  if (body.storePaymentMethod && (!body.shopperReference || !body.recurringProcessingModel))
    out.push('storePaymentMethod needs shopperReference and recurringProcessingModel');
  if (!stored && body.amount.value === 0 && !body.storePaymentMethod)
    out.push('a zero-value authorisation without storePaymentMethod (we only ever zero-auth to store a card)');
  if (stored) {
    if (body.shopperInteraction !== 'ContAuth') out.push('a stored card charged without shopperInteraction ContAuth');
    if (!body.shopperReference) out.push('a stored card charged without its shopperReference');
    if (!body.recurringProcessingModel) out.push('a stored card charged without recurringProcessingModel');
    if (body.browserInfo || body.authenticationData) out.push('a merchant-initiated charge carries 3-D Secure fields');
    if (body.storePaymentMethod) out.push('a charge on a stored card asks to store it again');
  } else if (body.shopperInteraction === 'ContAuth') out.push('ContAuth with raw card details (our charges use the token)');
  return out;
}

export function storedMethods() {
  const methods = new Map<string, StoredMethod>();
  const scripts: StoredChargeScript[] = [];
  return {
    /** Stores the card of an authorised request under its shopperReference: the token and what happened to it. */
    store(body: PaymentRequest): { id: string; operationType: 'created' | 'alreadyExisting' } {
      const pm = body.paymentMethod as Extract<PaymentRequest['paymentMethod'], { number: string }>;
      const shopperReference = body.shopperReference as string;
      const fingerprint = createHash('sha256').update(`${pm.number}|${pm.expiryMonth}|${pm.expiryYear}`).digest('hex');
      const existing = [...methods.values()].find(
        (m) => m.shopperReference === shopperReference && m.fingerprint === fingerprint && !m.disabled,
      );
      if (existing) return { id: existing.id, operationType: 'alreadyExisting' };
      const id = randomBytes(8).toString('hex').toUpperCase();
      methods.set(id, {
        id,
        shopperReference,
        brand: variantOf(pm.number),
        lastFour: pm.number.slice(-4),
        expiryMonth: pm.expiryMonth,
        expiryYear: pm.expiryYear.slice(-2),
        holderName: pm.holderName,
        supportedRecurringProcessingModels: [body.recurringProcessingModel as string],
        fingerprint,
        disabled: false,
      });
      return { id, operationType: 'created' };
    },
    /** The shopper's usable token by id, or undefined (unknown, another shopper's, or disabled). */
    usable: (shopperReference: string, id: string) => {
      const m = methods.get(id);
      return m && m.shopperReference === shopperReference && !m.disabled ? m : undefined;
    },
    /** The shopper's usable tokens as GET /storedPaymentMethods lists them. */
    list: (shopperReference: string) =>
      [...methods.values()]
        .filter((m) => m.shopperReference === shopperReference && !m.disabled)
        .map(({ fingerprint: _f, disabled: _d, ...m }) => ({ ...m, type: 'scheme', name: m.brand === 'mc' ? 'Mastercard' : 'VISA' })),
    /** Every token, disabled ones included (for the tests). */
    all: (): readonly StoredMethod[] => [...methods.values()],
    disable(shopperReference: string, id: string): boolean {
      const m = methods.get(id);
      if (!m || m.shopperReference !== shopperReference || m.disabled) return false;
      m.disabled = true;
      return true;
    },
    nextCharge: (s: StoredChargeScript) => void scripts.push(s),
    /** How a ContAuth charge of `value` minor units answers: the next script, else by amount, else Authorised. */
    chargeScript(value: number): StoredChargeScript {
      const scripted = scripts.shift();
      if (scripted) return scripted;
      const decline = STORED_CHARGE_DECLINES[value % 100];
      return decline ? { resultCode: 'Refused', ...decline } : { resultCode: 'Authorised' };
    },
  };
}

/** What the fake's tokenization needs of the fake: its account and key, its schema check, its payment book. */
export interface TokenizationContext {
  readonly merchantAccount: string;
  readonly apiKey: string;
  check<S extends z.ZodMiniType>(what: string, schema: S, value: unknown): z.infer<S>;
  /** Keeps a payment answered now (by reference and pspReference): its pspReference and how many there are. */
  remember(body: PaymentRequest, resultCode: string): { pspReference: string; count: number };
}

/** The fake Adyen's tokenization: the vault, the store answer's fields, ContAuth charges, /storedPaymentMethods. */
export function tokenization(ctx: TokenizationContext) {
  const vault = storedMethods();
  const { merchantAccount } = ctx;
  return {
    vault,
    /**
     * An authorised request that asked to store its card: the token in additionalData (tokenization.*, as Checkout
     * v71's example answers) and the method's brand (paymentMethod, v69+); other answers' additionalData as given.
     */
    tokenized(body: PaymentRequest, additionalData: Record<string, string>) {
      if (!body.storePaymentMethod || body.paymentMethod.type !== 'scheme' || !('number' in body.paymentMethod)) return { additionalData };
      const t = vault.store(body);
      return {
        additionalData: {
          ...additionalData,
          'tokenization.shopperReference': body.shopperReference as string,
          'tokenization.storedPaymentMethodId': t.id,
          'tokenization.store.operationType': t.operationType,
        },
        paymentMethod: { type: 'scheme', brand: vault.usable(body.shopperReference as string, t.id)?.brand ?? 'visa' },
      };
    },
    /** What an AUTHORISATION notification of a request that stored its card says of the token (as Adyen's example). */
    storedBy(body: PaymentRequest): Record<string, string> {
      const shopperReference = body.shopperReference ?? '';
      const m = body.storePaymentMethod
        ? vault
            .all()
            .filter((x) => x.shopperReference === shopperReference && !x.disabled)
            .at(-1)
        : undefined;
      return m
        ? {
            'tokenization.shopperReference': shopperReference,
            'tokenization.storedPaymentMethodId': m.id,
            'tokenization.store.operationType': 'created',
          }
        : {};
    },
    /** A ContAuth charge on a token: refused when the shopper has no such usable token, else scripted or by amount. */
    answerCharge(body: PaymentRequest, id: string): [number, unknown] {
      const script = vault.usable(body.shopperReference as string, id)
        ? vault.chargeScript(body.amount.value)
        : { resultCode: 'Refused' as const, refusalReasonCode: '', refusalReason: '803 PaymentDetail not found' };
      const p = ctx.remember(body, script.resultCode);
      const base = { pspReference: p.pspReference, merchantReference: body.reference, amount: body.amount };
      if (script.resultCode === 'Authorised')
        return [
          200,
          {
            ...base,
            resultCode: 'Authorised',
            additionalData: { authCode: String(200000 + p.count), recurringProcessingModel: 'Subscription' },
          },
        ];
      return [
        200,
        {
          ...base,
          resultCode: 'Refused',
          ...(script.refusalReasonCode ? { refusalReasonCode: script.refusalReasonCode } : {}),
          refusalReason: script.refusalReason ?? 'Refused',
        },
      ];
    },
    /** GET (the shopper's tokens) and DELETE (one token) /storedPaymentMethods, their query checked. */
    route(method: string, path: string, query: URLSearchParams, req: IncomingMessage): [number, unknown] {
      if (req.headers['x-api-key'] !== ctx.apiKey) throw new AdyenError(401, '000', 'security', 'HTTP Status Response - Unauthorized');
      const q = ctx.check(`${method} /storedPaymentMethods query`, storedPaymentMethodsQuerySchema, Object.fromEntries(query));
      if (q.merchantAccount !== merchantAccount) throw new AdyenError(403, '901', 'security', 'Invalid Merchant Account');
      const m = /^\/storedPaymentMethods(?:\/([^/]+))?$/.exec(path);
      const id = m?.[1] ? decodeURIComponent(m[1]) : undefined;
      if (method === 'GET' && !id)
        return [200, { merchantAccount, shopperReference: q.shopperReference, storedPaymentMethods: vault.list(q.shopperReference) }];
      if (method === 'DELETE' && id) {
        // A token that is not there (another shopper's, or deleted already): Adyen's recurring "Contract not found".
        if (!vault.disable(q.shopperReference, id)) throw new AdyenError(422, '800', 'validation', 'Contract not found');
        return [204, null];
      }
      throw new AdyenError(405, '000', 'internal', `no ${method} ${path}`);
    },
  };
}
