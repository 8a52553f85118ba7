// A form generated from a tool's JSON input schema. Values are kept as the
// strings the user typed, so a bad value never loses input; toArguments turns
// them into the call's arguments or reports what is wrong per field.

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'array' | 'json';

export interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  description: string;
  title: string;
  /** enum choices (kind enum), as JSON-encoded strings so numbers survive. */
  options: unknown[];
  /** Item kind for arrays of primitives. */
  itemKind?: 'string' | 'number' | 'integer' | 'boolean';
  default?: unknown;
}

export type Values = Record<string, string>;
export type FieldErrors = Record<string, string>;

type Schema = Record<string, unknown>;

function typeOf(s: Schema): string | undefined {
  const t = s.type;
  if (typeof t === 'string') return t;
  // ["string", "null"] → string
  if (Array.isArray(t)) return t.find((x) => x !== 'null') as string | undefined;
  return undefined;
}

export function fieldsOf(schema: Schema): Field[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(props).map(([name, raw]) => {
    const s = (typeof raw === 'object' && raw !== null ? raw : {}) as Schema;
    const base = {
      name,
      required: required.has(name),
      description: typeof s.description === 'string' ? s.description : '',
      title: typeof s.title === 'string' ? s.title : name,
      options: [] as unknown[],
      default: s.default,
    };
    if (Array.isArray(s.enum) && s.enum.length > 0) return { ...base, kind: 'enum' as const, options: s.enum };
    const t = typeOf(s);
    if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean') return { ...base, kind: t };
    if (t === 'array') {
      const items = (s.items ?? {}) as Schema;
      const it = typeOf(items);
      if ((it === 'string' || it === 'number' || it === 'integer' || it === 'boolean') && !Array.isArray(items.enum)) {
        return { ...base, kind: 'array' as const, itemKind: it };
      }
    }
    return { ...base, kind: 'json' as const };
  });
}

/** The form's starting values: each field's default, else empty. */
export function initialValues(fields: Field[]): Values {
  const v: Values = {};
  for (const f of fields) {
    const d = f.default;
    if (d === undefined) v[f.name] = f.kind === 'boolean' && f.required ? 'false' : '';
    else if (f.kind === 'array' && Array.isArray(d)) v[f.name] = d.map(String).join('\n');
    else if (f.kind === 'json' || f.kind === 'enum') v[f.name] = JSON.stringify(d, null, f.kind === 'json' ? 2 : undefined);
    else v[f.name] = String(d);
  }
  return v;
}

export interface Problems {
  required: string;
  notNumber: string;
  notInteger: string;
  badJson: (msg: string) => string;
  badItem: (line: number) => string;
}

function primitive(kind: 'string' | 'number' | 'integer' | 'boolean', text: string): { ok: true; v: unknown } | { ok: false } {
  if (kind === 'string') return { ok: true, v: text };
  if (kind === 'boolean') {
    if (text === 'true') return { ok: true, v: true };
    if (text === 'false') return { ok: true, v: false };
    return { ok: false };
  }
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) return { ok: false };
  if (kind === 'integer' && !Number.isInteger(n)) return { ok: false };
  return { ok: true, v: n };
}

/** Builds the arguments object; empty optional fields are left out. */
export function toArguments(
  fields: Field[],
  values: Values,
  p: Problems,
): { ok: true; args: Record<string, unknown> } | { ok: false; errors: FieldErrors } {
  const args: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const f of fields) {
    const raw = values[f.name] ?? '';
    const empty = f.kind === 'string' ? raw === '' : raw.trim() === '';
    if (empty) {
      if (f.required) errors[f.name] = p.required;
      continue;
    }
    switch (f.kind) {
      case 'string':
        args[f.name] = raw;
        break;
      case 'number':
      case 'integer': {
        const r = primitive(f.kind, raw.trim());
        if (r.ok) args[f.name] = r.v;
        else errors[f.name] = f.kind === 'integer' && Number.isFinite(Number(raw)) ? p.notInteger : p.notNumber;
        break;
      }
      case 'boolean':
        args[f.name] = raw === 'true';
        break;
      case 'enum':
        args[f.name] = JSON.parse(raw);
        break;
      case 'array': {
        const items = raw.split('\n').filter((l) => l.trim() !== '');
        const out: unknown[] = [];
        for (let i = 0; i < items.length; i++) {
          const r = primitive(f.itemKind ?? 'string', f.itemKind === 'string' ? items[i]! : items[i]!.trim());
          if (!r.ok) {
            errors[f.name] = p.badItem(i + 1);
            break;
          }
          out.push(r.v);
        }
        args[f.name] = out;
        break;
      }
      case 'json':
        try {
          args[f.name] = JSON.parse(raw);
        } catch (err) {
          errors[f.name] = p.badJson(err instanceof Error ? err.message : String(err));
        }
        break;
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, args };
}
