/**
 * The optional edge (lib/edge-stack.ts, lib/edge-protection.ts): off unless `-c edge=true`, and when on a
 * us-east-1 stack with a CLOUDFRONT web ACL (managed rule groups, per-IP rate rule, logging) attached to a
 * distribution that forwards everything to the API uncached over HTTPS. Built in-process as bin/app.ts builds
 * it, bundling skipped (`aws:cdk:bundling-stacks: []`), and checked with the cdk-nag packs bin/app.ts applies.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { buildApp, type BuiltApp } from '../../lib/app';
import {
  COUNTED_CRS_RULES,
  DEFAULT_RATE_LIMIT_PER_IP,
  MANAGED_RULE_GROUPS,
  RATE_WINDOW_SECONDS,
  REDACTED_HEADERS,
} from '../../lib/edge-protection';
import { EDGE_REGION, edgeStackName } from '../../lib/edge-stack';
import { applyNagPacks } from '../../lib/nag';
import { STAGES, type Stage } from '../../lib/stage-config';
import { annotationsOf, templateOf } from '../support/cdk-assertions';

type Resource = { Type: string; Properties: Record<string, any> };

const API_HOST = 'a1b2c3d4e5.execute-api.sa-east-1.amazonaws.com';
const CUSTOM_DOMAIN = {
  edgeDomainName: 'api.payments.example.com',
  edgeCertificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b',
};

function build(stage: Stage, context: Record<string, unknown> = {}, nag = false): BuiltApp & { app: App } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const built = buildApp(app, stage);
  if (nag) {
    applyNagPacks(app, { reports: false });
  }
  return { ...built, app };
}

/** The app's top-level stacks (a nested stack deploys with its parent). */
const stacksOf = (app: App) => app.node.findAll().filter((c): c is Stack => Stack.isStack(c) && !c.nested);
const one = (t: Template, type: string) => {
  const all = Object.values(t.findResources(type)) as Resource[];
  expect(all).toHaveLength(1);
  return all[0]!.Properties;
};

describe.each(STAGES)('%s stage, edge off', (stage) => {
  test.each([{}, { edge: 'false' }, { edge: false }, { edgeOriginDomain: API_HOST }])('no edge stack with context %j', (context) => {
    const b = build(stage, context);
    expect(b.edge).toBeUndefined();
    expect(stacksOf(b.app).map((s) => s.stackName)).toEqual([`LatamPayments-${stage}-Stateful`, `LatamPayments-${stage}-Stateless`]);
  });
});

