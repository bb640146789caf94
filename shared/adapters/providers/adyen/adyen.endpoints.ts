/**
 * Where Adyen's APIs live, from the `adyen` block (no imports: the providers document's checks use it too).
 *
 * The Disputes API (DisputeService v30) is not on the Checkout host: Adyen serves it from its Customer Area host,
 * `https://ca-test.adyen.com/ca/services/DisputeService/v30` (the spec's server) in test and
 * `https://ca-live.adyen.com/ca/services/DisputeService/v30` in live (Adyen's libraries build it as
 * `https://ca-{env}.adyen.com/ca/services/DisputeService` with no live URL prefix). So when the block has no
 * `disputes_base_url` it is derived from `base_url`:
 * - `checkout-test.adyen.com` (Adyen's test Checkout) -> the test Disputes API;
 * - `<prefix>-checkout-live[-<region>].adyenpayments.com` (Adyen's live Checkout) -> the live Disputes API;
 * - any other host (the fake Adyen, a forwarding proxy) -> the same origin under `/ca/services/DisputeService/v30`.
 * A merchant account on a location-based live data center may have another Customer Area host: set `disputes_base_url`
 * to the Disputes API URL its Customer Area lists (Developers > API URLs).
 */

export const DISPUTES_PATH = '/ca/services/DisputeService/v30';
export const ADYEN_DISPUTES_TEST = `https://ca-test.adyen.com${DISPUTES_PATH}`;
export const ADYEN_DISPUTES_LIVE = `https://ca-live.adyen.com${DISPUTES_PATH}`;

/** Which of Adyen's environments a URL's host belongs to, or null when it is not one of Adyen's API hosts. */
export function adyenEnvironmentOf(url: string): 'test' | 'live' | null {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
  if (host === 'checkout-test.adyen.com' || host === 'ca-test.adyen.com') return 'test';
  if (/^[a-z0-9]+(-[a-z0-9]+)*-checkout-live(-[a-z]+)?\.adyenpayments\.com$/.test(host)) return 'live';
  if (/^ca-live(-[a-z]+)?\.adyen\.com$/.test(host)) return 'live';
  return null;
}

/** The Disputes API root for a block: its own `disputes_base_url`, else derived from `base_url` (above). No trailing slash. */
export function disputesBaseUrlOf(cfg: { base_url: string; disputes_base_url?: string }): string {
  if (cfg.disputes_base_url) return cfg.disputes_base_url.replace(/\/+$/, '');
  switch (adyenEnvironmentOf(cfg.base_url)) {
    case 'test':
      return ADYEN_DISPUTES_TEST;
    case 'live':
      return ADYEN_DISPUTES_LIVE;
    default:
      return `${new URL(cfg.base_url).origin}${DISPUTES_PATH}`;
  }
}
