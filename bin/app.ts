/**
 * The CDK app: `npx cdk synth -c stage=sandbox|live` (default sandbox).
 * Stacks: LatamPayments-<stage>-Stateful and LatamPayments-<stage>-Stateless.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app';
import { parseStage } from '../lib/stage-config';

const app = new App();
buildApp(app, parseStage(app.node.tryGetContext('stage')));
