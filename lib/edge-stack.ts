/**
 * The optional edge of a stage: `LatamPayments-<stage>-Edge`, CloudFront + AWS WAF (lib/edge-protection.ts) in
 * us-east-1, where a CLOUDFRONT-scope web ACL must live. Off by default; on with CDK context:
 *
 *   -c edge=true -c edgeOriginDomain=<api id>.execute-api.<region>.amazonaws.com
 *      [-c edgeDomainName=api.example.com -c edgeCertificateArn=arn:aws:acm:us-east-1:...]   (required in live)
 *
 * The API's domain comes in as a plain value, not a reference: the stage's stacks are environment-agnostic
 * and in another region, and a cross-region reference would need both environments fixed at synth time. The
 * operator deploys the stage, reads its ApiUrl output, then deploys this stack with it (docs/operations.md).
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { EdgeProtection } from './edge-protection';
import type { Stage, StageConfig } from './stage-config';

/** The only region a CLOUDFRONT web ACL (and the ACM certificate of a distribution) can be created in. */
export const EDGE_REGION = 'us-east-1';

/** The CDK context keys the edge reads. */
export const EDGE_CONTEXT_KEYS = ['edge', 'edgeOriginDomain', 'edgeDomainName', 'edgeCertificateArn'] as const;

export const edgeStackName = (stage: Stage) => `LatamPayments-${stage}-Edge`;

export interface EdgeSettings {
  /** The HTTP API's host, without scheme or path. */
  readonly originDomain: string;
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
}

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN = new RegExp(`^arn:aws[a-z-]*:acm:${EDGE_REGION}:\\d{12}:certificate/[A-Za-z0-9-]+$`);

function enabled(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new Error(`Unknown value ${JSON.stringify(value)} for context "edge": use -c edge=true (or leave it out)`);
}

/** `https://abc.execute-api.sa-east-1.amazonaws.com/` or the bare host: the host. */
function host(value: unknown, key: string): string {
  const raw = typeof value === 'string' ? value.trim().toLowerCase() : '';
  const h = raw.replace(/^https:\/\//, '').replace(/\/+$/, '');
  if (!HOST.test(h)) {
    throw new Error(
      `-c ${key}=${JSON.stringify(value ?? '')} is not a host name. ` +
        (key === 'edgeOriginDomain'
          ? 'Pass the API\'s domain, the ApiUrl output of the Stateless stack without "https://": <api id>.execute-api.<region>.amazonaws.com'
          : 'Pass the custom domain the distribution answers on, e.g. api.example.com'),
    );
  }
  return h;
}

/** The edge settings from CDK context, or undefined when the edge is off (the default). */
export function edgeSettings(context: (key: string) => unknown, stage: Stage): EdgeSettings | undefined {
  if (!enabled(context('edge'))) return undefined;
  const originDomain = host(context('edgeOriginDomain'), 'edgeOriginDomain');
  const domainName = context('edgeDomainName');
  const certificateArn = context('edgeCertificateArn');
  if ((domainName === undefined) !== (certificateArn === undefined)) {
    throw new Error('-c edgeDomainName and -c edgeCertificateArn go together: the custom domain and its ACM certificate');
  }
  if (certificateArn !== undefined && (typeof certificateArn !== 'string' || !CERTIFICATE_ARN.test(certificateArn))) {
    throw new Error(
      `-c edgeCertificateArn=${JSON.stringify(certificateArn)}: an ACM certificate ARN in ${EDGE_REGION} (CloudFront uses no other region)`,
    );
  }
  const customDomain =
    domainName !== undefined ? { domainName: host(domainName, 'edgeDomainName'), certificateArn: certificateArn as string } : undefined;
  if (stage === 'live' && !customDomain) {
    throw new Error(
      'The live edge needs -c edgeDomainName and -c edgeCertificateArn: with the default cloudfront.net certificate CloudFront ' +
        'still accepts TLS 1.0 and 1.1, which PCI DSS does not allow where card data travels.',
    );
  }
  return { originDomain, customDomain };
}

export interface EdgeStackProps extends StackProps {
  readonly config: StageConfig;
  readonly settings: EdgeSettings;
}

export class EdgeStack extends Stack {
  readonly protection: EdgeProtection;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    const { config, settings, ...stackProps } = props;
    super(scope, id, { ...stackProps, env: { ...stackProps.env, region: EDGE_REGION } });
    this.protection = new EdgeProtection(this, 'Edge', {
      config,
      originDomain: settings.originDomain,
      customDomain: settings.customDomain,
    });
    const { distribution, webAcl } = this.protection;
    new CfnOutput(this, 'EdgeUrl', {
      value: `https://${settings.customDomain?.domainName ?? distribution.distributionDomainName}`,
      description: 'Base URL of the API through CloudFront and AWS WAF',
    });
    new CfnOutput(this, 'DistributionDomainName', {
      value: distribution.distributionDomainName,
      description: 'Point the custom domain here (CNAME, or a Route 53 alias)',
    });
    new CfnOutput(this, 'WebAclArn', { value: webAcl.attrArn, description: 'The WAF web ACL (CLOUDFRONT scope)' });
  }
}
