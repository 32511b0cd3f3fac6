import { nonJson } from './json-value.js';
import type { FieldError } from './immutability.js';
import type { StoredObject } from './object.js';

/*
 * The store's 422 checks. Each returns why a write is invalid (the text after `Kind "key": ` in
 * the InvalidError message, worded like kube-apiserver's field errors), or undefined. They
 * cover only the shapes the store itself relies on: the store does no schema validation.
 */

/** Why a name cannot be stored, or undefined. Keys are `namespace/name`, so no `/`. @internal */
export function invalidName(name: string, namespace: string | undefined): string | undefined {
  if (name.includes('/')) return `metadata.name: Invalid value: "${name}": may not contain '/'`;
  if (namespace !== undefined && namespace.includes('/')) return `metadata.namespace: Invalid value: "${namespace}": may not contain '/'`;
  return undefined;
}

/**
 * Why an object cannot be stored (the shapes the store itself relies on), or undefined. With
 * `stored`, the version it replaces, a part that is the very same value as the stored one's is
 * not walked again: it was checked when it was stored (stored objects are never mutated), which
 * keeps a status write from re-walking spec and metadata. Allocates nothing on the valid path.
 * @internal
 */
export function invalidObject(o: StoredObject, stored?: StoredObject): string | undefined {
  const m = o.metadata;
  const sm = stored?.metadata;
  if (m.labels !== sm?.labels && !isStringMap(m.labels)) return 'metadata.labels: Invalid value: must map strings to strings';
  if (m.annotations !== sm?.annotations && !isStringMap(m.annotations)) return 'metadata.annotations: Invalid value: must map strings to strings';
  if (m.finalizers !== sm?.finalizers && !validFinalizers(m.finalizers)) return 'metadata.finalizers: Invalid value: must be a list of non-empty strings';
  if (m.ownerReferences !== sm?.ownerReferences && !validOwnerReferences(m.ownerReferences)) return 'metadata.ownerReferences: Invalid value: each needs kind, name and uid';
  if (!isPlainObject(o.spec)) return 'spec: Invalid value: must be an object';
  if (!isPlainObject(o.status)) return 'status: Invalid value: must be an object';
  const top = o as unknown as Record<string, unknown>;
  const before = stored as unknown as Record<string, unknown> | undefined;
  const spec = o.spec === stored?.spec ? undefined : nonJson(o.spec, 'spec');
  if (spec !== undefined) return spec;
  const status = o.status === stored?.status ? undefined : nonJson(o.status, 'status');
  if (status !== undefined) return status;
  for (const k in top) {
    if (k === 'spec' || k === 'status' || k === 'metadata') continue;
    const v = top[k];
    if (before !== undefined && v === before[k]) continue;
    const bad = nonJson(v, k);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

function validFinalizers(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const f of v) if (typeof f !== 'string' || f === '') return false;
  return true;
}

function validOwnerReferences(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const r of v) if (!isPlainObject(r) || typeof r['uid'] !== 'string' || r['uid'] === '' || typeof r['kind'] !== 'string' || typeof r['name'] !== 'string') return false;
  return true;
}

/**
 * Why `next` may not replace `cur`, or undefined: once an object is being deleted, finalizers
 * can only be removed, as kube-apiserver enforces.
 * @internal
 */
export function invalidTransition(cur: StoredObject, next: StoredObject): string | undefined {
  if (cur.metadata.deletionTimestamp === undefined) return undefined;
  const added = next.metadata.finalizers.filter((f) => !cur.metadata.finalizers.includes(f));
  if (added.length === 0) return undefined;
  return `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isStringMap(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  for (const k in v) if (typeof v[k] !== 'string') return false;
  return true;
}

const KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The answer for every kind but ConfigMap and Secret: one frozen empty list, none made per write (callers only read it). */
const NO_ERRORS = Object.freeze([]) as unknown as FieldError[];

/**
 * The content checks kube-apiserver makes of ConfigMaps and Secrets on every write: entries map
 * valid keys to strings (base64 ones for `binaryData` and a Secret's `data`), a key is in `data`
 * or `binaryData`, not both, and `immutable` is a boolean.
 * @internal
 */
export function contentErrors(o: StoredObject): FieldError[] {
  if (o.kind !== 'ConfigMap' && o.kind !== 'Secret') return NO_ERRORS;
  const out: FieldError[] = [];
  const entries = (field: string, base64: boolean): string[] => {
    const v = o[field];
    if (v === undefined || v === null) return [];
    if (!isPlainObject(v)) {
      out.push({ field, type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(v)}: must be a map of keys to strings` });
      return [];
    }
    for (const [k, x] of Object.entries(v)) {
      if (!KEY.test(k)) out.push({ field: `${field}[${k}]`, type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(k)}: a valid config key must consist of alphanumeric characters, '-', '_' or '.'` });
      else if (typeof x !== 'string') out.push({ field: `${field}[${k}]`, type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(x)}: must be a string` });
      else if (base64 && !BASE64.test(x)) out.push({ field: `${field}[${k}]`, type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(x)}: illegal base64 data` });
    }
    return Object.keys(v);
  };
  const data = entries('data', o.kind === 'Secret');
  if (o.kind === 'ConfigMap') {
    const binary = entries('binaryData', true);
    for (const k of binary) if (data.includes(k)) out.push({ field: `data[${k}]`, type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(k)}: duplicate of key present in binaryData` });
  }
  if (o['immutable'] !== undefined && typeof o['immutable'] !== 'boolean') out.push({ field: 'immutable', type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(o['immutable'])}: must be a boolean` });
  return out;
}

/** The message of field errors, as kube-apiserver joins them (one, or a bracketed list). @internal */
export function fieldErrorsText(errors: readonly FieldError[]): string {
  const parts = errors.map((e) => `${e.field}: ${e.body}`);
  return parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
}
