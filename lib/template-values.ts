/**
 * What a synthesized template's values become once CloudFormation resolves them, estimated offline: Ref, Fn::GetAtt,
 * Fn::ImportValue, Fn::Join, Fn::Sub... turned into strings of the length AWS will see (ARNs, queue URLs, generated
 * names), so that sizes AWS measures at deploy time (Lambda environment, IAM and Lambda policies) can be measured at
 * synth time. Unknown values are assumed long rather than short: the estimate errs towards the limit.
 */
import { createHash } from 'node:crypto';

/** The parts of a CloudFormation template the estimates read. */
export interface CfnTemplate {
  readonly Description?: string;
  readonly Resources?: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown; readonly Export?: { readonly Name: unknown } }>;
  readonly Parameters?: Record<string, { readonly Default?: unknown }>;
  readonly Mappings?: Record<string, unknown>;
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

/** One template of the cloud assembly: a top-level stack, or a nested stack with the parent resource that creates it. */
export interface StackTemplate {
  /** The stack's name; a nested stack's is `<parent>/<logical id>`. */
  readonly name: string;
  readonly template: CfnTemplate;
  /** Size of the template file `cdk synth` wrote (what `cdk deploy` uploads), bytes. */
  readonly bytes: number;
  readonly parent?: { readonly name: string; readonly logicalId: string };
}

/**
 * Pseudo parameters at their longest plausible values: a 14-character region (ap-southeast-7, eusc-de-east-1), a
 * 12-digit account. Generated physical names are the stack name, the logical id and CloudFormation's 13-character
 * suffix, cut at the type's maximum.
 */
export const PSEUDO: Record<string, string> = {
  'AWS::Region': 'xx-xxxxxxxxx-1',
  'AWS::AccountId': '123456789012',
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::NoValue': '',
  'AWS::NotificationARNs': '',
};
const RANDOM = 'ABCDEFGHIJKLM';
/** Longest generated physical name per type (CloudFormation truncates the stack and logical id parts). */
const NAME_MAX: Record<string, number> = {
  'AWS::Lambda::Function': 64,
  'AWS::IAM::Role': 64,
  'AWS::IAM::Policy': 128,
  'AWS::Logs::LogGroup': 512,
  'AWS::SQS::Queue': 80,
  'AWS::SNS::Topic': 256,
  'AWS::Events::Rule': 64,
  'AWS::DynamoDB::Table': 255,
};

type Value = unknown;

export class TemplateValues {
  private readonly byName = new Map<string, StackTemplate>();

  constructor(readonly stacks: readonly StackTemplate[]) {
    for (const s of stacks) this.byName.set(s.name, s);
  }

