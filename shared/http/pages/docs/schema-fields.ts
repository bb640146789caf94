/** Flattens a JSON schema of the published document into the rows of a field table: name, type, required, notes. */
import { resolve } from '../../../contract/examples';

type Schema = Record<string, unknown>;

export interface FieldRow {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly notes: string;
}

const variantsOf = (s: Schema) => (s.anyOf ?? s.oneOf) as Schema[] | undefined;

/** A short type label: string, integer, object, array of object, "a" | "b", ... */
export function typeLabel(input: Schema, root: Schema): string {
  const s = resolve(input, root);
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const variants = variantsOf(s);
  if (variants) return [...new Set(variants.map((v) => typeLabel(v, root)))].join(' or ');
  const type = Array.isArray(s.type) ? s.type.join(' or ') : String(s.type ?? 'any');
  if (type === 'array' && s.items) return `array of ${typeLabel(s.items as Schema, root)}`;
  return s.format ? `${type} (${String(s.format)})` : type;
}

function notes(s: Schema): string {
  const out: string[] = [];
  if (typeof s.description === 'string') out.push(s.description);
  if (typeof s.pattern === 'string' && !s.format) out.push(`pattern ${s.pattern}`);
  if (typeof s.minLength === 'number' || typeof s.maxLength === 'number') out.push(`length ${s.minLength ?? 0}-${s.maxLength ?? '∞'}`);
  if (typeof s.minimum === 'number') out.push(`min ${s.minimum}`);
  if (typeof s.exclusiveMinimum === 'number') out.push(`> ${s.exclusiveMinimum}`);
  if (typeof s.maximum === 'number') out.push(`max ${s.maximum}`);
  if ('default' in s) out.push(`default ${JSON.stringify(s.default)}`);
  return out.join('; ');
}

/** Rows for every property, nested ones as parent.child and items as parent[].child. */
export function fieldRows(input: Schema | undefined, root: Schema, prefix = '', depth = 0): FieldRow[] {
  if (!input || depth > 6) return [];
  const s = resolve(input, root);
  const variants = variantsOf(s);
  if (variants) {
    const objects = variants.map((v) => resolve(v, root)).filter((v) => v.type === 'object');
    if (objects.length > 0) return objects.flatMap((v) => fieldRows(v, root, prefix, depth + 1)).filter(uniqueBy());
  }
  if (s.type === 'array' && s.items) return fieldRows(s.items as Schema, root, `${prefix}[]`, depth + 1);
  if (s.type !== 'object' || !s.properties) return [];
  const required = new Set((s.required ?? []) as string[]);
  const rows: FieldRow[] = [];
  for (const [key, raw] of Object.entries(s.properties as Record<string, Schema>)) {
    const child = resolve(raw, root);
    const name = prefix ? `${prefix}.${key}` : key;
    rows.push({ name, type: typeLabel(child, root), required: required.has(key), notes: notes(child) });
    rows.push(...fieldRows(child, root, name, depth + 1));
  }
  return rows;
}

function uniqueBy() {
  const seen = new Set<string>();
  return (r: FieldRow) => (seen.has(r.name) ? false : (seen.add(r.name), true));
}
