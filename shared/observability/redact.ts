/**
 * Log redaction: masks card numbers (PAN), CVVs, national documents, API keys, webhook
 * secrets and bearer tokens before anything reaches a log line.
 *
 * - `redactString`  masks secrets found anywhere inside free text.
 * - `redactValue`   applies the per-key rules (cvv, document, api_key, ...) to one key/value.
 * - `redactReplacer` is `redactValue` typed as a JSON.stringify replacer, for Powertools'
 *   `new Logger({ jsonReplacerFn: redactReplacer })`.
 * - `redactDeep`    applies the same rules to an object graph (arrays, Map/Set, cycles).
 *
 * Pure functions, no dependencies; inputs are never mutated.
 */

export const REDACTED = '[REDACTED]';
const PAN_MASK = '************';

/** Same shape as Powertools' `CustomJsonReplacerFn` and JSON.stringify's replacer. */
export type JsonReplacer = (key: string, value: unknown) => unknown;

// ---------------------------------------------------------------- free text

/** Luhn (mod 10) checksum over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let n = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
    sum += n;
  }
  return sum % 10 === 0;
}

/**
 * 13-19 digits, Luhn-valid, and an issuer prefix in use by the card brands (3-6, or the
 * Mastercard 2221-2720 range). The prefix rule keeps epoch-millisecond timestamps (1…)
 * and compact yyyymmdd… timestamps (20xx) from being masked when they happen to pass Luhn.
 */
export function isCardNumber(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  const bin4 = Number(digits.slice(0, 4));
  const brandPrefix = /^[3-6]/.test(digits) || (bin4 >= 2221 && bin4 <= 2720);
  return brandPrefix && luhnValid(digits);
}

const maskPan = (digits: string): string => PAN_MASK + digits.slice(-4);

/**
 * Masks card numbers inside one run of digit groups separated by single spaces/dashes
 * ("4242 4242 4242 4242 12" → "************4242 12"). Candidates are windows of whole
 * groups holding 13-19 digits; the longest valid window from each position wins.
 */
function maskDigitRun(run: string): string {
  const groups = run.split(/[ -]/);
  const seps = run.match(/[ -]/g) ?? [];
  let out = '';
  let i = 0;
  while (i < groups.length) {
    let digits = '';
    let best = -1;
    for (let j = i; j < groups.length && digits.length + (groups[j] ?? '').length <= 19; j++) {
      digits += groups[j];
      if (isCardNumber(digits)) best = j;
    }
    if (best >= 0) {
      out += maskPan(groups.slice(i, best + 1).join('')) + (seps[best] ?? '');
      i = best + 1;
    } else {
      out += (groups[i] ?? '') + (seps[i] ?? '');
      i++;
    }
  }
  return out;
}