describe.each([
  { stage: 'sandbox' as const, context: { edge: 'true', edgeOriginDomain: `https://${API_HOST}/` } },
  { stage: 'live' as const, context: { edge: 'true', edgeOriginDomain: API_HOST, ...CUSTOM_DOMAIN } },
])('$stage stage, edge on', ({ stage, context }) => {
  let b: ReturnType<typeof build>;
  let t: Template;
  beforeAll(() => {
    b = build(stage, context);
    t = templateOf(b.edge!);
  }, 120_000);

  test('its own stack in us-east-1, beside the stage, with no reference to it', () => {
    const edge = b.edge!;
    expect(edge.stackName).toBe(edgeStackName(stage));
    expect(edge.stackName).toBe(`LatamPayments-${stage}-Edge`);
    expect(edge.region).toBe(EDGE_REGION);
    expect(edge.terminationProtection).toBe(stage === 'live');
    expect(stacksOf(b.app)).toHaveLength(3);
    expect(edge.dependencies).toEqual([]);
    expect(JSON.stringify(t.toJSON())).not.toContain('Fn::ImportValue');
    // The stage's own stacks stay environment-agnostic (synth offline, deploy to any region).
    expect(b.stateless.region).not.toBe(EDGE_REGION);
    expect(JSON.stringify(templateOf(b.stateless).toJSON())).not.toContain('Edge');
  });

  test('web ACL: CLOUDFRONT scope, allow by default, the managed rule groups and the per-IP rate rule', () => {
    const acl = one(t, 'AWS::WAFv2::WebACL');
    expect(acl.Scope).toBe('CLOUDFRONT');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    expect(acl.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });
    const rules = acl.Rules as Record<string, any>[];
    const managed = rules.filter((r) => r.Statement.ManagedRuleGroupStatement).map((r) => r.Statement.ManagedRuleGroupStatement);
    expect(managed.map((m) => [m.VendorName, m.Name])).toEqual(MANAGED_RULE_GROUPS.map((name) => ['AWS', name]));
    expect([...MANAGED_RULE_GROUPS].sort()).toEqual([
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesCommonRuleSet',
      'AWSManagedRulesKnownBadInputsRuleSet',
    ]);
    for (const r of rules.filter((x) => x.Statement.ManagedRuleGroupStatement)) expect(r.OverrideAction).toEqual({ None: {} });
    // Only the CRS rules that contradict the API's contract count instead of blocking.
    const crs = managed.find((m) => m.Name === 'AWSManagedRulesCommonRuleSet');
    expect(crs.RuleActionOverrides).toEqual(Object.keys(COUNTED_CRS_RULES).map((Name) => ({ Name, ActionToUse: { Count: {} } })));
    expect(Object.keys(COUNTED_CRS_RULES).sort()).toEqual(['NoUserAgent_HEADER', 'SizeRestrictions_BODY']);

    const rate = rules.find((r) => r.Statement.RateBasedStatement)!;
    expect(rate.Statement.RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      Limit: DEFAULT_RATE_LIMIT_PER_IP,
      EvaluationWindowSec: RATE_WINDOW_SECONDS,
    });
    expect(rate.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 429, ResponseHeaders: [{ Name: 'Retry-After', Value: '60' }] });
    const body = acl.CustomResponseBodies[rate.Action.Block.CustomResponse.CustomResponseBodyKey];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });
    // Every rule has its metrics and sampled requests; priorities are distinct.
    for (const r of rules) expect(r.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });
    expect(new Set(rules.map((r) => r.Priority)).size).toBe(rules.length);
  });

  test('WAF logs every request to an aws-waf-logs- group, encrypted, with the API-key headers redacted', () => {
    const logging = one(t, 'AWS::WAFv2::LoggingConfiguration');
    expect(logging.ResourceArn).toEqual({ 'Fn::GetAtt': [b.edge!.getLogicalId(b.edge!.protection.webAcl), 'Arn'] });
    expect(JSON.stringify(logging.LogDestinationConfigs)).toContain(`:log-group:aws-waf-logs-latam-payments-${stage}-edge"`);
    expect(logging.RedactedFields).toEqual(REDACTED_HEADERS.map((Name) => ({ SingleHeader: { Name } })));
    expect(logging.LoggingFilter).toBeUndefined();
    const group = one(t, 'AWS::Logs::LogGroup');
    expect(group.LogGroupName).toBe(`aws-waf-logs-latam-payments-${stage}-edge`);
    expect(group.KmsKeyId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^EdgeWafLogsKey/), 'Arn'] });
    expect(one(t, 'AWS::KMS::Key').EnableKeyRotation).toBe(true);
  });

  test('distribution: the ACL attached, the API as HTTPS origin, every method, no caching, all viewer headers but Host', () => {
    const config = one(t, 'AWS::CloudFront::Distribution').DistributionConfig;
    expect(config.WebACLId).toEqual({ 'Fn::GetAtt': [b.edge!.getLogicalId(b.edge!.protection.webAcl), 'Arn'] });
    expect(config.Origins).toEqual([
      {
        Id: expect.any(String),
        DomainName: API_HOST,
        CustomOriginConfig: { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] },
      },
    ]);
    const behavior = config.DefaultCacheBehavior;
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(behavior.CachePolicyId).toBe(cloudfront.CachePolicy.CACHING_DISABLED.cachePolicyId);
    expect(behavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(behavior.OriginRequestPolicyId).toBe(cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId);
    expect(behavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
    expect([...behavior.AllowedMethods].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    expect(behavior.ForwardedValues).toBeUndefined();
    expect(config.PriceClass).toBe('PriceClass_All');
    if (stage === 'live') {
      expect(config.Aliases).toEqual([CUSTOM_DOMAIN.edgeDomainName]);
      expect(config.ViewerCertificate).toEqual({
        AcmCertificateArn: CUSTOM_DOMAIN.edgeCertificateArn,
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      });
    } else {
      expect(config.Aliases).toBeUndefined();
    }
  });

  test('outputs: the edge URL, the distribution domain and the web ACL', () => {
    const outputs = t.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs).sort()).toEqual(['DistributionDomainName', 'EdgeUrl', 'WebAclArn']);
    if (stage === 'live') expect(outputs.EdgeUrl!.Value).toBe(`https://${CUSTOM_DOMAIN.edgeDomainName}`);
  });
});

