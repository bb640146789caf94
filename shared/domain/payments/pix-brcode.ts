/**
 * PIX BR Code (EMV QRCPS merchant-presented payload, Manual de Padrões para Iniciação do Pix, DESIGN.md 6).
 * We build the static-with-amount form: the key and amount travel in the code itself.
 */
export interface PixBrCodeInput {
  /** PIX key: CPF/CNPJ digits, email, +55 phone or random key (EVP UUID). */
  pixKey: string;
  merchantName: string;
  merchantCity: string;
  /** In reais (major units), e.g. 10.5. */
  amount: number;
  /** 1-25 letters or digits. */
  txid: string;
  description?: string;
}

/** CRC16-CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR; 4 uppercase hex. */
export function crc16CcittFalse(s: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(s, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** One TLV element: 2-digit id, 2-digit length, value. */
export function emvField(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new RangeError(`EMV id must be 2 digits: ${id}`);
  if (value.length > 99) throw new RangeError(`EMV field ${id} is longer than 99 characters`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** Minimal TLV reader: top-level id → value (templates such as 26 and 62 can be parsed again). Throws if malformed. */
export function parseEmv(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < s.length) {
    const id = s.slice(i, i + 2);
    const len = s.slice(i + 2, i + 4);
    if (!/^\d{2}$/.test(id) || !/^\d{2}$/.test(len)) throw new Error(`malformed EMV element at position ${i}`);
    const end = i + 4 + Number(len);
    if (end > s.length) throw new Error(`EMV element ${id} runs past the end`);
    out[id] = s.slice(i + 4, end);
    i = end;
  }
  return out;
}

/** True when the payload ends in a 6304 CRC element that matches everything before it. */
export function isValidBrCodeCrc(code: string): boolean {
  if (code.length < 8 || code.slice(-8, -4) !== '6304') return false;
  return crc16CcittFalse(code.slice(0, -4)) === code.slice(-4).toUpperCase();
}

/** Printable ASCII only: accents stripped (São Paulo → Sao Paulo, nº → no), other characters dropped, spaces collapsed. */
export function emvText(s: string, max: number): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
}

const GUI = 'br.gov.bcb.pix';

/**
 * Whether a payload is a Pix BR Code a payer's bank app can pay (what a provider answers as the copy-and-paste code):
 * an EMV merchant-presented payload opening with the payload format indicator (00 02 01), a merchant account template
 * (26 to 51) carrying the Pix GUI, BRL (53 = 986), BR (58), and a CRC16 (63) that matches. A ticket number, an
 * image, a URL or another scheme's QR is not.
 */
export function isPixBrCode(code: string): boolean {
  if (!code.startsWith('000201') || !isValidBrCodeCrc(code)) return false;
  const tlv = (s: string): Record<string, string> | null => {
    try {
      return parseEmv(s);
    } catch {
      return null;
    }
  };
  const top = tlv(code);
  if (!top || top['53'] !== '986' || top['58'] !== 'BR') return false;
  return Object.entries(top).some(([id, value]) => {
    const n = Number(id);
    return n >= 26 && n <= 51 && tlv(value)?.['00']?.toLowerCase() === GUI;
  });
}

export function buildPixBrCode(input: PixBrCodeInput): string {
  const key = input.pixKey.trim();
  if (key === '' || key.length > 77 || /[^\x21-\x7e]/.test(key)) throw new RangeError('pixKey must be 1-77 printable characters');
  if (!/^[A-Za-z0-9]{1,25}$/.test(input.txid)) throw new RangeError('txid must be 1-25 letters or digits');
  if (!Number.isFinite(input.amount) || input.amount <= 0) throw new RangeError('amount must be a positive number');
  const amount = input.amount.toFixed(2);
  if (amount.length > 13) throw new RangeError('amount too large for a BR Code');
  const name = emvText(input.merchantName, 25);
  const city = emvText(input.merchantCity, 15);
  if (name === '' || city === '') throw new RangeError('merchantName and merchantCity must not be empty');

  let account = emvField('00', GUI) + emvField('01', key);
  // Merchant account information holds at most 99 characters: the description gets what is left.
  const room = 99 - account.length - 4;
  const description = input.description ? emvText(input.description, Math.max(0, room)) : '';
  if (description) account += emvField('02', description);

  const payload =
    emvField('00', '01') +
    emvField('01', '12') +
    emvField('26', account) +
    emvField('52', '0000') +
    emvField('53', '986') +
    emvField('54', amount) +
    emvField('58', 'BR') +
    emvField('59', name) +
    emvField('60', city) +
    emvField('62', emvField('05', input.txid)) +
    '6304';
  return payload + crc16CcittFalse(payload);
}

/**
 * A Pix Automático recurrence QR (Jornada 2): no amount and no key in the code itself; the payer's bank reads the
 * recurrence at its location (field 80, `br.gov.bcb.pix` and the URL without its scheme), as the central bank's
 * API Pix 2.9.0 examples show it (`dadosQR.pixCopiaECola`).
 */
export function buildRecurrenceBrCode(input: { merchantName: string; merchantCity: string; location: string }): string {
  const location = input.location.replace(/^https?:\/\//i, '');
  if (location === '' || location.length > 77) throw new RangeError('location must be 1-77 characters without its scheme');
  const payload =
    emvField('00', '01') +
    emvField('26', emvField('00', GUI)) +
    emvField('52', '0000') +
    emvField('53', '986') +
    emvField('58', 'BR') +
    emvField('59', emvText(input.merchantName, 25)) +
    emvField('60', emvText(input.merchantCity, 15)) +
    emvField('62', emvField('05', '***')) +
    emvField('80', emvField('00', GUI) + emvField('25', location)) +
    '6304';
  return payload + crc16CcittFalse(payload);
}
