import type { FieldError } from './immutability.js';
import { jsonEqual, type Json, type JsonObject, type StoredObject } from './object.js';

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function typeOf(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function hasType(v: Json, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

function text(v: Json): string {
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
}

function num(s: JsonObject, k: string): number | undefined {
  const v = s[k];
  return typeof v === 'number' ? v : undefined;
}

/** Patterns compiled once (ECMAScript's dialect; a pattern it cannot compile checks nothing, as an invalid CRD would have been refused). */
const patterns = new Map<string, RegExp | null>();
function pattern(p: string): RegExp | null {
  let r = patterns.get(p);
  if (r === undefined) {
    try {
      r = new RegExp(p, 'u');
    } catch {
      r = null;
    }
    patterns.set(p, r);
  }
  return r;
}

function validate(v: Json, s: unknown, path: string, old: Json | undefined, out: FieldError[]): void {
  if (!isObject(s)) return;
  // validation ratcheting (GA in 1.33): a part an update left as it was is not judged again
  if (old !== undefined && jsonEqual(v, old)) return;
  if (v === null) {
    if (s['nullable'] !== true && typeof s['type'] === 'string') out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: "null": ${path} in body must be of type ${s['type']}: "null"` });
    return;
  }
  if (s['x-kubernetes-int-or-string'] === true) {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: "${typeOf(v)}": ${path} in body must be of type integer,string: ${text(v)}` });
    return;
  }
  const type = s['type'];
  if (typeof type === 'string' && !hasType(v, type)) {
    out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: "${typeOf(v)}": ${path} in body must be of type ${type}: ${text(v)}` });
    return;
  }
  const enumValues = s['enum'];
  if (Array.isArray(enumValues) && !enumValues.some((e) => jsonEqual(e, v))) {
    out.push({ field: path, type: 'FieldValueNotSupported', body: `Unsupported value: ${text(v)}: supported values: ${enumValues.map((e) => text(e)).join(', ')}` });
  }
  if (typeof v === 'string') {
    const length = [...v].length;
    const max = num(s, 'maxLength');
    const min = num(s, 'minLength');
    if (max !== undefined && length > max) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${text(v)}: ${path} in body should be at most ${max} chars long` });
    if (min !== undefined && length < min) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${text(v)}: ${path} in body should be at least ${min} chars long` });
    const p = typeof s['pattern'] === 'string' ? pattern(s['pattern']) : null;
    if (p !== null && !p.test(v)) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${text(v)}: ${path} in body should match '${String(s['pattern'])}'` });
  }
  if (typeof v === 'number') {
    const max = num(s, 'maximum');
    const min = num(s, 'minimum');
    if (max !== undefined && (s['exclusiveMaximum'] === true ? v >= max : v > max)) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${v}: ${path} in body should be less than ${s['exclusiveMaximum'] === true ? '' : 'or equal to '}${max}` });
    if (min !== undefined && (s['exclusiveMinimum'] === true ? v <= min : v < min)) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${v}: ${path} in body should be greater than ${s['exclusiveMinimum'] === true ? '' : 'or equal to '}${min}` });
    const multiple = num(s, 'multipleOf');
    if (multiple !== undefined && multiple > 0 && !Number.isInteger(v / multiple)) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${v}: ${path} in body should be a multiple of ${multiple}` });
  }
  if (Array.isArray(v)) {
    const max = num(s, 'maxItems');
    const min = num(s, 'minItems');
    if (max !== undefined && v.length > max) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${v.length}: ${path} in body should have at most ${max} items` });
    if (min !== undefined && v.length < min) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: ${v.length}: ${path} in body should have at least ${min} items` });
    const items = s['items'];
    const was = Array.isArray(old) ? old : undefined;
    v.forEach((item, i) => validate(item, items, `${path}[${i}]`, was?.[i], out));
    return;
  }
  if (isObject(v)) {
    const required = s['required'];
    if (Array.isArray(required)) for (const r of required) if (typeof r === 'string' && v[r] === undefined) out.push({ field: path === '' ? r : `${path}.${r}`, type: 'FieldValueRequired', body: 'Required value' });
    const props = isObject(s['properties']) ? s['properties'] : undefined;
    const additional = isObject(s['additionalProperties']) ? s['additionalProperties'] : undefined;
    const was = isObject(old) ? old : undefined;
    for (const [k, x] of Object.entries(v)) {
      if (path === '' && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const sub = props !== undefined && Object.hasOwn(props, k) ? props[k] : additional;
      if (sub !== undefined) validate(x, sub, path === '' ? k : `${path}.${k}`, was?.[k], out);
    }
  }
}

/**
 * What kube-apiserver's validation of a custom resource against its CRD's structural schema
 * (`openAPIV3Schema`: type, nullable, int-or-string, enum, required, minimum/maximum, length,
 * pattern, items) refuses, with the field paths of its answer (a 422). Parts an update left as
 * they were are not judged again (validation ratcheting). CEL rules (`x-kubernetes-validations`)
 * and `format` are not checked. A controller that writes a value its CRD forbids (a phase outside
 * the enum, a negative count) used to pass here; on a cluster every such write fails.
 * @internal
 */
export function schemaErrors(obj: StoredObject, schema: unknown, old: StoredObject | undefined): FieldError[] {
  const out: FieldError[] = [];
  validate(obj as unknown as JsonObject, schema, '', old as unknown as JsonObject | undefined, out);
  return out;
}
