/**
 * CloudFront + AWS WAF in front of the HTTP API (HTTP APIs cannot attach a web ACL themselves).
 *
 * - A WAFv2 web ACL, scope CLOUDFRONT (it must live in us-east-1, hence its own stack: lib/edge-stack.ts):
 *   Amazon's IP reputation list, a rate-based rule per client IP answering 429 in the API's own error shape,
 *   the core rule set (CRS) and known bad inputs. Two CRS rules only count, because they contradict the API's
 *   contract: SizeRestrictions_BODY blocks bodies over 8 KB where the API accepts 64 KB (6 MB for a dispute's
 *   evidence: shared/http/middleware/validation.ts, RouteDefinition.maxBodyBytes), and NoUserAgent_HEADER blocks
 *   server-to-server clients that send no User-Agent (.NET's HttpClient by default). CloudWatch metrics and
 *   sampled requests for every rule, and a log of every request to CloudWatch Logs with the key-carrying headers redacted.
 * - A distribution with the API as its only origin over HTTPS (TLS 1.2), every method, caching disabled
 *   (CachingDisabled) and every viewer header, cookie and query string forwarded except Host
 *   (AllViewerExceptHostHeader: API Gateway routes on its own Host). With caching disabled that policy also
 *   forwards Authorization, so `Authorization: Bearer sk_...`, X-API-Key, X-Idempotency-Key and Content-Type all
 *   reach the functions unchanged. Viewers: HTTPS only; with a custom domain and its ACM certificate, TLS 1.2+.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { allowCloudWatchLogs, stageKey } from './encryption';
import type { StageConfig } from './stage-config';

/** The AWS managed rule groups of the web ACL, in evaluation order after the IP reputation list. */
export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesAmazonIpReputationList',
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
] as const;

/** CRS rules set to Count instead of Block, and why (see the file comment). */
export const COUNTED_CRS_RULES: Readonly<Record<string, string>> = {
  SizeRestrictions_BODY: 'blocks bodies over 8 KB; the API accepts up to 64 KB (dispute evidence 6 MB) and answers 400 past that itself',
  NoUserAgent_HEADER: 'blocks server-to-server clients that send no User-Agent',
};

/** Requests one client IP may send in `RATE_WINDOW_SECONDS` before the edge answers 429 (WAF counts approximately). */
export const DEFAULT_RATE_LIMIT_PER_IP = 1000;
export const RATE_WINDOW_SECONDS = 60;

/** Headers that carry API keys: never written to the WAF log. */
export const REDACTED_HEADERS = ['authorization', 'x-api-key'] as const;

/** What the edge answers for a rate-limited address: the API's own 429 (SPEC.md section 7). */
const RATE_LIMITED_BODY = JSON.stringify({
  success: false,
  error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests from this address; retry after 60 seconds.' },
});

export interface EdgeProtectionProps {
  readonly config: StageConfig;
  /** The HTTP API's host, `<api id>.execute-api.<region>.amazonaws.com` (the ApiUrl output without https://). */
  readonly originDomain: string;
  /** A custom domain for the distribution, with its ACM certificate (which must be in us-east-1). */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
  readonly rateLimitPerIp?: number;
}

export class EdgeProtection extends Construct {
  readonly webAcl: wafv2.CfnWebACL;
  readonly distribution: cloudfront.Distribution;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: EdgeProtectionProps) {
    super(scope, id);
    const { config } = props;
    const metric = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${config.prefix}-edge-${name}`,
    });
    const managed = (name: (typeof MANAGED_RULE_GROUPS)[number], priority: number, counted: readonly string[] = []) => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ruleActionOverrides: counted.length ? counted.map((rule) => ({ name: rule, actionToUse: { count: {} } })) : undefined,
        },
      },
      visibilityConfig: metric(name),
    });

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      name: `${config.prefix}-edge`,
      description: `LatamPayments ${config.stage}: managed rules and a per-IP rate limit in front of the HTTP API`,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: metric('webacl'),
      customResponseBodies: { 'rate-limited': { contentType: 'APPLICATION_JSON', content: RATE_LIMITED_BODY } },
      rules: [
        managed('AWSManagedRulesAmazonIpReputationList', 0),
        {
          name: 'RateLimitPerIp',
          priority: 1,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'rate-limited',
                responseHeaders: [{ name: 'Retry-After', value: String(RATE_WINDOW_SECONDS) }],
              },
            },
          },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.rateLimitPerIp ?? DEFAULT_RATE_LIMIT_PER_IP,
              evaluationWindowSec: RATE_WINDOW_SECONDS,
            },
          },
          visibilityConfig: metric('rate-limit-per-ip'),
        },
        managed('AWSManagedRulesCommonRuleSet', 2, Object.keys(COUNTED_CRS_RULES)),
        managed('AWSManagedRulesKnownBadInputsRuleSet', 3),
      ],
    });

    // WAF logs every request it inspects (client IP, country, URI, headers, the rule that matched) to a log group
    // whose name must start with aws-waf-logs-, encrypted with this stack's own key (the stage keys live in the
    // API's region, and a log group can only use a key of its own region).
    const logsKey = stageKey(this, 'WafLogsKey', config, 'edge-waf-logs', 'WAF logs of the edge');
    allowCloudWatchLogs(logsKey);
    const logGroupName = `aws-waf-logs-${config.prefix}-edge`;
    this.logGroup = new logs.LogGroup(this, 'WafLogs', {
      logGroupName,
      retention: config.logRetention,
      encryptionKey: logsKey,
      removalPolicy: config.removalPolicy,
    });
    const logging = new wafv2.CfnLoggingConfiguration(this, 'WafLogging', {
      resourceArn: this.webAcl.attrArn,
      // WAF wants the log group's ARN without the `:*` that LogGroup.logGroupArn ends with.
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      redactedFields: REDACTED_HEADERS.map((name) => ({ singleHeader: { Name: name } })),
    });
    logging.node.addDependency(this.logGroup);

    const certificate = props.customDomain
      ? acm.Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn)
      : undefined;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `LatamPayments ${config.stage} API behind AWS WAF`,
      webAclId: this.webAcl.attrArn,
      defaultBehavior: {
        origin: new origins.HttpOrigin(props.originDomain, {
          protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        }),
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
        originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
      // Every edge location: the shoppers and merchants are in Latin America (São Paulo, Bogotá, Santiago,
      // Buenos Aires, Lima, Querétaro), which only PriceClass_All includes.
      priceClass: cloudfront.PriceClass.PRICE_CLASS_ALL,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      ...(props.customDomain && certificate
        ? {
            domainNames: [props.customDomain.domainName],
            certificate,
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
            sslSupportMethod: cloudfront.SSLMethod.SNI,
          }
        : {}),
    });

    NagSuppressions.addResourceSuppressions(this.distribution, [
      {
        id: 'AwsSolutions-CFR1',
        reason: 'No geo restriction: merchants and shoppers call from every Latin American country and merchants host anywhere',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason: 'Every request is logged by the web ACL (client IP, URI, headers with keys redacted) and again by the API access log',
      },
      ...(props.customDomain
        ? []
        : [
            {
              id: 'AwsSolutions-CFR4',
              reason:
                'Sandbox only (live refuses to build without a custom domain): the default cloudfront.net certificate cannot pin TLS 1.2',
            },
          ]),
    ]);
  }
}
