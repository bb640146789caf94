/**
 * cdk-nag on the CDK app, both stages built as stacks.test.ts builds them (bundling skipped) and checked
 * with the packs bin/app.ts applies: AwsSolutions and PCI DSS 3.2.1. Every stack has zero unsuppressed
 * errors and warnings; every suppression names a reason a reviewer can act on. Then what the fixes and the
 * suppressions rely on: customer-managed keys with rotation, no AWS managed policies or Scan on function
 * roles, `Resource: *` for X-Ray only, reserved concurrency from the stage config.
 */
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { buildApp, type BuiltApp } from '../../lib/app';
import { applyNagPacks } from '../../lib/nag';
import { stageConfig, STAGES, type Stage } from '../../lib/stage-config';
import { JOBS } from '../../shared/manifest/jobs';
import { MANIFEST } from '../../lib/manifest';
import { queueDefinitions } from '../../shared/manifest/queues';
import { annotationsOf, templateOf } from '../support/cdk-assertions';

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any> };
interface Suppression {
  readonly id: string;
  readonly reason: string;
  readonly applies_to?: unknown[];
  readonly is_reason_encoded?: boolean;
}

const NAG_RULE = Match.stringLikeRegexp('AwsSolutions-.*|PCI.DSS.321-.*');
/** cdk-nag itself requires 10 characters; a reason a reviewer accepts says what and why. */
const MIN_REASON = 20;

interface Checked extends BuiltApp {
  readonly stacks: Stack[];
}

function buildChecked(stage: Stage): Checked {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const built = buildApp(app, stage);
  applyNagPacks(app, { reports: false });
  app.synth();
  return { ...built, stacks: app.node.findAll().filter((c): c is Stack => Stack.isStack(c)) };
}

/**
 * `<path>: <rule>[<finding>]`, one line per annotation: what a failing run prints. A nested stack's annotations are
 * its parent's (the cloud assembly has no artifact for it), so top-level stacks only.
 */
function findings(stack: Stack, level: 'error' | 'warning'): string[] {
  const annotations = annotationsOf(stack);
  const found = level === 'error' ? annotations.findError('*', NAG_RULE) : annotations.findWarning('*', NAG_RULE);
  return found.map((m) => `${m.id}: ${String(m.entry.data).split(': ')[0]}`);
}

/** Every suppression of a stack's template: the stack's own and each resource's. */
function suppressionsOf(stack: Stack): { where: string; suppression: Suppression }[] {
  const template = templateOf(stack).toJSON() as { Metadata?: Record<string, any>; Resources: Record<string, Resource> };
  const entries: { where: string; rules: Suppression[] }[] = [
    { where: `${stack.stackName} (stack)`, rules: template.Metadata?.cdk_nag?.rules_to_suppress ?? [] },
    ...Object.entries(template.Resources).map(([id, r]) => ({
      where: `${stack.stackName}/${id}`,
      rules: r.Metadata?.cdk_nag?.rules_to_suppress ?? [],
    })),
  ];
  return entries.flatMap(({ where, rules }) =>
    rules.map((s) => ({
      where,
      suppression: s.is_reason_encoded ? { ...s, reason: Buffer.from(s.reason, 'base64').toString('utf8') } : s,
    })),
  );
}

