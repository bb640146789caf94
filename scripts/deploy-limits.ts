/**
 * `npm run limits`: for each stage, as built and with the next routes and providers (lib/deploy-limits-synth.ts NEXT),
 * the largest figure of every deploy limit (lib/deploy-limits.ts): where it is and its share of the limit, as a
 * markdown table (BENCHMARKS.md "Deploy limits"). Then every stack's resources and template size. Offline: synth only,
 * bundling skipped. `npm run limits -- live` for one stage.
 */
import { largest, LIMITS, measure, share, type Figure } from '../lib/deploy-limits';
import { NEXT, synthesizeStage, type Projection } from '../lib/deploy-limits-synth';
import { isStage, STAGES } from '../lib/stage-config';

const n = (x: number) => x.toLocaleString('en-US');
const pct = (f: Figure) => `${(share(f) * 100).toFixed(1)}%`;

function table(figures: readonly Figure[]): string[] {
  const rows = largest(figures).map((f) => {
    const l = LIMITS[f.limit];
    return `| ${l.what} | ${n(l.max)} ${l.unit} | ${n(f.value)} | ${pct(f)} | ${f.where} |`;
  });
  return ['| limit | max | largest figure | % of limit | where |', '|---|---:|---:|---:|---|', ...rows];
}

function stacks(figures: readonly Figure[]): string[] {
  const of = (limit: Figure['limit']) => figures.filter((f) => f.limit === limit);
  const bytes = new Map(of('templateBytes').map((f) => [f.where, f]));
  return [
    '| stack | resources | template bytes |',
    '|---|---:|---:|',
    ...of('stackResources').map((r) => {
      const b = bytes.get(r.where)!;
      return `| ${r.where} | ${n(r.value)} (${pct(r)}) | ${n(b.value)} (${pct(b)}) |`;
    }),
  ];
}

const stages = process.argv.slice(2).filter(isStage);
const label = (p?: Projection) =>
  p ? `with ${p.callbacks} more provider callbacks, ${p.routes} more route, providers ${p.providers.join(', ')}` : 'as built';
for (const stage of stages.length > 0 ? stages : STAGES) {
  for (const projection of [undefined, NEXT]) {
    const figures = measure(synthesizeStage(stage, projection));
    console.log(`\n### ${stage}, ${label(projection)}\n`);
    console.log([...table(figures), '', ...stacks(figures)].join('\n'));
  }
}
