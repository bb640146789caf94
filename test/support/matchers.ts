/** Asymmetric matchers for toEqual/toMatchObject that jest does not ship. */

/** A number from `lo` to `hi`, inclusive: `expect(x).toEqual({ age: between(1, 30) })`. */
export function between(lo: number, hi: number) {
  return {
    asymmetricMatch: (actual: unknown) => typeof actual === 'number' && actual >= lo && actual <= hi,
    toString: () => `between(${lo}, ${hi})`,
    toAsymmetricMatcher: () => `between(${lo}, ${hi})`,
  };
}
