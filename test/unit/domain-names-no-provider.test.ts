/**
 * DESIGN.md section 8: no provider name appears in shared/domain (the providers are adapters behind the connector
 * interfaces). Wallet and card brands a shopper chooses (Mercado Pago, PicPay, NuPay; Visa, Elo) are instruments, not
 * the providers that process them, and may appear.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const PROVIDER_WORDS = /\b(adyen|dlocal|binance|efí|efi|gerencianet|stp|api_pix|api-pix)\b/i;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('shared/domain names no provider', () => {
  it('no line of shared/domain mentions a provider', () => {
    const found = files(join(process.cwd(), 'shared/domain')).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ at: `${f.slice(process.cwd().length + 1)}:${i + 1}`, line }))
        .filter(({ line }) => PROVIDER_WORDS.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });

  it('the check finds a provider word when there is one', () => {
    expect(PROVIDER_WORDS.test("const rail = 'dlocal';")).toBe(true);
    expect(PROVIDER_WORDS.test('defines a benefit; the step')).toBe(false);
  });
});
