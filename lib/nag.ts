/**
 * The compliance packs every stack is checked with: cdk-nag's AwsSolutions and PCI DSS 3.2.1. bin/app.ts
 * applies them to the app `cdk synth` and `cdk deploy` build (an unsuppressed error fails both); the tests
 * apply the same packs, so a pack added here is tested too.
 */
import { Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks, PCIDSS321Checks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** `reports: false` in tests: no NagReport CSV files written per synthesis. */
export function applyNagPacks(scope: IConstruct, options: { readonly reports?: boolean } = {}): void {
  const reports = options.reports ?? true;
  Aspects.of(scope).add(new AwsSolutionsChecks({ verbose: true, reports }));
  Aspects.of(scope).add(new PCIDSS321Checks({ verbose: true, reports }));
}
