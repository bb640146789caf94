/**
 * Examples for the published document, built from the schemas themselves: each field's own example
 * (ids, amounts, timestamps carry one in their .meta), else its first enum value, const or default.
 * The contract tests validate every example against its schema, so an example cannot drift from it.
 */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, unknown>;

const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2026-11-23T14:05:09.120Z',
  uri: 'https://shop.example.com/orders/1001',
  email: 'maria@example.com',
};

/** Examples for the id patterns the schemas use: ^pi_[A-Za-z0-9_-]{22,64}$ gives pi_A1b2..., ^svc-mt-\\d+$ gives svc-mt-1. */
function patternExample(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return undefined;
  const id = /^\^([a-z]+)_\[A-Za-z0-9_-\]\{22/.exec(pattern);
  if (id) return `${id[1]}_A1b2C3d4E5f6G7h8I9j0Kl`;
  if (pattern.startsWith('^svc-mt-')) return 'svc-mt-1';
  return undefined;
}

/** A schema with its local $ref (#/components/...) replaced by the target, the referring object's own keys kept. */
export function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = (node as Schema)[part];
  return { ...(node as Schema), ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) };
}

/** An example value for a JSON schema in the document `root` (for $ref). */
export function exampleOf(input: unknown, root: Schema, depth = 0): Json {
  if (!input || typeof input !== 'object' || depth > 12) return null;
  const schema = resolve(input as Schema, root);
  if ('example' in schema) return schema.example as Json;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as Json;
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  if ('default' in schema) return schema.default as Json;
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (variants) {
    const pick = variants.find((v) => resolve(v, root).type !== 'null') ?? variants[0];
    return exampleOf(pick, root, depth + 1);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s) => exampleOf(s, root, depth + 1)));
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') as string) : (schema.type as string | undefined);
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries(props)) {
        const resolved = resolve(v, root);
        if (required.has(k) || 'example' in resolved) out[k] = exampleOf(v, root, depth + 1);
      }
      return out;
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items, root, depth + 1)] : [];
    case 'string':
      return FORMAT_EXAMPLES[schema.format as string] ?? patternExample(schema.pattern) ?? 'string';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return null;
  }
}

/** Sets `example` on every media type and parameter of the document that has a schema and none yet. */
export function addExamples(doc: Schema): void {
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const obj = node as Schema;
    for (const [key, value] of Object.entries(obj)) {
      if ((key === 'content' || key === 'parameters') && value && typeof value === 'object') {
        const targets = Array.isArray(value) ? value : Object.values(value as Schema);
        for (const t of targets as Schema[]) if (t.schema && t.example === undefined) t.example = exampleOf(t.schema, doc);
      }
      if (key !== 'components') visit(value);
    }
  };
  visit(doc.paths);
  visit(doc.webhooks);
}
