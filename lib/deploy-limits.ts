/**
 * Limits AWS enforces at deploy time that `cdk synth` does not check (issue 34 item 4): CloudFormation refuses a
 * template, Lambda an environment or a permission, IAM a policy, API Gateway a route, CloudWatch an alarm or a
 * dashboard. Each figure is measured on the synthesized templates, with values CloudFormation resolves (ARNs, queue
 * URLs, generated names) estimated by lib/template-values.ts. test/infra/deploy-limits.test.ts fails at 90% of a
 * limit; `npm run limits` prints the table (BENCHMARKS.md "Deploy limits").
 */
import { TemplateValues, type CfnResource, type StackTemplate } from './template-values';

export interface DeployLimit {
  readonly id: LimitId;
  /** What is counted, per what. */
  readonly what: string;
  readonly max: number;
  readonly unit: string;
  /** Who refuses it, and how AWS counts. */
  readonly source: string;
}

export const LIMITS = {
  stackResources: { what: 'resources per stack', max: 500, unit: 'resources', source: 'CloudFormation' },
  templateBytes: {
    what: 'template body per stack (S3-hosted: cdk deploy uploads it)',
    max: 1_048_576,
    unit: 'bytes',
    source: 'CloudFormation (51,200 bytes when passed inline; CDK warns from 800,000 characters)',
  },
  stackOutputs: { what: 'outputs per stack', max: 200, unit: 'outputs', source: 'CloudFormation' },
  stackParameters: { what: 'parameters per stack', max: 200, unit: 'parameters', source: 'CloudFormation' },
  stackMappings: { what: 'mappings per stack', max: 200, unit: 'mappings', source: 'CloudFormation' },
  stackDescription: { what: 'template description', max: 1024, unit: 'bytes', source: 'CloudFormation' },
  lambdaEnvironment: {
    what: 'environment variables per function',
    max: 4096,
    unit: 'bytes',
    source: 'Lambda (the variables as one JSON object, keys and values, as its error message measures them)',
  },
  lambdaPolicy: {
    what: 'resource-based policy per function (its Lambda permissions)',
    max: 20_480,
    unit: 'bytes',
    source: 'Lambda',
  },
  roleInlinePolicies: {
    what: 'inline policies per role, all together',
    max: 10_240,
    unit: 'characters',
    source: 'IAM (whitespace not counted)',
  },
  roleTrustPolicy: { what: 'trust policy per role', max: 2048, unit: 'characters', source: 'IAM (whitespace not counted)' },
  apiRoutes: { what: 'routes per HTTP API', max: 300, unit: 'routes', source: 'API Gateway (raisable)' },
  apiIntegrations: { what: 'integrations per HTTP API', max: 300, unit: 'integrations', source: 'API Gateway (not raisable)' },
  apiStages: { what: 'stages per HTTP API', max: 10, unit: 'stages', source: 'API Gateway' },
  alarmDescription: { what: 'alarm description', max: 1024, unit: 'characters', source: 'CloudWatch' },
  alarmMetrics: { what: 'metrics and expressions per metric-math alarm', max: 10, unit: 'metrics', source: 'CloudWatch' },
  dashboardWidgets: { what: 'widgets per dashboard', max: 500, unit: 'widgets', source: 'CloudWatch' },
  dashboardMetrics: { what: 'metrics per dashboard', max: 2500, unit: 'metrics', source: 'CloudWatch' },
  graphMetrics: { what: 'metrics per graph widget', max: 500, unit: 'metrics', source: 'CloudWatch' },
  queryLogGroups: {
    what: 'log groups per Logs Insights widget',
    max: 50,
    unit: 'log groups',
    source: 'CloudWatch Logs Insights',
  },
} as const satisfies Record<string, Omit<DeployLimit, 'id'>>;

export type LimitId = keyof typeof LIMITS;

export const limit = (id: LimitId): DeployLimit => ({ id, ...LIMITS[id] });

/** One figure: how much of a limit one stack, function, role, API, alarm or dashboard uses. */
export interface Figure {
  readonly limit: LimitId;
  /** The stack, and the resource's logical id: where to look. */
  readonly where: string;
  readonly value: number;
}

/** A template property, walked by name (undefined where absent). */
function prop(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}
const list = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);

const ofType = (stack: StackTemplate, type: string): [string, CfnResource][] =>
  Object.entries(stack.template.Resources ?? {}).filter(([, r]) => r.Type === type);
const count = (record: object | undefined) => Object.keys(record ?? {}).length;
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** IAM counts policy characters without whitespace. */
const policyChars = (document: unknown) => JSON.stringify(document).replace(/\s/g, '').length;

