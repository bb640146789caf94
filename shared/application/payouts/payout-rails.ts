/**
 * Which provider pays a live payout method (DESIGN.md 8 and 9.2): one table (LIVE_PAYOUT_RAILS) names the rail of each
 * method code, the stage's configuration fills each rail with its provider's connector (PIX payouts with several, in
 * the document's order), and a payout's candidates follow the routing rule of its kind.
 */
import type { findPayoutMethod, PayoutMethodCode } from '../../domain/catalog/payout-methods';
import type { Payout } from '../../domain/payouts/payout';
import type { Connectors, MerchantRouting, PayoutConnector } from '../providers';
import { candidatesOf, type PlannedAttempt } from '../routing';
import type { PayoutDeps } from './payout-transition';

type PayoutMethod = NonNullable<ReturnType<typeof findPayoutMethod>>;

/** The live rails a payout method can take (a kind of Connectors, filled by the configured provider). */
export type PayoutRail = 'speiPayouts' | 'pixPayouts' | 'bankPayouts';

/**
 * The payout-connector table: which rail pays each method live. SPEI to a CLABE (Mexico), PIX by key (Brazil),
 * bank transfers to an account, CVU or CBU (Peru, Argentina, Colombia). A method whose rail no configured
 * provider fills is METHOD_NOT_AVAILABLE live.
 */
export const LIVE_PAYOUT_RAILS: Readonly<Record<PayoutMethodCode, PayoutRail>> = {
  'svc-mt-5': 'pixPayouts',
  'svc-mt-6': 'bankPayouts',
  'svc-mt-30': 'speiPayouts',
  'svc-mt-31': 'bankPayouts',
  'svc-mt-32': 'bankPayouts',
};

/** The rail of a method code, or null when no live rail pays it. */
export const payoutRailOf = (methodCode: string): PayoutRail | null => LIVE_PAYOUT_RAILS[methodCode as PayoutMethodCode] ?? null;

/** The routed kind of a payout rail (its breakers and routing rules); only PIX payouts have a second provider. */
const ROUTED_RAIL: Partial<Record<PayoutRail, string>> = { pixPayouts: 'pix_payout' };
export const payoutKindOf = (rail: PayoutRail) => ROUTED_RAIL[rail] ?? rail;

/** The configured connectors of a rail, in the document's fixed order (a routed rail has several). */
function railConnectors(c: Connectors | null | undefined, rail: PayoutRail): readonly PayoutConnector[] {
  if (rail === 'pixPayouts' && c?.pixPayoutRails?.length) return c.pixPayoutRails;
  const one = c?.[rail];
  return one ? [one] : [];
}

/**
 * The live connectors that may pay this method for this merchant, in the order to try (DESIGN.md 9.2): the routing
 * rule's order (the merchant's override first), else the rail's first configured provider alone. Empty: none.
 */
export async function livePayoutCandidates(
  deps: Pick<PayoutDeps, 'connectors'>,
  method: PayoutMethod,
  merchantRouting?: MerchantRouting,
): Promise<Array<PlannedAttempt<PayoutConnector>>> {
  const rail = payoutRailOf(method.method_code);
  if (!rail) return [];
  const c = await deps.connectors?.forMode(true);
  const rails = railConnectors(c, rail).map((r) => ({ name: r.provider.name, rail: r }));
  if (rails.length === 0) return [];
  return candidatesOf({ kind: payoutKindOf(rail), country: method.country, rails, route: c?.route, merchantRouting });
}

/**
 * The connector of a payout already sent: its method's rail, filled by the provider the payout was sent to (a rail
 * moved to another provider leaves it for an operator: never sent twice elsewhere).
 */
export function connectorOfPayout(connectors: Connectors | null | undefined, p: Payout): PayoutConnector | null {
  const rail = payoutRailOf(p.method_code);
  if (!rail || !p.provider) return null;
  return railConnectors(connectors, rail).find((c) => c.provider.name === p.provider?.name) ?? null;
}