const DIGIT_RUN = /(?<!\d)\d+(?:[ -]\d+)*(?!\d)/g;
const STRIPE_KEY = /\b(sk_(?:test|live)_)([A-Za-z0-9_-]+)/g;
const WEBHOOK_SECRET = /\bwhsec_[A-Za-z0-9+/=]+/g;
const BEARER = /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi;
/** `cvv=123`, `"cvc": "1234"`, `cvv 987` in text that is not parseable JSON (a malformed body, a message). */
const CVV_IN_TEXT = /((?:cvv2?|cvc|security[_ -]?code)["']?\s*[:=]?\s*["']?)\d{3,4}(?!\d)/gi;

/** Masks PANs, sk_test_/sk_live_ keys, whsec_ secrets, Bearer tokens and cvv=… inside `s`. */
export function redactString(s: string): string {
  return s
    .replace(BEARER, 'Bearer ****')
    .replace(STRIPE_KEY, (_m, prefix: string, rest: string) => `${prefix}****${rest.length >= 8 ? rest.slice(-4) : ''}`)
    .replace(WEBHOOK_SECRET, 'whsec_****')
    .replace(CVV_IN_TEXT, '$1***')
    .replace(DIGIT_RUN, maskDigitRun);
}

// ---------------------------------------------------------------- key rules

/** "Security_Code", "securityCode", "security-code" → "securitycode". */
const normalizeKey = (key: string): string => key.toLowerCase().replace(/[\s_-]/g, '');
const keySet = (...keys: string[]): ReadonlySet<string> => new Set(keys.map(normalizeKey));

const ALWAYS_REDACTED = keySet(
  'cvv',
  'cvc',
  'cvv2',
  'security_code',
  'api_key',
  'x-api-key',
  'authorization',
  'secret',
  'webhook_secret',
  'password',
  'token',
  'current',
  'previous',
);
const PAN_KEYS = keySet('number', 'card_number', 'pan');
const DOCUMENT_KEYS = keySet('document', 'document_number', 'tax_id', 'cpf', 'cnpj', 'rut', 'dni', 'curp');

function maskDocument(doc: string): string {
  return doc.length < 5 ? REDACTED : `***${doc.slice(-3)}`;
}

/** Free text, or a JSON document embedded in a string (e.g. an API Gateway `body`). */
function redactText(s: string): string {
  const head = s.trimStart()[0];
  if (head === '{' || head === '[') {
    try {
      return JSON.stringify(redactDeep(JSON.parse(s)));
    } catch {
      // not JSON after all: fall through to free-text rules
    }
  }
  return redactString(s);
}

/** Applies the rules for one key/value pair; objects are returned as-is (callers recurse). */
export function redactValue(key: string, value: unknown): unknown {
  const k = normalizeKey(key);
  if (ALWAYS_REDACTED.has(k)) return value === undefined ? undefined : REDACTED;
  if (PAN_KEYS.has(k)) {
    const asText = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
    if (typeof asText === 'string' && /^\d{13,19}$/.test(asText)) return maskPan(asText);
  }
  if (DOCUMENT_KEYS.has(k) && (typeof value === 'string' || typeof value === 'number')) {
    return maskDocument(String(value));
  }
  return typeof value === 'string' ? redactText(value) : value;
}

/** JSON.stringify replacer / Powertools `jsonReplacerFn`; JSON.stringify does the recursion. */
export const redactReplacer: JsonReplacer = (key, value) => redactValue(key, value);

// ---------------------------------------------------------------- object graphs

/**
 * Returns a redacted copy of `value`: plain objects and arrays are copied, Map/Set values
 * redacted, Errors become `{ name, message, stack, cause?, ...ownFields }`, Dates and binary data
 * pass through. Shared references stay shared and cycles are reproduced, never followed forever.
 */
export function redactDeep(value: unknown): unknown {
  const seen = new WeakMap<object, unknown>();

  const walk = (key: string, input: unknown): unknown => {
    const v = redactValue(key, input);
    if (v !== input || typeof v !== 'object' || v === null) return v;
    if (v instanceof Date || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return v;
    if (seen.has(v)) return seen.get(v);

    if (Array.isArray(v)) {
      const out: unknown[] = [];
      seen.set(v, out);
      v.forEach((item, i) => out.push(walk(String(i), item)));
      return out;
    }
    if (v instanceof Map) {
      const out = new Map<unknown, unknown>();
      seen.set(v, out);
      v.forEach((item, k) => out.set(k, walk(String(k), item)));
      return out;
    }
    if (v instanceof Set) {
      const out = new Set<unknown>();
      seen.set(v, out);
      v.forEach((item) => out.add(walk('', item)));
      return out;
    }
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    if (v instanceof Error) {
      out.name = walk('name', v.name);
      out.message = walk('message', v.message);
      out.stack = walk('stack', v.stack);
      if (v.cause !== undefined) out.cause = walk('cause', v.cause);
    }
    for (const [k, item] of Object.entries(v)) out[k] = walk(k, item);
    return out;
  };

  return walk('', value);
}
