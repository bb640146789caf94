/**
 * The stage's live provider configuration (DESIGN.md section 8): the Secrets Manager secret
 * `latam-payments/<stage>/providers`, encrypted with its own customer-managed key, created holding `{}` (no
 * provider: every live method answers METHOD_NOT_AVAILABLE) and retained on stack deletion. Operators put the
 * real document with `aws secretsmanager put-secret-value` (docs/operations.md, "Live providers"); only the
 * functions whose manifest entry says `providers: true` may read it (lib/service-function.ts).
 */
import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { SERVICE_PREFIX, type StageConfig } from './stage-config';

export const providersSecretName = (stage: string) => `${SERVICE_PREFIX}/${stage}/providers`;

export function providersSecret(scope: Construct, config: StageConfig, key: kms.IKey): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, 'ProvidersSecret', {
    secretName: providersSecretName(config.stage),
    description: `LatamPayments ${config.stage}: live provider credentials (API Pix, Adyen, STP), one JSON document`,
    encryptionKey: key,
    secretStringValue: SecretValue.unsafePlainText('{}'),
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const reason =
    'Each provider issues these credentials (client secret and certificate, API key, signing key): no rotation Lambda can mint them. ' +
    'They are rotated by the runbook procedure (docs/operations.md, "Live providers"), which the functions pick up within 5 minutes.';
  NagSuppressions.addResourceSuppressions(secret, [
    { id: 'AwsSolutions-SMG4', reason },
    { id: 'PCI.DSS.321-SecretsManagerRotationEnabled', reason },
  ]);
  return secret;
}
