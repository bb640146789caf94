/**
 * The CloudWatch metrics a synthesized template reads: every alarm's metric (single-metric alarms and the
 * MetricStat inputs of metric-math alarms) and every metric row of every dashboard widget. CloudFormation
 * tokens (a queue name, an API id) become TOKEN. test/integration/monitoring-metrics.test.ts compares them
 * with what the code emits.
 */

/** Stands for a CloudFormation token (Ref, Fn::GetAtt, ...) in a dimension value or the dashboard body. */
export const TOKEN = '<token>';

export interface MetricRead {
  /** Where it is read: `alarm <name>` or `dashboard <widget title>`. */
  readonly source: string;
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
}

export interface TemplateJson {
  readonly Resources: Record<string, { Type: string; Properties?: Record<string, any> }>;
}

const resources = (t: TemplateJson, type: string) => Object.values(t.Resources).filter((r) => r.Type === type);
const text = (v: unknown) => (typeof v === 'string' ? v : TOKEN);
const dimensionsOf = (dims: { Name: string; Value: unknown }[] = []) => Object.fromEntries(dims.map((d) => [d.Name, text(d.Value)]));

interface CfnMetric {
  Namespace: string;
  MetricName: string;
  Dimensions?: { Name: string; Value: unknown }[];
}

export function alarmMetrics(t: TemplateJson): MetricRead[] {
  return resources(t, 'AWS::CloudWatch::Alarm').flatMap(({ Properties: p = {} }) => {
    const source = `alarm ${text(p.AlarmName)}`;
    const single: CfnMetric[] = p.MetricName ? [p as CfnMetric] : [];
    const math = ((p.Metrics ?? []) as { MetricStat?: { Metric: CfnMetric } }[]).flatMap((m) =>
      m.MetricStat ? [m.MetricStat.Metric] : [],
    );
    return [...single, ...math].map((m) => ({
      source,
      namespace: text(m.Namespace),
      name: text(m.MetricName),
      dimensions: dimensionsOf(m.Dimensions),
    }));
  });
}

/** A DashboardBody (a string, or an Fn::Join of strings and tokens) parsed, tokens replaced by TOKEN. */
export function dashboardBody(body: unknown): { widgets: { type: string; properties: Record<string, any> }[] } {
  if (typeof body === 'string') return JSON.parse(body);
  const join = (body as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) throw new Error(`DashboardBody is neither a string nor an Fn::Join: ${JSON.stringify(body).slice(0, 200)}`);
  // Tokens sit inside JSON strings ("...\"", {token}, "\"..."), so the placeholder carries no quotes.
  return JSON.parse(join[1].map(text).join(join[0]));
}

type Row = unknown[];

/**
 * The metrics of one widget's `metrics` rows: `[namespace, name, dimName, dimValue, ..., {options}?]`,
 * where '.' repeats the previous row's element at that position; `[{ expression }]` rows read no metric
 * of their own (their inputs are rows too).
 */
export function widgetMetrics(rows: Row[], source: string): MetricRead[] {
  const out: MetricRead[] = [];
  let previous: unknown[] = [];
  for (const row of rows) {
    const last = row[row.length - 1];
    const hasOptions = typeof last === 'object' && last !== null;
    const plain = (hasOptions ? row.slice(0, -1) : row).map((v, i) => (v === '.' ? previous[i] : v));
    if (plain.length === 0) continue; // an expression: [{ expression, label, ... }]
    previous = plain;
    const [namespace, name, ...pairs] = plain;
    if (pairs.length % 2 !== 0) throw new Error(`${source}: odd dimension list in ${JSON.stringify(row)}`);
    const dimensions: Record<string, string> = {};
    for (let i = 0; i < pairs.length; i += 2) dimensions[text(pairs[i])] = text(pairs[i + 1]);
    out.push({ source, namespace: text(namespace), name: text(name), dimensions });
  }
  return out;
}

export function dashboardMetrics(t: TemplateJson): MetricRead[] {
  return resources(t, 'AWS::CloudWatch::Dashboard').flatMap(({ Properties: p = {} }) =>
    dashboardBody(p.DashboardBody).widgets.flatMap((w) =>
      Array.isArray(w.properties?.metrics) ? widgetMetrics(w.properties.metrics as Row[], `dashboard "${w.properties.title}"`) : [],
    ),
  );
}

/** Environment variables of every Lambda function in the template. */
export function functionEnvironments(t: TemplateJson): Record<string, unknown>[] {
  return resources(t, 'AWS::Lambda::Function').map((r) => (r.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>);
}
