/**
 * The sandbox simulator (DESIGN.md section 6): no money moves and no provider is
 * called, but every artefact is real (BR Code, boleto line, CLABE, references)
 * and the test cards decide the outcome.
 */
import { randomBytes } from 'node:crypto';
import type { CardOutcome, Connectors, DeclineCode } from '../../application/providers';
import type { CurrencyCode } from '../../domain/geo';
import { fromMinor } from '../../domain/money';
import { authorizationCode } from '../../domain/payments/card';
import { buildPixBrCode } from '../../domain/payments/pix-brcode';
import { buildBoleto } from '../../domain/payments/boleto';
import { buildClabe } from '../../domain/payments/clabe';
import { bankTransferReference, cashVoucherReference, cipCode, pixTxid } from '../../domain/payments/references';

const random = (n: number) => randomBytes(n);

/** DESIGN.md section 6 test cards; any other valid card is approved. */
const TEST_CARDS: Readonly<Record<string, 'approve' | '3ds' | DeclineCode>> = {
  '4242424242424242': 'approve',
  '5555555555554444': 'approve',
  '4000000000003220': '3ds',
  '4000000000000002': 'CARD_DECLINED',
  '4000000000009995': 'INSUFFICIENT_FUNDS',
  '4000000000000069': 'EXPIRED_CARD',
  '4000000000000127': 'INCORRECT_CVC',
};

const DECLINE_MESSAGES: Readonly<Record<DeclineCode, string>> = {
  CARD_DECLINED: 'The card was declined.',
  INSUFFICIENT_FUNDS: 'The card has insufficient funds.',
  EXPIRED_CARD: 'The card has expired.',
  INCORRECT_CVC: 'The card security code is incorrect.',
};

/** The sandbox's own PIX receiving key (a random EVP key) and city. */
const SANDBOX_PIX_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';
const SANDBOX_PIX_CITY = 'SAO PAULO';
/** Sandbox bank codes for boleto and SPEI (Itaú 341; STP 646). */
const BOLETO_BANK = '341';
const SPEI_BANK = '646';

/**
 * The sandbox provider's own USDT price of one unit of each currency (fixed, so a test can predict it; live, Binance
 * Pay quotes each order). Not an exchange rate of ours: it stands for the provider's quote.
 */
const SANDBOX_USDT_PER_UNIT: Readonly<Record<CurrencyCode, number>> = {
  BRL: 0.2,
  PEN: 0.27,
  COP: 0.00025,
  CLP: 0.00105,
  MXN: 0.055,
  USD: 1,
  ARS: 0.001,
  USDT: 1,
};

/** The sandbox's USDT quote of an amount (2 decimals, at least 0.01). */
export function sandboxUsdtQuote(amountMinor: number, currency: CurrencyCode): string {
  const usdt = fromMinor(amountMinor, currency) * SANDBOX_USDT_PER_UNIT[currency];
  return Math.max(0.01, Math.round(usdt * 100) / 100).toFixed(2);
}

const digits = (n: number) => Array.from(random(n), (b) => String(b % 10)).join('');

export function sandboxConnectors(baseUrl: () => string): Connectors {
  return {
    card: {
      async authorize({ card }): Promise<CardOutcome> {
        const rule = TEST_CARDS[card.number] ?? 'approve';
        if (rule === 'approve') return { kind: 'approved', authorizationCode: authorizationCode(random) };
        if (rule === '3ds') return { kind: 'requires_3ds' };
        return { kind: 'declined', code: rule, message: DECLINE_MESSAGES[rule] };
      },
      async completeChallenge({ authenticated }): Promise<CardOutcome> {
        return authenticated
          ? { kind: 'approved', authorizationCode: authorizationCode(random) }
          : { kind: 'declined', code: 'CARD_DECLINED', message: '3-D Secure authentication failed.' };
      },
    },
    pix: {
      async createCharge({ amountMinor, merchantName }) {
        const txid = pixTxid(random);
        const pixCode = buildPixBrCode({
          pixKey: SANDBOX_PIX_KEY,
          merchantName,
          merchantCity: SANDBOX_PIX_CITY,
          amount: fromMinor(amountMinor, 'BRL'),
          txid,
        });
        return { pixCode, txid };
      },
    },
    voucher: {
      async issue({ kind, amountMinor, dueAt }): Promise<Record<string, string>> {
        switch (kind) {
          case 'boleto': {
            const b = buildBoleto({ bankCode: BOLETO_BANK, amountMinor, dueDate: new Date(dueAt), freeField: digits(25) });
            return { boleto_line: b.typeableLine, boleto_barcode: b.barcode, due_date: dueAt.slice(0, 10) };
          }
          case 'spei':
            return { clabe: buildClabe(SPEI_BANK, '180', digits(11)), bank_name: 'STP', reference: digits(7) };
          case 'cip':
            return { cip_code: cipCode(random) };
          case 'cash':
            return { voucher_reference: cashVoucherReference(random) };
          case 'bank_transfer':
            return {
              bank_name: 'Sandbox Bank',
              account_number: digits(10),
              account_holder: 'LatAm Payments Sandbox',
              reference: bankTransferReference(random),
            };
        }
      },
    },
    wallet: {
      async start({ paymentId }) {
        return { redirectUrl: `${baseUrl()}/sandbox/wallet/${paymentId}` };
      },
    },
    crypto: {
      async order({ paymentId, amountMinor, currency }) {
        const checkoutUrl = `${baseUrl()}/sandbox/pay/${paymentId}`;
        return { qrContent: checkoutUrl, checkoutUrl, quote: { currency: 'USDT', amount: sandboxUsdtQuote(amountMinor, currency) } };
      },
    },
  };
}
