/**
 * CDK's built-in CloudFormation validation (aws-cdk-lib's "CloudFormation Validate" plugin, run by every synth
 * unless CDK_VALIDATION=false) finds nothing in either stage's templates, edge stack included. The other
 * infra tests synthesize with it off (test/support/env.ts): it costs ~8 s of CPU per test file, and by
 * default it only prints its findings as warnings; here they fail the test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { buildApp } from '../../lib/app';
import { STAGES, type Stage } from '../../lib/stage-config';

jest.setTimeout(180_000);

interface Violation {
  readonly ruleName: string;
  readonly description: string;
  readonly violatingConstructs: { constructPath: string }[];
}

/** Synthesizes with the validation on; `<construct path>: <rule> <description>` per finding. */
function validate(build: (app: App) => void, context: Record<string, unknown> = {}): string[] {
  const outdir = mkdtempSync(join(tmpdir(), 'cfn-validate-'));
  const saved = process.env.CDK_VALIDATION;
  delete process.env.CDK_VALIDATION;
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], ...context } });
    build(app);
    app.synth();
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; violations: Violation[] }[];
    };
    return report.pluginReports.flatMap((r) =>
      r.violations.flatMap((v) => v.violatingConstructs.map((c) => `${c.constructPath}: ${v.ruleName} ${v.description}`)),
    );
  } finally {
    process.env.CDK_VALIDATION = saved;
    if (saved === undefined) delete process.env.CDK_VALIDATION;
    rmSync(outdir, { recursive: true, force: true });
  }
}

test('the validation runs and reports a malformed resource (so a clean report means something)', () => {
  const found = validate((app) => {
    const stack = new Stack(app, 'Malformed');
    new CfnResource(stack, 'Queue', { type: 'AWS::SQS::Queue', properties: { NotAProperty: 1, DelaySeconds: 'soon' } });
  });
  expect(found).toEqual([
    expect.stringMatching(/^Malformed\/Queue: \w+ NotAProperty/),
    expect.stringMatching(/^Malformed\/Queue: \w+ DelaySeconds/),
  ]);
});

const API_HOST = 'a1b2c3d4e5.execute-api.sa-east-1.amazonaws.com';
/** The edge on, as edge.test.ts builds it: the live stage's edge needs its own domain and certificate. */
const EDGE: Record<Stage, Record<string, string>> = {
  sandbox: { edge: 'true', edgeOriginDomain: API_HOST },
  live: {
    edge: 'true',
    edgeOriginDomain: API_HOST,
    edgeDomainName: 'api.payments.example.com',
    edgeCertificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b',
  },
};

test.each(STAGES)('%s stage, edge on: no finding in any template', (stage) => {
  expect(validate((app) => buildApp(app, stage), EDGE[stage])).toEqual([]);
});
