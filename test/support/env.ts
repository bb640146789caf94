/** Per-test-file environment defaults (jest setupFiles): quiet Powertools, no auth cache, sandbox stage, no CDK validation. */
Object.assign(process.env, {
  STAGE: 'sandbox',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  POWERTOOLS_SERVICE_NAME: 'latam-payments',
  POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
  POWERTOOLS_TRACE_ENABLED: 'false',
  AUTH_CACHE_TTL_MS: '0',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // CDK's built-in CloudFormation validation costs ~8 s of CPU per synthesizing test file (and only warns):
  // test/infra/cfn-validate.test.ts runs it, on both stages, and fails on any finding.
  CDK_VALIDATION: 'false',
  // The local stacks' function timeouts, ×4 (bin/local/lambda-events.ts localTimeoutMs): a starved 2-core machine
  // is not a reason for a handler to be cut off; what is deployed is checked by test/infra.
  LOCAL_TIMEOUT_SCALE: process.env.LOCAL_TIMEOUT_SCALE ?? '4',
});

// Replaying a property failure (its report prints `{ seed, path }`): FC_SEED=<seed> FC_PATH=<path> npx jest <file>
// (with a path only that case runs, so a file's guards on how much it ran may then fail on their own).
if (process.env.FC_SEED) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- setupFiles run as CommonJS before each file
  const fc = require('fast-check') as typeof import('fast-check');
  fc.configureGlobal({ seed: Number(process.env.FC_SEED), ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}) });
}