function stackFigures(stack: StackTemplate): Figure[] {
  const t = stack.template;
  const where = stack.name;
  return [
    { limit: 'stackResources', where, value: count(t.Resources) },
    { limit: 'templateBytes', where, value: stack.bytes },
    { limit: 'stackOutputs', where, value: count(t.Outputs) },
    { limit: 'stackParameters', where, value: count(t.Parameters) },
    { limit: 'stackMappings', where, value: count(t.Mappings) },
    { limit: 'stackDescription', where, value: bytes(t.Description ?? '') },
  ];
}

function functionFigures(values: TemplateValues, stack: StackTemplate): Figure[] {
  const figures: Figure[] = [];
  const functions = ofType(stack, 'AWS::Lambda::Function');
  const arnOf = new Map(functions.map(([id]) => [values.string(stack, { 'Fn::GetAtt': [id, 'Arn'] }), id]));
  const nameOf = new Map(functions.map(([id]) => [values.string(stack, { Ref: id }), id]));
  const statements = new Map<string, object[]>();
  for (const [id, permission] of ofType(stack, 'AWS::Lambda::Permission')) {
    const target = values.string(stack, prop(permission, 'Properties', 'FunctionName'));
    const fnId = arnOf.get(target) ?? nameOf.get(target);
    if (!fnId) continue;
    const p = values.resolve(stack, permission.Properties) as Record<string, string>;
    const principal = String(p.Principal);
    const condition = {
      ...(p.SourceArn ? { ArnLike: { 'AWS:SourceArn': p.SourceArn } } : {}),
      ...(p.SourceAccount ? { StringEquals: { 'AWS:SourceAccount': p.SourceAccount } } : {}),
    };
    // What Lambda stores for one AddPermission: the statement id CloudFormation generates, and the function's ARN.
    statements.set(fnId, [
      ...(statements.get(fnId) ?? []),
      {
        Sid: `${stack.name}-${id}-ABCDEFGHIJKLM`.slice(0, 100),
        Effect: 'Allow',
        Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
        Action: p.Action,
        Resource: values.string(stack, { 'Fn::GetAtt': [fnId, 'Arn'] }),
        ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
      },
    ]);
  }
  for (const [id, fn] of functions) {
    const where = `${stack.name}/${id}`;
    const variables = values.resolve(stack, prop(fn, 'Properties', 'Environment', 'Variables') ?? {});
    figures.push({ limit: 'lambdaEnvironment', where, value: bytes(JSON.stringify(variables)) });
    const statement = statements.get(id);
    const policy = statement ? JSON.stringify({ Version: '2012-10-17', Id: 'default', Statement: statement }) : '';
    figures.push({ limit: 'lambdaPolicy', where, value: bytes(policy) });
  }
  return figures;
}

function roleFigures(values: TemplateValues, stack: StackTemplate): Figure[] {
  const roles = ofType(stack, 'AWS::IAM::Role');
  const inline = new Map<string, number>(
    roles.map(([id, role]) => [
      id,
      list(prop(role, 'Properties', 'Policies')).reduce<number>(
        (sum, p) => sum + policyChars(values.resolve(stack, prop(p, 'PolicyDocument'))),
        0,
      ),
    ]),
  );
  for (const [, policy] of ofType(stack, 'AWS::IAM::Policy')) {
    const chars = policyChars(values.resolve(stack, prop(policy, 'Properties', 'PolicyDocument')));
    for (const role of list(prop(policy, 'Properties', 'Roles'))) {
      const ref = prop(role, 'Ref');
      if (typeof ref === 'string' && inline.has(ref)) inline.set(ref, inline.get(ref)! + chars);
    }
  }
  return roles.flatMap(([id, role]) => [
    { limit: 'roleInlinePolicies', where: `${stack.name}/${id}`, value: inline.get(id)! },
    {
      limit: 'roleTrustPolicy',
      where: `${stack.name}/${id}`,
      value: policyChars(values.resolve(stack, prop(role, 'Properties', 'AssumeRolePolicyDocument'))),
    },
  ]);
}

/** `<stack>/<logical id>` of the API an ApiId designates, through a nested stack's parameters to the parent's API. */
function apiName(values: TemplateValues, stack: StackTemplate, apiId: unknown): string {
  const ref = prop(apiId, 'Ref');
  if (typeof ref === 'string' && stack.template.Resources?.[ref]) return `${stack.name}/${ref}`;
  const parent = stack.parent && values.stacks.find((p) => p.name === stack.parent!.name);
  const passed =
    parent && typeof ref === 'string'
      ? prop(parent.template.Resources?.[stack.parent!.logicalId], 'Properties', 'Parameters', ref)
      : undefined;
  return parent && passed !== undefined ? apiName(values, parent, passed) : `${stack.name} HTTP API ${values.string(stack, apiId)}`;
}

