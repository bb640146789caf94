/**
 * routeFor (issue 42, DESIGN.md section 9.2) over random rules and draws: the first provider's frequencies match
 * the split, every answer is a permutation of the rule's providers with the others in the rule's order, a 100/0
 * split always puts the first provider first, and every rule the generator makes is one the document accepts.
 * Replay a failure with FC_SEED / FC_PATH (test/support/env.ts).
 */
import fc from 'fast-check';
import { COUNTRY_CODES } from '../../shared/domain/geo';
import {
  PROVIDERS_BY_KIND,
  ROUTING_KINDS,
  routeFor,
  ruleProblems,
  type RouteRule,
  type RoutingKind,
} from '../../shared/adapters/providers/routing';

/** Integer weights summing to 100, one per provider (zeros included). */
const splitOf = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 100 }), { minLength: n - 1, maxLength: n - 1 }).map((cuts) => {
    const points = [0, ...[...cuts].sort((a, b) => a - b), 100];
    return points.slice(1).map((p, i) => p - points[i]!);
  });

/** A valid rule for a kind: some of the providers that serve it, in any order, with or without a split. */
const ruleArb = fc.constantFrom(...ROUTING_KINDS).chain((kind) =>
  fc.shuffledSubarray([...PROVIDERS_BY_KIND[kind]], { minLength: 1 }).chain((providers) =>
    fc.record({
      kind: fc.constant<RoutingKind>(kind),
      rule: fc.option(splitOf(providers.length), { nil: undefined }).map((split) => ({ providers, split })),
    }),
  ),
);
const withSplit = ruleArb.filter(({ rule }) => rule.split !== undefined) as fc.Arbitrary<{ kind: RoutingKind; rule: Required<RouteRule> }>;
const country = fc.constantFrom(...COUNTRY_CODES);
/** A draw in [0, 1), edges included (0 and just under 1). */
const draw = fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.constantFrom(0, 1 - Number.EPSILON / 2));

/** A small deterministic generator (mulberry32), seeded by fast-check so a failure replays. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const DRAWS = 4000;
/** 0.05 is about 6 standard deviations of a share over 4000 draws (at most 0.0079): a false failure is ~1e-9. */
const TOLERANCE = 0.05;

describe('routeFor, over random rules', () => {
  it('the generator makes only rules the document accepts', () => {
    fc.assert(fc.property(ruleArb, ({ kind, rule }) => expect(ruleProblems('r', kind, rule)).toEqual([])));
  });

  it('every answer is the rule providers, the drawn one first and the others in the rule order', () => {
    fc.assert(
      fc.property(ruleArb, country, draw, fc.boolean(), ({ kind, rule }, c, r, asMerchant) => {
        const got = asMerchant
          ? routeFor(undefined, kind, c, { merchant: rule, random: () => r })
          : routeFor({ [kind]: { '*': rule } }, kind, c, { random: () => r });
        expect(got).not.toBeNull();
        expect([...got!].sort()).toEqual([...rule.providers].sort());
        const first = (rule.providers as readonly string[]).indexOf(got![0]!);
        expect(got!.slice(1)).toEqual(rule.providers.filter((_, i) => i !== first));
        if (!rule.split) expect(got).toEqual(rule.providers);
        else expect(rule.split[first]).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('a 100/0 split always puts the first provider first', () => {
    fc.assert(
      fc.property(ruleArb, country, draw, ({ kind, rule }, c, r) => {
        const split = rule.providers.map((_, i) => (i === 0 ? 100 : 0));
        expect(routeFor({ [kind]: { [c]: { ...rule, split } } }, kind, c, { random: () => r })![0]).toBe(rule.providers[0]);
      }),
      { numRuns: 500 },
    );
  });

  it(`over ${DRAWS} random draws, each provider goes first in its split's share (within ${TOLERANCE})`, () => {
    fc.assert(
      fc.property(withSplit, country, fc.integer(), ({ kind, rule }, c, seed) => {
        const random = mulberry32(seed);
        const firsts = new Map<string, number>();
        for (let i = 0; i < DRAWS; i++) {
          const first = routeFor({ [kind]: { [c]: rule } }, kind, c, { random })![0]!;
          firsts.set(first, (firsts.get(first) ?? 0) + 1);
        }
        rule.providers.forEach((p, i) => {
          const share = (firsts.get(p) ?? 0) / DRAWS;
          expect(Math.abs(share - rule.split[i]! / 100)).toBeLessThanOrEqual(TOLERANCE);
          if (rule.split[i] === 0) expect(firsts.has(p)).toBe(false);
        });
      }),
      { numRuns: 100 },
    );
  });
});
