/**
 * The CDK app: `npx cdk synth -c stage=sandbox|live` (default sandbox).
 * Stacks: LatamPayments-<stage>-Stateful and LatamPayments-<stage>-Stateless.
 * cdk-nag checks every stack with the AwsSolutions and PCI DSS 3.2.1 packs: an unsuppressed error
 * fails `cdk synth` and `cdk deploy`, a warning is printed (`--strict` fails on it too); the
 * suppressions sit next to their resources in lib/, test/infra/nag.test.ts keeps both at zero, and
 * each stack's report (every rule: compliant or suppressed, with the reason) is cdk.out/*-NagReport.csv.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app';
import { applyNagPacks } from '../lib/nag';
import { parseStage } from '../lib/stage-config';

const app = new App();
buildApp(app, parseStage(app.node.tryGetContext('stage')));
applyNagPacks(app);