/** Routes, integrations and stages counted per API, across the stack that holds it and its nested stacks. */
function apiFigures(values: TemplateValues): Figure[] {
  const perApi = new Map<string, Record<'apiRoutes' | 'apiIntegrations' | 'apiStages', number>>();
  for (const stack of values.stacks) {
    const kinds = [
      ['AWS::ApiGatewayV2::Route', 'apiRoutes'],
      ['AWS::ApiGatewayV2::Integration', 'apiIntegrations'],
      ['AWS::ApiGatewayV2::Stage', 'apiStages'],
    ] as const;
    for (const [type, key] of kinds) {
      for (const [, resource] of ofType(stack, type)) {
        const api = apiName(values, stack, prop(resource, 'Properties', 'ApiId'));
        const counts = perApi.get(api) ?? { apiRoutes: 0, apiIntegrations: 0, apiStages: 0 };
        counts[key] += 1;
        perApi.set(api, counts);
      }
    }
  }
  return [...perApi.entries()].flatMap(([where, counts]) =>
    (Object.keys(counts) as (keyof typeof counts)[]).map((key) => ({ limit: key, where, value: counts[key] })),
  );
}

function monitoringFigures(values: TemplateValues, stack: StackTemplate): Figure[] {
  const figures: Figure[] = [];
  for (const [id, alarm] of ofType(stack, 'AWS::CloudWatch::Alarm')) {
    const where = `${stack.name}/${id}`;
    const description = values.string(stack, prop(alarm, 'Properties', 'AlarmDescription') ?? '');
    figures.push({ limit: 'alarmDescription', where, value: description.length });
    const metrics = prop(alarm, 'Properties', 'Metrics');
    if (metrics) figures.push({ limit: 'alarmMetrics', where, value: list(metrics).length });
  }
  for (const [id, dashboard] of ofType(stack, 'AWS::CloudWatch::Dashboard')) {
    const where = `${stack.name}/${id}`;
    const body = JSON.parse(values.string(stack, prop(dashboard, 'Properties', 'DashboardBody'))) as {
      widgets: { type: string; properties?: { title?: string; metrics?: unknown[]; query?: string } }[];
    };
    const metricsOf = (w: (typeof body.widgets)[number]) => (w.type === 'metric' ? (w.properties?.metrics?.length ?? 0) : 0);
    figures.push({ limit: 'dashboardWidgets', where, value: body.widgets.length });
    figures.push({ limit: 'dashboardMetrics', where, value: body.widgets.reduce((sum, w) => sum + metricsOf(w), 0) });
    for (const w of body.widgets) {
      const title = `${where} "${w.properties?.title ?? w.type}"`;
      if (w.type === 'metric') figures.push({ limit: 'graphMetrics', where: title, value: metricsOf(w) });
      if (w.type === 'log')
        figures.push({ limit: 'queryLogGroups', where: title, value: (w.properties?.query ?? '').split("SOURCE '").length - 1 });
    }
  }
  return figures;
}

/** Every figure of every stack of the assembly. */
export function measure(stacks: readonly StackTemplate[]): Figure[] {
  const values = new TemplateValues(stacks);
  return [
    ...stacks.flatMap((s) => [
      ...stackFigures(s),
      ...functionFigures(values, s),
      ...roleFigures(values, s),
      ...monitoringFigures(values, s),
    ]),
    ...apiFigures(values),
  ];
}

/** Per limit, its largest figure (the one closest to the limit), in LIMITS order; limits nothing uses are left out. */
export function largest(figures: readonly Figure[]): Figure[] {
  const best = new Map<LimitId, Figure>();
  for (const f of figures) if ((best.get(f.limit)?.value ?? -1) < f.value) best.set(f.limit, f);
  return (Object.keys(LIMITS) as LimitId[]).flatMap((id) => (best.has(id) ? [best.get(id)!] : []));
}

export const share = (f: Figure) => f.value / LIMITS[f.limit].max;

/** `<where>: <what> <value> of <max> <unit> (<n>%)`: how a figure reads in a failure or the table. */
export function describe(f: Figure): string {
  const l = LIMITS[f.limit];
  const n = (x: number) => x.toLocaleString('en-US');
  return `${f.where}: ${l.what} ${n(f.value)} of ${n(l.max)} ${l.unit} (${(share(f) * 100).toFixed(1)}%)`;
}

/** The figures at or over `fraction` of their limit, described. */
export function overLimit(figures: readonly Figure[], fraction: number): string[] {
  return figures.filter((f) => share(f) >= fraction).map(describe);
}
