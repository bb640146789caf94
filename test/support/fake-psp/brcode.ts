/**
 * The dynamic BR Code a PSP returns as pixCopiaECola: merchant account information (26) with the Pix GUI and
 * the payload location URL (25) instead of a key, the amount, name and city, txid *** in 62 (the txid is
 * in the payload the location serves), and the CRC16. Built with the project's EMV helpers.
 */
import { crc16CcittFalse, emvField } from '../../../shared/domain/payments/pix-brcode';

export function dynamicBrCode(location: string, amount: string, merchantName = 'LOJA AO VIVO', city = 'SAO PAULO'): string {
  const body =
    emvField('00', '01') +
    emvField('01', '12') +
    emvField('26', emvField('00', 'br.gov.bcb.pix') + emvField('25', location)) +
    emvField('52', '0000') +
    emvField('53', '986') +
    emvField('54', amount) +
    emvField('58', 'BR') +
    emvField('59', merchantName) +
    emvField('60', city) +
    emvField('62', emvField('05', '***')) +
    '6304';
  return body + crc16CcittFalse(body);
}

/**
 * A recurrence's QR (Jornada 2, the shape of API Pix 2.9.0's dadosQR example): no amount, no location in 26, and
 * field 80 carrying the Pix GUI and the recurrence's location URL (25).
 */
export function recurrenceBrCode(location: string, merchantName = 'LOJA AO VIVO', city = 'SAO PAULO'): string {
  const body =
    emvField('00', '01') +
    emvField('26', emvField('00', 'br.gov.bcb.pix')) +
    emvField('52', '0000') +
    emvField('53', '986') +
    emvField('58', 'BR') +
    emvField('59', merchantName) +
    emvField('60', city) +
    emvField('62', emvField('05', '***')) +
    emvField('80', emvField('00', 'br.gov.bcb.pix') + emvField('25', location)) +
    '6304';
  return body + crc16CcittFalse(body);
}
