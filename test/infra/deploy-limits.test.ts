/**
 * Deploy limits `cdk synth` does not check (lib/deploy-limits.ts): both stages, synthesized as `cdk deploy`
 * synthesizes them, every metered provider configured, stay under 90% of every limit, and still do once the next
 * routes and providers arrive (lib/deploy-limits-synth.ts NEXT). The measuring functions are proven on small
 * templates that break each limit.
 */
import { largest, LIMITS, measure, overLimit, type Figure, type LimitId } from '../../lib/deploy-limits';
import { NEXT, synthesizeStage } from '../../lib/deploy-limits-synth';
import { STAGES } from '../../lib/stage-config';
import type { CfnResource, StackTemplate } from '../../lib/template-values';

const TRIPWIRE = 0.9;

describe.each(STAGES)('%s stage', (stage) => {
  test.each([
    ['as built', undefined],
    [`with ${NEXT.callbacks} more provider callbacks, ${NEXT.routes} more route, the ${NEXT.providers.join(' and ')} providers`, NEXT],
  ] as const)(
    'every figure under 90%% of its limit, %s',
    (_label, projection) => {
      const figures = measure(synthesizeStage(stage, projection));
      // Each limit was measured (a figure silently missing would pass anything).
      const measured = new Set(largest(figures).map((f) => f.limit));
      for (const id of Object.keys(LIMITS) as LimitId[]) expect([id, measured.has(id)]).toEqual([id, true]);
      expect(overLimit(figures, TRIPWIRE)).toEqual([]);
    },
    240_000,
  );
});

const stack = (name: string, resources: Record<string, CfnResource>, extra: Partial<StackTemplate> = {}): StackTemplate => ({
  name,
  template: { Resources: resources },
  bytes: 1000,
  ...extra,
});
const figure = (figures: Figure[], limit: LimitId, where: string) => figures.find((f) => f.limit === limit && f.where === where)?.value;