  /** `value` with every intrinsic function replaced by its estimated result (objects and lists walked). */
  resolve(stack: StackTemplate, value: Value): Value {
    if (Array.isArray(value)) return value.map((v) => this.resolve(stack, v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, Value>);
    if (entries.length === 1) {
      const [key, arg] = entries[0]!;
      if (key === 'Ref' || key.startsWith('Fn::')) return this.intrinsic(stack, key, arg);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(stack, v)]));
  }

  /** The estimated value as a string (a list joins with commas, as CloudFormation renders it). */
  string(stack: StackTemplate, value: Value): string {
    const v = this.resolve(stack, value);
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(',');
    return typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
  }

  private intrinsic(stack: StackTemplate, fn: string, arg: unknown): Value {
    const str = (v: Value) => this.string(stack, v);
    const args = (Array.isArray(arg) ? arg : [arg]) as Value[];
    switch (fn) {
      case 'Ref':
        return this.ref(stack, String(arg));
      case 'Fn::GetAtt': {
        const [id, attr] = Array.isArray(arg) ? (arg as Value[]) : String(arg).split(/\.(.*)/);
        return this.getAtt(stack, String(id), String(attr));
      }
      case 'Fn::Join':
        return (this.resolve(stack, args[1]) as Value[]).map((v) => this.string(stack, v)).join(String(args[0]));
      case 'Fn::Split':
        return str(args[1]).split(String(args[0]));
      case 'Fn::Select': {
        const list = this.resolve(stack, args[1]);
        const item = Array.isArray(list) ? (list as Value[])[Number(this.resolve(stack, args[0]))] : undefined;
        return item ?? '';
      }
      case 'Fn::ImportValue':
        return this.importValue(str(arg));
      case 'Fn::Sub': {
        const [text, vars] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, Record<string, Value> | undefined];
        return String(text).replace(/\$\{([^}]+)\}/g, (_m, name: string) => {
          if (vars && name in vars) return str(vars[name]);
          const [id, attr] = name.split(/\.(.*)/);
          return attr ? str({ 'Fn::GetAtt': [id, attr] }) : str({ Ref: id });
        });
      }
      case 'Fn::If': {
        const branches = [this.resolve(stack, args[1]), this.resolve(stack, args[2])];
        return branches.sort((a, b) => JSON.stringify(b ?? '').length - JSON.stringify(a ?? '').length)[0];
      }
      case 'Fn::Base64':
        return Buffer.from(str(arg)).toString('base64');
      case 'Fn::GetAZs':
        return ['xx-xxxxxxxxx-1a', 'xx-xxxxxxxxx-1b', 'xx-xxxxxxxxx-1c'];
      default:
        return 'x'.repeat(128);
    }
  }

  private ref(stack: StackTemplate, id: string): Value {
    if (id in PSEUDO) return PSEUDO[id];
    if (id === 'AWS::StackName') return stack.parent ? `${stack.parent.name}-${stack.parent.logicalId}-${RANDOM}` : stack.name;
    if (id === 'AWS::StackId') return this.arn('cloudformation', `stack/${stack.name}/00000000-0000-0000-0000-000000000000`);
    const parameter = stack.template.Parameters?.[id];
    if (parameter) {
      const parent = stack.parent && this.byName.get(stack.parent.name);
      const parameters = parent?.template.Resources?.[stack.parent!.logicalId]?.Properties?.Parameters;
      const passed = (parameters as Record<string, Value> | undefined)?.[id];
      if (parent && passed !== undefined) return this.resolve(parent, passed);
      return parameter.Default !== undefined ? this.resolve(stack, parameter.Default) : 'x'.repeat(64);
    }
    const resource = stack.template.Resources?.[id];
    if (!resource) return 'x'.repeat(64);
    const name = this.physicalName(stack, id, resource);
    switch (resource.Type) {
      case 'AWS::SQS::Queue':
        return `https://sqs.${PSEUDO['AWS::Region']}.amazonaws.com/${PSEUDO['AWS::AccountId']}/${name}`;
      case 'AWS::SNS::Topic':
        return this.arn('sns', name);
      case 'AWS::KMS::Key':
        return '00000000-0000-0000-0000-000000000000';
      case 'AWS::SecretsManager::Secret':
        return this.arn('secretsmanager', `secret:${name}-AbCdEf`);
      case 'AWS::ApiGatewayV2::Api':
        return 'abcde12345';
      case 'AWS::CloudFormation::Stack':
        return this.arn('cloudformation', `stack/${name}/00000000-0000-0000-0000-000000000000`);
      default:
        return name;
    }
  }

  private getAtt(stack: StackTemplate, id: string, attr: string): Value {
    const resource = stack.template.Resources?.[id];
    if (!resource) return 'x'.repeat(128);
    if (resource.Type === 'AWS::CloudFormation::Stack' && attr.startsWith('Outputs.')) {
      const nested = this.stacks.find((s) => s.parent?.name === stack.name && s.parent.logicalId === id);
      const output = nested?.template.Outputs?.[attr.slice('Outputs.'.length)];
      return nested && output ? this.resolve(nested, output.Value) : 'x'.repeat(128);
    }
    const name = this.physicalName(stack, id, resource);
    const region = PSEUDO['AWS::Region'];
    const ref = () => this.string(stack, { Ref: id });
    switch (`${resource.Type}.${attr}`) {
      case 'AWS::Lambda::Function.Arn':
        return this.arn('lambda', `function:${name}`);
      case 'AWS::IAM::Role.Arn':
        return `arn:${PSEUDO['AWS::Partition']}:iam::${PSEUDO['AWS::AccountId']}:role/${name}`;
      case 'AWS::Logs::LogGroup.Arn':
        return this.arn('logs', `log-group:${name}:*`);
      case 'AWS::DynamoDB::Table.Arn':
        return this.arn('dynamodb', `table/${name}`);
      case 'AWS::DynamoDB::Table.StreamArn':
        return this.arn('dynamodb', `table/${name}/stream/2026-01-01T00:00:00.000`);
      case 'AWS::SQS::Queue.Arn':
        return this.arn('sqs', name);
      case 'AWS::SQS::Queue.QueueName':
        return name;
      case 'AWS::SNS::Topic.TopicArn':
        return ref();
      case 'AWS::KMS::Key.Arn':
        return this.arn('kms', `key/${ref()}`);
      case 'AWS::ApiGatewayV2::Api.ApiEndpoint':
        return `https://${ref()}.execute-api.${region}.amazonaws.com`;
      case 'AWS::Events::Rule.Arn':
        return this.arn('events', `rule/${name}`);
      default:
        return 'x'.repeat(128);
    }
  }

  private importValue(exportName: string): Value {
    for (const s of this.stacks) {
      for (const output of Object.values(s.template.Outputs ?? {})) {
        if (output.Export && this.string(s, output.Export.Name) === exportName) return this.resolve(s, output.Value);
      }
    }
    return 'x'.repeat(128);
  }

  /** The resource's name: the one its properties give, else CloudFormation's `<stack>-<logical id>-<suffix>`. */
  private physicalName(stack: StackTemplate, id: string, resource: CfnResource): string {
    const nameProperty = Object.keys(resource.Properties ?? {}).find((k) =>
      ['FunctionName', 'RoleName', 'LogGroupName', 'TableName', 'QueueName', 'TopicName', 'Name'].includes(k),
    );
    if (nameProperty) return this.string(stack, resource.Properties![nameProperty]);
    const stackName = stack.parent ? `${stack.parent.name}-${stack.parent.logicalId}-${RANDOM}` : stack.name;
    // CloudFormation cuts the stack and logical id parts, never its random suffix (unique here per resource).
    const suffix = createHash('sha256').update(`${stack.name}/${id}`).digest('hex').slice(0, RANDOM.length).toUpperCase();
    return `${`${stackName}-${id}`.slice(0, (NAME_MAX[resource.Type] ?? 64) - suffix.length - 1)}-${suffix}`;
  }

  private arn(service: string, resource: string): string {
    return `arn:${PSEUDO['AWS::Partition']}:${service}:${PSEUDO['AWS::Region']}:${PSEUDO['AWS::AccountId']}:${resource}`;
  }
}
