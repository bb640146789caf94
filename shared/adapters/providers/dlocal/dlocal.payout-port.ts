/**
 * dLocal payouts v3 as the application's one payout port (PayoutConnector): our payout request as dLocal's
 * bank-transfer payout (Peru, Argentina CBU/CVU, Colombia), sealed at prepare (it holds the whole account and
 * document, stored nowhere else in clear) so a resend is the same request; created after the commit with our
 * external_id (derived from the payout id) as its idempotent id; read back by that external_id. A create dLocal
 * refuses at once (REJECTED in its answer, or a 4xx) is a definite no; ON_HOLD stays in flight (`held`).
 * Brazilian PIX payouts by key are a second port beside it (`pixPayouts`, dlocal.pix-payouts.ts).
 *
 * The seal's key is derived from the payouts client secret: rotate it only with no payout's creation
 * unresolved (an order already created is read back by external_id, which needs no sealed order).
 */
import type {
  CardChargebacks,
  PayoutConnector,
  PayoutOrderRequest,
  ProviderOrder,
  ProviderOrderState,
  SignedPayoutNotifications,
} from '../../../application/providers';
import { ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import type { CurrencyCode } from '../../../domain/geo';
import { maskTail } from '../../../domain/payouts/masking';
import { logger } from '../../../observability';
import { recordPayoutFloatLow } from '../../../observability/provider-metrics';
import type { DlocalConfig } from '../providers.config';
import { SealedOrderError, secretSealer } from '../stp/stp.sealer';
import { DLOCAL } from './dlocal.client';
import { dlocalCards, type DlocalCardConnector } from './dlocal.cards';
import { dlocalChargebacks } from './dlocal.chargeback-intake';
import { dlocalConnectors, type BankPayoutConnector, type DlocalConnectors } from './dlocal.connector';
import type { DlocalNotifications } from './dlocal.notifications';
import { dlocalPixNotifications, dlocalPixPayouts, type DlocalPixPayoutConnector } from './dlocal.pix-payouts';
import { payoutRequestOf, type BankPayoutRequest } from './dlocal.payouts';
import type { PayoutStatus } from './dlocal.schemas';
import { externalIdOf, payoutIdOfExternalId, type DlocalPayoutState } from './dlocal.transformers';

/** Our route of dLocal's payout notifications, under our public API's root. */
export const DLOCAL_PAYOUT_NOTIFICATION_PATH = '/providers/dlocal/payouts';

const SEAL_INFO = 'latam-payments/dlocal/payout-seal/v1';

/** payoutRequestOf's refusal codes as what the merchant is told (400 INVALID_BENEFICIARY, nothing written). */
const INVALID: Readonly<Record<string, string>> = {
  method_not_available: 'This payout method is not paid through this provider.',
  currency_not_supported: 'The currency is not the one this country pays out in.',
  amount_not_allowed: 'Colombian payouts are paid in whole pesos.',
  invalid_beneficiary: 'The document type is not one this country’s bank transfers accept.',
  invalid_account: 'The account (bank code, account number and type, or 22-digit CBU/CVU) is not valid.',
};

export function bankRequestOf(req: PayoutOrderRequest): BankPayoutRequest {
  return {
    payoutId: req.payoutId,
    methodCode: req.methodCode,
    amountMinor: req.amountMinor,
    currency: req.currency as CurrencyCode,
    beneficiary: {
      name: req.beneficiaryName,
      document: req.beneficiaryDocument,
      documentType: req.documentType,
      ...(req.bankAccount
        ? { bankCode: req.bankAccount.bankCode, accountNumber: req.bankAccount.accountNumber, accountType: req.bankAccount.accountType }
        : {}),
      ...(req.instantTransferKey ? { instantTransferKey: req.instantTransferKey } : {}),
      ...(req.instantTransferType ? { instantTransferType: req.instantTransferType } : {}),
    },
    description: req.concept,
    notificationUrl: `${req.callbackBaseUrl.replace(/\/$/, '')}${DLOCAL_PAYOUT_NOTIFICATION_PATH}`,
  };
}

/** A dLocal payout read back, as our order state (a rejection or cancellation with our failure code). */
export function orderStateOf(s: DlocalPayoutState): ProviderOrderState {
  switch (s.kind) {
    case 'not_found':
      return s;
    case 'pending':
      return { kind: 'pending', orderId: s.orderId, held: s.held };
    case 'settled':
      return { kind: 'settled', orderId: s.orderId, ...(s.at ? { at: s.at } : {}) };
    default:
      return { kind: 'cancelled', orderId: s.orderId, reason: s.kind, failureCode: s.reason };
  }
}

/** A notification's status as the change it claims (the payout is read back before anything moves). */
export function claimedOf(status: string): 'pending' | 'settled' | 'cancelled' {
  const s = status as PayoutStatus;
  return s === 'PAID' ? 'settled' : s === 'REJECTED' || s === 'CANCELLED' ? 'cancelled' : 'pending';
}

export interface DlocalPayoutPort {
  readonly payouts: PayoutConnector;
  readonly notifications: SignedPayoutNotifications;
}

/**
 * Both of dLocal's payout ports: bank transfers (`payouts`, the bankPayouts rail) and Brazilian PIX payouts by key
 * (`pixPayouts`, dlocal.pix-payouts.ts: a connector for the pixPayouts rail beside Efí's), with their notifications.
 */
export interface DlocalPayoutPorts extends DlocalPayoutPort {
  readonly pixPayouts: DlocalPixPayoutConnector;
  readonly pixNotifications: SignedPayoutNotifications;
}

/**
 * dLocal's connectors with its payouts as the payout ports (null when the document has no payouts block) and its
 * card payments (a card rail beside Adyen's, dlocal.cards.ts) with their chargeback notices (dlocal.chargeback-intake.ts).
 */
export interface DlocalLive extends DlocalConnectors {
  readonly payoutPort: DlocalPayoutPorts | null;
  readonly cards: DlocalCardConnector;
  readonly chargebacks: CardChargebacks;
}

export function dlocalLive(cfg: DlocalConfig): DlocalLive {
  const c = dlocalConnectors(cfg);
  const cards = dlocalCards(cfg, c.client);
  const payoutPort = c.payouts
    ? {
        ...dlocalPayoutPort(cfg, c.payouts, c.notifications),
        pixPayouts: dlocalPixPayouts(cfg, c.client),
        pixNotifications: dlocalPixNotifications(c.notifications),
      }
    : null;
  return { ...c, payoutPort, cards, chargebacks: dlocalChargebacks(cfg, c.client) };
}

export function dlocalPayoutPort(
  cfg: Pick<DlocalConfig, 'payouts'>,
  bank: Pick<BankPayoutConnector, 'create' | 'get'>,
  notifications: DlocalNotifications,
): DlocalPayoutPort {
  const sealer = secretSealer(cfg.payouts?.client_secret ?? '', SEAL_INFO);

  function open(order: Pick<ProviderOrder, 'reference' | 'sealed'>): BankPayoutRequest {
    try {
      const r = JSON.parse(sealer.open(order.sealed, order.reference)) as BankPayoutRequest;
      if (externalIdOf(r.payoutId) === order.reference) return r;
    } catch (e) {
      if (!(e instanceof SealedOrderError) && !(e instanceof SyntaxError)) throw e;
    }
    // Sealed under a client secret since rotated: it cannot be sent again as it was; the payout waits.
    logger.error('dLocal payout could not be unsealed for a resend', { provider: DLOCAL, operation: 'payouts' });
    throw new ProviderUnavailable(DLOCAL, 'payouts', 'The sealed payout could not be opened');
  }

  return {
    payouts: {
      provider: { name: DLOCAL, reference: externalIdOf },
      // dLocal's payouts v3 has no return after PAID: nothing to watch.
      returnWatchSeconds: 0,
      prepare(req) {
        const r = bankRequestOf(req);
        const p = payoutRequestOf(r);
        if ('invalid' in p) return { invalid: INVALID[p.invalid] ?? 'The beneficiary cannot be paid by bank transfer.' };
        const b = p.body;
        const reference = b.external_id;
        const summary = {
          external_id: reference,
          country: b.country,
          amount: b.amount,
          currency: b.currency,
          document_type: b.beneficiary.document.type,
          document: maskTail(b.beneficiary.document.id),
          account: maskTail(b.beneficiary.bank_account.account),
          account_type: b.beneficiary.bank_account.type,
          ...(b.beneficiary.bank_account.code ? { bank_code: b.beneficiary.bank_account.code } : {}),
        };
        return { order: { reference, summary, sealed: sealer.seal(JSON.stringify(r), reference) } };
      },
      async register(order) {
        let s: Awaited<ReturnType<typeof bank.create>>;
        try {
          s = await bank.create(open(order));
        } catch (e) {
          // Our balance at dLocal does not cover it (514): one code for every provider, and ops are paged.
          if (e instanceof ProviderRejected && e.code === 'provider_insufficient_funds') {
            recordPayoutFloatLow(DLOCAL);
            logger.error('dLocal refused a payout: our balance there', { provider: DLOCAL, operation: 'payouts', page: true });
            throw new ProviderRejected(DLOCAL, 'payouts', 'provider_balance_insufficient', e.status);
          }
          throw e;
        }
        // Refused in its answer: a definite no (the payout fails and is credited back; our code, never dLocal's text).
        if (s.kind === 'rejected' || s.kind === 'cancelled') throw new ProviderRejected(DLOCAL, 'payouts', s.reason, 200);
        return { orderId: s.orderId, state: orderStateOf(s) };
      },
      async get(reference) {
        const payoutId = payoutIdOfExternalId(reference);
        if (!payoutId) return { kind: 'not_found' };
        return orderStateOf(await bank.get(payoutId));
      },
    },
    notifications: {
      parse(headers, rawBody) {
        const r = notifications.parsePayout(headers, rawBody);
        if (!r || 'forged' in r) return r;
        const { payoutId, providerPayoutId, claimed } = r.item;
        return {
          item: { ...(payoutId ? { reference: externalIdOf(payoutId) } : {}), orderId: providerPayoutId, claimed: claimedOf(claimed) },
        };
      },
      payoutIdOf: (reference) => payoutIdOfExternalId(reference),
    },
  };
}
