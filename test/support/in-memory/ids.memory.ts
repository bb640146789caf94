/** Deterministic ids of the real shape (prefix + 22 URL-safe characters), so generated runs replay exactly. */
import type { IdGenerator, SecretGenerator } from '../../../shared/application/ports';
import { sha256Hex } from '../../../shared/adapters/crypto';
import { KEY_PREFIX } from '../../../shared/domain/merchant';

export class SequentialIds implements IdGenerator {
  private n = 0;
  readonly issued: string[] = [];

  /** `seed` keeps the ids of two worlds sharing a table (the DynamoDB run) apart: up to 6 URL-safe characters. */
  constructor(private readonly seed = 'mem') {
    if (!/^[A-Za-z0-9_-]{1,6}$/.test(seed)) throw new Error(`bad id seed ${seed}`);
  }

  newId(prefix: string): string {
    this.n++;
    const id = `${prefix}${this.seed}${String(this.n).padStart(22 - this.seed.length, '0')}`;
    this.issued.push(id);
    return id;
  }
}

/** Secrets with the real prefixes, counted rather than random; hashes are the real SHA-256. */
export function sequentialSecrets(seed = 'mem'): SecretGenerator {
  let n = 0;
  return {
    apiKey: (mode) => `${KEY_PREFIX[mode]}${seed}${String(++n).padStart(43 - seed.length, '0')}`,
    webhookSecret: () => `whsec_${Buffer.from(String(++n).padStart(32, '0')).toString('base64')}`,
    hashKey: sha256Hex,
  };
}
