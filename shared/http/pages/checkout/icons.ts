/** Inline SVG icons of the payment methods (no remote images); decorative, so aria-hidden. */
import type { PaymentMethod } from '../../../domain/payments/payment';

const ATTRS = 'viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false" fill="none"';
const svg = (body: string, color: string) =>
  `<svg ${ATTRS} stroke="${color}" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;

/** A bank and an arrow out to it: the shopper pays on their bank's page (PSE, Peru's online banking). */
const BANK_REDIRECT = svg(
  '<path d="M3 12l10-6 10 6M5 12v10M10 12v10M15 12v10M20 12v10M2 26h22"/><path d="M23 19h7M27 16l3 3-3 3"/>',
  '#0b6e99',
);

export const METHOD_ICONS: Readonly<Record<PaymentMethod, string>> = {
  pix: svg(
    '<path d="M16 3l5.5 5.5-5.5 5.5-5.5-5.5zM16 18l5.5 5.5L16 29l-5.5-5.5zM3 16l5.5-5.5L14 16l-5.5 5.5zM18 16l5.5-5.5L29 16l-5.5 5.5z"/>',
    '#1f8f84',
  ),
  card: svg('<rect x="3" y="7" width="26" height="18" rx="3"/><path d="M3 12h26M7 20h6"/>', '#0a5cd5'),
  boleto: svg('<path d="M5 7v18M8 7v18M12 7v18M14 7v18M18 7v18M22 7v18M24 7v18M27 7v18"/>', '#1a1f36'),
  spei: svg('<path d="M4 12l12-7 12 7M6 12v11M11 12v11M16 12v11M21 12v11M26 12v11M3 27h26"/>', '#7a3db8'),
  bank_transfer: svg('<path d="M4 12l12-7 12 7M6 12v11M11 12v11M16 12v11M21 12v11M26 12v11M3 27h26"/>', '#7a3db8'),
  pse: BANK_REDIRECT,
  payin: BANK_REDIRECT,
  cip: svg('<path d="M8 3h16v26l-4-3-4 3-4-3-4 3z"/><path d="M12 10h8M12 15h8M12 20h5"/>', '#b34700'),
  cash: svg('<rect x="3" y="8" width="26" height="16" rx="2"/><circle cx="16" cy="16" r="4"/><path d="M7 12v0M25 20v0"/>', '#1d7a3a'),
  wallet: svg(
    '<path d="M5 9h20a3 3 0 013 3v12a3 3 0 01-3 3H6a2 2 0 01-2-2V8a3 3 0 013-3h15"/><circle cx="22" cy="18" r="1.5"/>',
    '#a3156e',
  ),
  // A coin with the tether's T: USDT.
  crypto: svg('<circle cx="16" cy="16" r="12"/><path d="M10 10h12M16 10v13M11 15c3 1.5 7 1.5 10 0"/>', '#26a17b'),
};

/** Favicon as a data URI, so the browser does not ask for /favicon.ico (a 404 in the console). */
export const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E" +
  "%3Crect width='32' height='32' rx='8' fill='%230a5cd5'/%3E" +
  "%3Cpath d='M9 17l5 5 9-11' stroke='white' stroke-width='3' fill='none'/%3E%3C/svg%3E";
