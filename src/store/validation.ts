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

/** Why an object cannot be stored (the shapes the store itself relies on), or undefined. @internal */
export function invalidObject(o: StoredObject): string | undefined {
  const m = o.metadata;
  if (!isStringMap(m.labels)) return 'metadata.labels: Invalid value: must map strings to strings';
  if (!isStringMap(m.annotations)) return 'metadata.annotations: Invalid value: must map strings to strings';
  if (!Array.isArray(m.finalizers) || !m.finalizers.every((f) => typeof f === 'string' && f !== '')) return 'metadata.finalizers: Invalid value: must be a list of non-empty strings';
  if (!Array.isArray(m.ownerReferences) || !m.ownerReferences.every((r) => isPlainObject(r) && typeof r.uid === 'string' && r.uid !== '' && typeof r.kind === 'string' && typeof r.name === 'string')) {
    return 'metadata.ownerReferences: Invalid value: each needs kind, name and uid';
  }
  if (!isPlainObject(o.spec)) return 'spec: Invalid value: must be an object';
  if (!isPlainObject(o.status)) return 'status: Invalid value: must be an object';
  const top = o as unknown as Record<string, unknown>;
  for (const k of ['spec', 'status', ...Object.keys(top).filter((k) => k !== 'spec' && k !== 'status' && k !== 'metadata')]) {
    const bad = nonJson(top[k], k);
    if (bad !== undefined) return bad;
  }
  return undefined;
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
  return isPlainObject(v) && Object.values(v).every((x) => typeof x === 'string');
}

const KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The content checks kube-apiserver makes of ConfigMaps and Secrets on every write: entries map
 * valid keys to strings (base64 ones for `binaryData` and a Secret's `data`), a key is in `data`
 * or `binaryData`, not both, and `immutable` is a boolean.
 * @internal
 */
export function contentErrors(o: StoredObject): FieldError[] {
  if (o.kind !== 'ConfigMap' && o.kind !== 'Secret') return [];
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