describe('the measures, on templates that break each limit', () => {
  test('resources, template size, outputs: the stack is named with its figure', () => {
    const resources = Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`Topic${i}`, { Type: 'AWS::SNS::Topic' }]));
    const outputs = Object.fromEntries(Array.from({ length: 181 }, (_, i) => [`Out${i}`, { Value: 'x' }]));
    const big = stack('Big', resources, { bytes: 1_000_000 });
    const figures = measure([{ ...big, template: { ...big.template, Outputs: outputs } }]);
    expect(overLimit(figures, TRIPWIRE)).toEqual([
      'Big: resources per stack 501 of 500 resources (100.2%)',
      'Big: template body per stack (S3-hosted: cdk deploy uploads it) 1,000,000 of 1,048,576 bytes (95.4%)',
      'Big: outputs per stack 181 of 200 outputs (90.5%)',
    ]);
    expect(overLimit(measure([stack('Small', { T: { Type: 'AWS::SNS::Topic' } })]), TRIPWIRE)).toEqual([]);
  });

  test('a function environment is measured as Lambda does, with references resolved (a queue URL, a table name)', () => {
    const s = stack('Env', {
      Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'q' } },
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: { Environment: { Variables: { URL: { Ref: 'Queue' }, BIG: 'v'.repeat(3700) } } },
      },
    });
    const value = figure(measure([s]), 'lambdaEnvironment', 'Env/Fn')!;
    const url = 'https://sqs.xx-xxxxxxxxx-1.amazonaws.com/123456789012/q';
    expect(value).toBe(JSON.stringify({ URL: url, BIG: 'v'.repeat(3700) }).length);
    expect(overLimit(measure([s]), TRIPWIRE)).toEqual([
      `Env/Fn: environment variables per function ${value.toLocaleString('en-US')} of 4,096 bytes (${((value / 4096) * 100).toFixed(1)}%)`,
    ]);
  });

  test("a role's inline policies add up (whitespace not counted), wherever the policy is attached from", () => {
    const statement = (i: number) => ({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: `arn:aws:sqs:r:1:queue ${i}` });
    const document = (n: number) => ({ Version: '2012-10-17', Statement: Array.from({ length: n }, (_, i) => statement(i)) });
    const s = stack('Iam', {
      Role: { Type: 'AWS::IAM::Role', Properties: { AssumeRolePolicyDocument: {}, Policies: [{ PolicyDocument: document(60) }] } },
      Policy: { Type: 'AWS::IAM::Policy', Properties: { Roles: [{ Ref: 'Role' }], PolicyDocument: document(60) } },
    });
    const chars = 2 * JSON.stringify(document(60)).replace(/\s/g, '').length;
    expect(chars).toBeGreaterThan(LIMITS.roleInlinePolicies.max * TRIPWIRE);
    expect(figure(measure([s]), 'roleInlinePolicies', 'Iam/Role')).toBe(chars);
    expect(overLimit(measure([s]), TRIPWIRE)[0]).toMatch(/^Iam\/Role: inline policies per role, all together/);
  });

  test("a function's permissions add up to its resource-based policy", () => {
    const permission = (i: number): CfnResource => ({
      Type: 'AWS::Lambda::Permission',
      Properties: {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': ['Fn', 'Arn'] },
        Principal: 'apigateway.amazonaws.com',
        SourceArn: { 'Fn::Join': ['', ['arn:aws:execute-api:', { Ref: 'AWS::Region' }, `:1:api/*/*/route/${i}`]] },
      },
    });
    const permissions = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`Permission${i}`, permission(i)]));
    // Two functions with generated names in one stack: each permission counts for its own function only.
    const other = { ...permission(0), Properties: { ...permission(0).Properties, FunctionName: { 'Fn::GetAtt': ['Other', 'Arn'] } } };
    const s = stack('Perm', {
      Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
      Other: { Type: 'AWS::Lambda::Function', Properties: {} },
      OtherPermission: other,
      ...permissions,
    });
    const value = figure(measure([s]), 'lambdaPolicy', 'Perm/Fn')!;
    expect(value).toBeGreaterThan(LIMITS.lambdaPolicy.max * TRIPWIRE);
    expect(figure(measure([s]), 'lambdaPolicy', 'Perm/Other')).toBeLessThan(value / 50);
    expect(overLimit(measure([s]), TRIPWIRE)).toEqual([expect.stringMatching(/^Perm\/Fn: resource-based policy per function/)]);
  });

  test('routes and integrations count per API, across a stack and its nested stacks', () => {
    const routes = (n: number, api: unknown) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          [`Route${i}`, { Type: 'AWS::ApiGatewayV2::Route', Properties: { ApiId: api } }],
          [`Integration${i}`, { Type: 'AWS::ApiGatewayV2::Integration', Properties: { ApiId: api } }],
        ]).flat(),
      );
    const parent = stack('Api', {
      Api: { Type: 'AWS::ApiGatewayV2::Api' },
      Nested: { Type: 'AWS::CloudFormation::Stack', Properties: { Parameters: { ApiId: { Ref: 'Api' } } } },
      ...routes(200, { Ref: 'Api' }),
    });
    const nested: StackTemplate = {
      ...stack('Api/Nested', routes(80, { Ref: 'ApiId' })),
      template: { Parameters: { ApiId: {} }, Resources: routes(80, { Ref: 'ApiId' }) },
      parent: { name: 'Api', logicalId: 'Nested' },
    };
    expect(overLimit(measure([parent, nested]), TRIPWIRE)).toEqual([
      'Api/Api: routes per HTTP API 280 of 300 routes (93.3%)',
      'Api/Api: integrations per HTTP API 280 of 300 integrations (93.3%)',
    ]);
  });

  test('a dashboard query over too many log groups, an alarm with too long a description', () => {
    const query = Array.from({ length: 46 }, (_, i) => `SOURCE 'group-${i}'`).join(' | ');
    const body = JSON.stringify({ widgets: [{ type: 'log', properties: { title: 'Cold', query } }] });
    const s = stack('Mon', {
      Dash: { Type: 'AWS::CloudWatch::Dashboard', Properties: { DashboardBody: body } },
      Alarm: { Type: 'AWS::CloudWatch::Alarm', Properties: { AlarmDescription: 'd'.repeat(1000) } },
    });
    expect(overLimit(measure([s]), TRIPWIRE)).toEqual([
      'Mon/Alarm: alarm description 1,000 of 1,024 characters (97.7%)',
      'Mon/Dash "Cold": log groups per Logs Insights widget 46 of 50 log groups (92.0%)',
    ]);
  });
});