const resourcesOf = (stack: Stack, type: string) => Object.values(templateOf(stack).findResources(type)) as Resource[];
const statementsOf = (stack: Stack) =>
  resourcesOf(stack, 'AWS::IAM::Policy').flatMap(
    (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
  );
const logicalId = (stack: Stack, construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const topLevel = (c: Checked) => c.stacks.filter((s) => !s.nested);
/** The stateless stack and its nested stacks (the workers, the provider callbacks' functions). */
const statelessStacks = (c: Checked) => [c.stateless, c.stateless.workers, c.stateless.providerCallbacks, c.stateless.mandatesAndDisputes];
/** The resources of the stack (top-level or nested) that holds the construct, and its logical id there. */
function placed(construct: IConstruct): { resources: Record<string, Resource>; id: string } {
  const stack = Stack.of(construct);
  return { resources: templateOf(stack).toJSON().Resources as Record<string, Resource>, id: logicalId(stack, construct) };
}

describe.each(STAGES)('%s stage', (stage) => {
  const config = stageConfig(stage);
  let checked: Checked;
  beforeAll(() => {
    checked = buildChecked(stage);
  }, 180_000);

  test('the packs see every stack: the stateful and stateless ones at least', () => {
    const names = checked.stacks.map((s) => s.stackName);
    expect(names).toEqual(expect.arrayContaining([checked.stateful.stackName, checked.stateless.stackName]));
  });

  test('AwsSolutions and PCI DSS 3.2.1: no unsuppressed error in any stack', () => {
    expect(topLevel(checked).flatMap((s) => findings(s, 'error'))).toEqual([]);
  });

  test('AwsSolutions and PCI DSS 3.2.1: no unsuppressed warning in any stack', () => {
    expect(topLevel(checked).flatMap((s) => findings(s, 'warning'))).toEqual([]);
  });

  test(`every suppression names a pack rule and a reason of at least ${MIN_REASON} characters`, () => {
    const all = checked.stacks.flatMap(suppressionsOf);
    expect(all.length).toBeGreaterThan(0);
    const bad = all
      .filter(({ suppression: s }) => !/^(AwsSolutions|PCI\.DSS\.321)-[A-Za-z0-9]+$/.test(s.id) || s.reason.trim().length < MIN_REASON)
      .map(({ where, suppression: s }) => `${where}: ${s.id} "${s.reason}"`);
    expect(bad).toEqual([]);
  });

  test('customer-managed keys with rotation encrypt the table, every queue and DLQ, the alarm topic and every log group', () => {
    const { stateful, stateless } = checked;
    const keys = resourcesOf(stateful, 'AWS::KMS::Key');
    expect(keys).toHaveLength(3); // table, providers, operations (queues, topic, log groups);
    for (const key of keys)
      expect(key.Properties).toMatchObject({ EnableKeyRotation: true, PendingWindowInDays: config.kmsPendingWindowDays });
    const arnOf = (key: IConstruct) => ({ 'Fn::GetAtt': [logicalId(stateful, key), 'Arn'] });
    const t = templateOf(stateful);
    t.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: arnOf(stateful.keys.table) },
    });
    t.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: arnOf(stateful.keys.alarms) });
    const queues = resourcesOf(stateful, 'AWS::SQS::Queue');
    expect(queues).toHaveLength(queueDefinitions().length * 2);
    for (const q of queues) expect(q.Properties.KmsMasterKeyId).toEqual(arnOf(stateful.keys.queues));
    const logGroups = checked.stacks.flatMap((s) => resourcesOf(s, 'AWS::Logs::LogGroup'));
    expect(logGroups.length).toBeGreaterThan(stateless.functions.size);
    for (const g of logGroups) expect(g.Properties.KmsKeyId).toEqual({ 'Fn::ImportValue': expect.stringContaining('KeysOperationsKey') });
    // The live providers document: its own key, kept when the stack goes.
    t.hasResource('AWS::SecretsManager::Secret', {
      Properties: { Name: `latam-payments/${config.stage}/providers`, KmsKeyId: arnOf(stateful.keys.providers), SecretString: '{}' },
      DeletionPolicy: 'Retain',
    });
    // CloudWatch may use the topic's key (an alarm action on an encrypted topic fails silently otherwise).
    t.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } })]) },
    });
  });

  test('only the functions whose manifest entry says providers read the providers secret: that secret, its key via Secrets Manager', () => {
    const { stateless } = checked;
    const readers = new Set([
      ...MANIFEST.routes.filter((r) => r.access.providers).map((r) => r.id),
      ...queueDefinitions()
        .filter((q) => q.consumer?.access.providers)
        .map((q) => `${q.id}Consumer`),
      ...JOBS.filter((j) => j.access.providers).map((j) => `${j.id}Job`),
    ]);
    expect(readers).toEqual(
      new Set([
        'createDirectPayment',
        'getPaymentStatus',
        'processCheckoutPayment',
        'apiPixCallback',
        'apiPixRecurrenceCallback',
        'adyenNotifications',
        'adyenReturn',
        'dlocalNotifications',
        'dlocalReturn',
        'dlocalCardReturn',
        'dlocalChargebacks',
        'binancePayNotifications',
        'binancePayReturn',
        'stpEstadoCallback',
        'stpAbonoCallback',
        'efiPixCallback',
        'dlocalPayoutNotifications',
        'createPayout',
        'createPayoutBatch',
        'payoutsConsumer',
        'reconcileProvidersJob',
        'readPixDisputesJob',
        'createRefund',
        'listMethods',
        'getMethod',
        'getCheckoutSession',
        'checkoutPage',
        'checkoutStatus',
        // Mandates: live recurrences and stored cards are set up, charged and cancelled at the provider.
        'createMandate',
        'cancelMandate',
        'createMandateCharge',
        'mandateApprove',
        // Disputes: the defense reasons read, the evidence checked against them, submitted and accepted at the provider.
        'getDispute',
        'stageDisputeEvidence',
        'submitDispute',
        'acceptDispute',
      ]),
    );
    for (const [key, fn] of stateless.functions) {
      const { resources, id } = placed(fn);
      const env = resources[id]?.Properties.Environment.Variables as Record<string, unknown>;
      expect([key, env.PROVIDERS_SECRET_NAME !== undefined]).toEqual([key, readers.has(key)]);
      const roleId = placed(fn.role!).id;
      const policies = Object.values(resources).filter(
        (r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(roleId),
      );
      const statements = policies.flatMap(
        (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[],
      );
      const secretStatements = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('secretsmanager:')));
      if (!readers.has(key)) {
        expect(secretStatements).toEqual([]);
        continue;
      }
      expect(secretStatements).toEqual([
        {
          Action: 'secretsmanager:GetSecretValue',
          Effect: 'Allow',
          Resource: { 'Fn::ImportValue': expect.stringContaining('ProvidersSecret') },
        },
      ]);
      const decrypt = statements.find((s) => s.Action === 'kms:Decrypt' && JSON.stringify(s.Resource).includes('KeysProvidersKey'));
      expect(decrypt?.Condition).toEqual({ StringEquals: { 'kms:ViaService': expect.anything() } });
    }
  });

  test('function roles: no AWS managed policy, no Scan, Resource * only for X-Ray and ListStreams (the IAM5 suppression)', () => {
    const { stateless } = checked;
    for (const fn of stateless.functions.values()) {
      const { resources, id } = placed(fn.role!);
      const role = resources[id];
      expect(role?.Type).toBe('AWS::IAM::Role');
      expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    }
    const statements = statelessStacks(checked).flatMap(statementsOf);
    const actions = statements.flatMap((s) => [s.Action].flat());
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.filter((a) => a.startsWith('dynamodb:') && a.includes('*'))).toEqual([]);
    const starActions = statements.filter((s) => s.Resource === '*').flatMap((s) => [s.Action].flat());
    // ListStreams: the table stream's event source mapping (the ledger fold), which takes no ARN.
    expect(new Set(starActions)).toEqual(new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords', 'dynamodb:ListStreams']));
    // The kms:ReEncrypt*/GenerateDataKey* suppression: CDK's queue send grants, on the queues key only.
    const kmsWildcards = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('kms:') && a.includes('*')));
    expect(kmsWildcards.length).toBeGreaterThan(0);
    for (const s of kmsWildcards) expect(s.Resource).toEqual({ 'Fn::ImportValue': expect.stringContaining('KeysOperationsKey') });
  });

  test('reserved concurrency: each consumer and job from the stage config, queue pollers capped at it, routes none', () => {
    const { stateless } = checked;
    // Keyed `<stack>/<logical id>`: the consumers and jobs live in the workers' nested stack.
    const key = (construct: IConstruct) => `${Stack.of(construct).node.path}/${logicalId(Stack.of(construct), construct)}`;
    const expected = new Map<string, number>();
    for (const def of queueDefinitions()) {
      if (!def.consumer) continue;
      const fn = stateless.functions.get(`${def.id}Consumer`)!;
      expected.set(key(fn), config.concurrency.consumers[def.id]);
      templateOf(Stack.of(fn)).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: placed(fn).id },
        ScalingConfig: { MaximumConcurrency: config.concurrency.consumers[def.id] },
      });
    }
    for (const job of JOBS) expected.set(key(stateless.functions.get(`${job.id}Job`)!), config.concurrency.jobs);
    for (const stack of statelessStacks(checked)) {
      const fns = templateOf(stack).findResources('AWS::Lambda::Function') as Record<string, Resource>;
      for (const [id, fn] of Object.entries(fns)) {
        const where = `${stack.node.path}/${id}`;
        expect([where, fn.Properties.ReservedConcurrentExecutions]).toEqual([where, expected.get(where)]);
      }
    }
    // Lambda keeps 100 executions of the account unreserved; both stages together stay far from 1,000 - 100.
    expect([...expected.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(50);
  });
});