describe.each([
  { stage: 'sandbox' as const, context: { edge: 'true', edgeOriginDomain: API_HOST } },
  { stage: 'live' as const, context: { edge: 'true', edgeOriginDomain: API_HOST, ...CUSTOM_DOMAIN } },
])('$stage edge under cdk-nag', ({ stage, context }) => {
  test('no unsuppressed AwsSolutions or PCI DSS 3.2.1 finding, every suppression with a reason', () => {
    const b = build(stage, context, true);
    b.app.synth();
    const annotations = annotationsOf(b.edge!);
    const rule = Match.stringLikeRegexp('AwsSolutions-.*|PCI.DSS.321-.*');
    const found = [...annotations.findError('*', rule), ...annotations.findWarning('*', rule)].map(
      (m) => `${m.id}: ${String(m.entry.data)}`,
    );
    expect(found).toEqual([]);
    const suppressed = Object.values(templateOf(b.edge!).toJSON().Resources as Record<string, any>).flatMap(
      (r) => (r.Metadata?.cdk_nag?.rules_to_suppress ?? []) as { id: string; reason: string }[],
    );
    expect(suppressed.map((s) => s.id).sort()).toEqual(
      stage === 'live' ? ['AwsSolutions-CFR1', 'AwsSolutions-CFR3'] : ['AwsSolutions-CFR1', 'AwsSolutions-CFR3', 'AwsSolutions-CFR4'],
    );
    for (const s of suppressed) expect(s.reason.length).toBeGreaterThanOrEqual(20);
  }, 120_000);
});

describe('edge context errors name the fix', () => {
  test.each([
    ['sandbox', { edge: 'yes', edgeOriginDomain: API_HOST }, /-c edge=true/],
    ['sandbox', { edge: 'true' }, /edgeOriginDomain.*ApiUrl output/],
    ['sandbox', { edge: 'true', edgeOriginDomain: 'https://' }, /not a host name/],
    ['sandbox', { edge: 'true', edgeOriginDomain: API_HOST, edgeDomainName: 'api.example.com' }, /go together/],
    [
      'sandbox',
      {
        edge: 'true',
        edgeOriginDomain: API_HOST,
        ...CUSTOM_DOMAIN,
        edgeCertificateArn: CUSTOM_DOMAIN.edgeCertificateArn.replace('us-east-1', 'sa-east-1'),
      },
      /in us-east-1/,
    ],
    ['live', { edge: 'true', edgeOriginDomain: API_HOST }, /live edge needs -c edgeDomainName and -c edgeCertificateArn/],
  ] as const)('%s %j', (stage, context, message) => {
    expect(() => build(stage, context)).toThrow(message);
  });
});

describe('links through the edge: -c publicBaseUrl', () => {
  const baseUrls = (b: BuiltApp) => {
    const fns = Object.values(templateOf(b.stateless).findResources('AWS::Lambda::Function')) as Resource[];
    return new Set(fns.map((f) => JSON.stringify(f.Properties.Environment.Variables.PUBLIC_BASE_URL)));
  };

  test('every function writes links with the given origin instead of the API endpoint', () => {
    const b = build('live', { publicBaseUrl: 'https://api.payments.example.com/' });
    expect(baseUrls(b)).toEqual(new Set([JSON.stringify('https://api.payments.example.com')]));
  });

  test('without it, every function writes links with the HTTP API endpoint', () => {
    const [only, ...rest] = [...baseUrls(build('sandbox'))];
    expect(rest).toEqual([]);
    expect(JSON.parse(only!)).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^HttpApi/), 'ApiEndpoint'] });
  });

  test.each(['http://api.payments.example.com', 'https://api.payments.example.com/pay', 'https://u:p@x.example.com', 'api.example.com'])(
    'refuses %s: an https origin without a path',
    (value) => {
      expect(() => build('sandbox', { publicBaseUrl: value })).toThrow(/-c publicBaseUrl=.*an https:\/\/ origin, without a path/);
    },
  );
});
