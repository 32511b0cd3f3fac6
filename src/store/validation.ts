import { nonJson } from './json-value.js';
import type { FieldError } from './immutability.js';
import { isBuiltin } from './key-order.js';
import type { StoredObject } from './object.js';

/*
 * The store's 422 checks. Each returns why a write is invalid (the text after `Kind "key": ` in
 * the InvalidError message, worded like kube-apiserver's field errors), or undefined. They
 * cover only the shapes the store itself relies on: the store does no schema validation.
 */

/**
 * Why a name cannot be stored, or undefined, worded as kube-apiserver's name validation: keys are
 * `namespace/name`, so never a `/`; a Service's name is a DNS-1035 label, a Namespace's a
 * DNS-1123 label (both at most 63 characters), RBAC names are path segments (`system:…`), and
 * every other kind's name a lowercase RFC 1123 subdomain of at most 253 characters (custom
 * resources too). A namespace is a DNS-1123 label.
 * @internal
 */
export function invalidName(name: string, namespace: string | undefined, kind?: string): string | undefined {
  if (name.includes('/')) return `metadata.name: Invalid value: "${name}": may not contain '/'`;
  if (namespace !== undefined && namespace.includes('/')) return `metadata.namespace: Invalid value: "${namespace}": may not contain '/'`;
  if (namespace !== undefined) {
    const ns = dnsLabelError(namespace, DNS1123_LABEL, DNS1123_LABEL_MSG);
    if (ns !== undefined) return `metadata.namespace: Invalid value: "${namespace}": ${ns}`;
  }
  if (kind === undefined) return undefined;
  let bad: string | undefined;
  if (kind === 'Service') bad = dnsLabelError(name, DNS1035_LABEL, DNS1035_LABEL_MSG);
  else if (kind === 'Namespace') bad = dnsLabelError(name, DNS1123_LABEL, DNS1123_LABEL_MSG);
  else if (PATH_SEGMENT_KINDS.has(kind)) bad = name === '.' || name === '..' ? `may not be '${name}'` : name.includes('%') ? "may not contain '%'" : undefined;
  else bad = subdomainError(name);
  if (bad === undefined) return undefined;
  const hint = kind === 'Service' || kind === 'Namespace' ? `; a ${kind} name is at most 63 lower-case letters, digits and '-'` : '';
  return `metadata.name: Invalid value: "${name}": ${bad}${hint} (derive names with lower-case letters, digits, '-' and '.' only, and shorten or hash long parts)`;
}

/** Kinds whose names are path segments only (rbac's ValidateRBACName): `system:controller:x` is a valid ClusterRole name. */
const PATH_SEGMENT_KINDS: ReadonlySet<string> = new Set(['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function dnsLabelError(v: string, re: RegExp, msg: string): string | undefined {
  if (v.length > 63) return 'must be no more than 63 characters';
  return re.test(v) ? undefined : msg;
}

function subdomainError(v: string): string | undefined {
  if (v.length > 253) return 'must be no more than 253 characters';
  return DNS1123_SUBDOMAIN.test(v) ? undefined : DNS1123_SUBDOMAIN_MSG;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const QUALIFIED_NAME_MSG = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** apimachinery's IsQualifiedName: an optional DNS-subdomain prefix and `/`, then a name part of at most 63 characters. */
function qualifiedNameError(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `a qualified name ${QUALIFIED_NAME_MSG.slice('name part '.length)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
  const name = parts[parts.length - 1]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') return 'prefix part must be non-empty';
    const bad = subdomainError(prefix);
    if (bad !== undefined) return `prefix part ${bad}`;
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  return QUALIFIED_NAME.test(name) ? undefined : QUALIFIED_NAME_MSG;
}

/** apimachinery's ValidateLabels: keys are qualified names, values at most 63 characters of the label alphabet. */
function labelError(labels: Record<string, string>): string | undefined {
  for (const k in labels) {
    const key = qualifiedNameError(k);
    if (key !== undefined) return `metadata.labels: Invalid value: ${JSON.stringify(k)}: ${key}`;
    const v = labels[k]!;
    if (v.length > 63) return `metadata.labels: Invalid value: ${JSON.stringify(v)}: must be no more than 63 characters (a label value is short: put a long value, an image reference or a URL in an annotation, or a hash of it in the label)`;
    if (!LABEL_VALUE.test(v)) return `metadata.labels: Invalid value: ${JSON.stringify(v)}: ${LABEL_VALUE_MSG} (put a value with other characters, an image reference or a URL, in an annotation)`;
  }
  return undefined;
}

/** kube-apiserver's total size limit of annotations (keys and values), `TotalAnnotationSizeLimitB`. */
const ANNOTATIONS_LIMIT = 256 * 1024;
/** kube-apiserver's size limit of a ConfigMap's or Secret's data (`MaxSecretSize`, the ConfigMap check alike). */
const DATA_LIMIT = 1024 * 1024;

function annotationsError(annotations: Record<string, string>): string | undefined {
  let size = 0;
  for (const k in annotations) {
    const key = qualifiedNameError(k);
    if (key !== undefined) return `metadata.annotations: Invalid value: ${JSON.stringify(k)}: ${key}`;
    size += utf8Length(k) + utf8Length(annotations[k]!);
  }
  if (size > ANNOTATIONS_LIMIT) return `metadata.annotations: Too long: may not be more than ${ANNOTATIONS_LIMIT} bytes (keep large data in a ConfigMap or Secret and reference it)`;
  return undefined;
}

/** Bytes of `s` in UTF-8, without encoding it. */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
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
  if (m.labels !== sm?.labels) {
    if (!isStringMap(m.labels)) return 'metadata.labels: Invalid value: must map strings to strings';
    const bad = sm !== undefined && jsonShallowEqual(m.labels, sm.labels) ? undefined : labelError(m.labels);
    if (bad !== undefined) return bad;
  }
  if (m.annotations !== sm?.annotations) {
    if (!isStringMap(m.annotations)) return 'metadata.annotations: Invalid value: must map strings to strings';
    const bad = sm !== undefined && jsonShallowEqual(m.annotations, sm.annotations) ? undefined : annotationsError(m.annotations);
    if (bad !== undefined) return bad;
  }
  if (m.finalizers !== sm?.finalizers) {
    if (!validFinalizers(m.finalizers)) return 'metadata.finalizers: Invalid value: must be a list of non-empty strings';
    // apimachinery's ValidateFinalizerName: each is a qualified name (an optional DNS prefix, '/', a name)
    // and for a built-in kind core's validateKubeFinalizerName: a name without a '/' is a standard one (a custom
    // resource only gets a warning from kube-apiserver)
    const builtin = isBuiltin(o.kind, o.apiVersion);
    for (const [i, f] of m.finalizers.entries()) {
      const bad = qualifiedNameError(f) ?? (builtin && !f.includes('/') && !STANDARD_FINALIZERS.has(f) ? 'name is neither a standard finalizer name nor is it fully qualified' : undefined);
      if (bad !== undefined) return `metadata.finalizers[${i}]: Invalid value: ${JSON.stringify(f)}: ${bad}`;
    }
  }
  if (m.ownerReferences !== sm?.ownerReferences) {
    if (!validOwnerReferences(m.ownerReferences)) return 'metadata.ownerReferences: Invalid value: each needs kind, name and uid';
    if (m.ownerReferences.filter((r) => r.controller === true).length > 1) {
      const names = m.ownerReferences.filter((r) => r.controller === true).map((r) => `${r.kind}/${r.name}`);
      return `metadata.ownerReferences: Invalid value: ${JSON.stringify(names)}: Only one reference can have Controller set to true (mark the other owners controller: false)`;
    }
  }
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

/** The finalizer names kube-apiserver's own machinery uses (core's IsStandardFinalizerName). */
const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

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

/** Same keys and values (string maps): an unchanged map is not validated again (a stored one passed). */
function jsonShallowEqual(a: Record<string, string>, b: Record<string, string>): boolean {
  let n = 0;
  for (const k in a) {
    if (a[k] !== b[k]) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

function isStringMap(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  for (const k in v) if (typeof v[k] !== 'string') return false;
  return true;
}

const KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The answer for every kind but ConfigMap, Secret and Event: one frozen empty list, none made per write (callers only read it). */
const NO_ERRORS = Object.freeze([]) as unknown as FieldError[];

/**
 * The content checks kube-apiserver makes of ConfigMaps and Secrets on every write: entries map
 * valid keys to strings (base64 ones for `binaryData` and a Secret's `data`), a key is in `data`
 * or `binaryData`, not both, and `immutable` is a boolean; and of Events (see eventErrors; `create`:
 * the write is a create).
 * @internal
 */
export function contentErrors(o: StoredObject, create = false): FieldError[] {
  if (!isBuiltin(o.kind, o.apiVersion)) return NO_ERRORS;
  if (o.kind === 'Event') return eventErrors(o, create);
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
  if (out.length === 0) {
    let size = 0;
    for (const f of o.kind === 'ConfigMap' ? ['data', 'binaryData'] : ['data']) {
      const v = o[f];
      if (!isPlainObject(v)) continue;
      // binaryData and a Secret's data are base64 on the wire: the limit counts the decoded bytes
      const decoded = f === 'binaryData' || o.kind === 'Secret';
      for (const k in v) size += utf8Length(k) + (decoded ? Math.floor(((v[k] as string).length * 3) / 4) : utf8Length(v[k] as string));
    }
    if (size > DATA_LIMIT) {
      out.push({ field: 'data', type: 'FieldValueInvalid', body: `Too long: must have at most ${DATA_LIMIT} bytes (a ${o.kind} holds at most 1 MiB: split the data, or keep it elsewhere)` });
    }
  }
  if (o['immutable'] !== undefined && typeof o['immutable'] !== 'boolean') out.push({ field: 'immutable', type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(o['immutable'])}: must be a boolean` });
  return out;
}

/** ValidateEvent's limits (pkg/apis/core/validation/events.go). */
const EVENT_LIMITS: readonly [field: string, path: string, limit: number][] = [
  ['reportingInstance', 'reportingInstance', 128],
  ['action', 'action', 128],
  ['reason', 'reason', 128],
];

/**
 * kube-apiserver's legacyValidateEvent, which every Event write passes (core/v1 and
 * events.k8s.io/v1, create and update): an Event without `eventTime` lives in its
 * involvedObject's namespace (a cluster-scoped object's Events in `default`); one with
 * `eventTime` names a namespaced involvedObject, or lives in `default` or `kube-system`, and names
 * its reporting controller and instance, its action and reason.
 */
function eventErrors(o: StoredObject, create: boolean): FieldError[] {
  // an events.k8s.io/v1 Event written in process carries that group's field names (over HTTP they are converted)
  const v1 = o.apiVersion === 'events.k8s.io/v1';
  const get = (f: string): unknown => o[f] ?? (v1 && Object.hasOwn(EVENT_V1_NAMES, f) ? o[EVENT_V1_NAMES[f]!] : undefined);
  const involvedObject = get('involvedObject');
  const involved = isPlainObject(involvedObject) ? involvedObject : {};
  const ins = typeof involved['namespace'] === 'string' ? involved['namespace'] : '';
  const ns = o.metadata.namespace ?? '';
  const stamped = typeof o['eventTime'] === 'string' && o['eventTime'] !== '';
  const mismatch = stamped ? ins === '' && ns !== 'default' && ns !== 'kube-system' : ins === '' ? ns !== '' && ns !== 'default' : ns !== ins;
  const strict = v1 && create;
  if (!stamped && !mismatch && !strict) return NO_ERRORS;
  const out: FieldError[] = [];
  if (mismatch) out.push({ field: 'involvedObject.namespace', type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(ins)}: does not match event.namespace` });
  if (stamped) stampedEventErrors(o, get, out);
  // ValidateEventCreate: a create through events.k8s.io/v1 is validated strictly too
  if (strict) {
    // validateV1EventSeries
    const series = get('series');
    if (isPlainObject(series)) {
      if (!(typeof series['count'] === 'number' && series['count'] >= 2)) out.push({ field: 'series.count', type: 'FieldValueInvalid', body: 'Invalid value: "": should be at least 2' });
      if (!(typeof series['lastObservedTime'] === 'string' && series['lastObservedTime'] !== '')) out.push({ field: 'series.lastObservedTime', type: 'FieldValueRequired', body: 'Required value' });
    }
    if (!stamped) out.push({ field: 'eventTime', type: 'FieldValueRequired', body: 'Required value' });
    const type = get('type');
    if (type !== 'Normal' && type !== 'Warning') out.push({ field: 'type', type: 'FieldValueInvalid', body: `Invalid value: "": has invalid value: ${typeof type === 'string' ? type : ''}` });
    for (const f of ['firstTimestamp', 'lastTimestamp']) if (typeof get(f) === 'string' && get(f) !== '') out.push({ field: f, type: 'FieldValueInvalid', body: 'Invalid value: "": needs to be unset' });
    const count = get('count');
    if (typeof count === 'number' && count !== 0) out.push({ field: 'count', type: 'FieldValueInvalid', body: 'Invalid value: "": needs to be unset' });
    const source = get('source');
    if (isPlainObject(source) && ((typeof source['component'] === 'string' && source['component'] !== '') || (typeof source['host'] === 'string' && source['host'] !== ''))) {
      out.push({ field: 'source', type: 'FieldValueInvalid', body: 'Invalid value: "": needs to be unset' });
    }
  }
  return out.length === 0 ? NO_ERRORS : out;
}

/** The core/v1 name → events.k8s.io/v1 name of the Event fields the two groups spell differently. @internal */
export const EVENT_V1_NAMES: Readonly<Record<string, string>> = {
  message: 'note',
  involvedObject: 'regarding',
  source: 'deprecatedSource',
  firstTimestamp: 'deprecatedFirstTimestamp',
  lastTimestamp: 'deprecatedLastTimestamp',
  count: 'deprecatedCount',
  reportingComponent: 'reportingController',
};

/** legacyValidateEvent's checks of an Event with eventTime: its reporter, instance, action, reason, note. */
function stampedEventErrors(o: StoredObject, get: (f: string) => unknown, out: FieldError[]): void {
  const text = (f: string) => {
    const v = get(f);
    return typeof v === 'string' ? v : '';
  };
  // the field as the request's group names it (core/v1 reportingComponent, events.k8s.io reportingController)
  const rc = o.apiVersion === 'events.k8s.io/v1' ? 'reportingController' : 'reportingComponent';
  const controller = text('reportingComponent');
  if (controller === '') {
    out.push({ field: rc, type: 'FieldValueRequired', body: 'Required value' });
    out.push({ field: rc, type: 'FieldValueInvalid', body: 'Invalid value: "": name part must be non-empty' });
    out.push({ field: rc, type: 'FieldValueInvalid', body: `Invalid value: "": ${QUALIFIED_NAME_MSG}` });
  } else {
    const bad = qualifiedNameError(controller);
    if (bad !== undefined) out.push({ field: rc, type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(controller)}: ${bad}` });
  }
  for (const [f, path, limit] of EVENT_LIMITS) {
    const v = text(f);
    if (v === '') out.push({ field: path, type: 'FieldValueRequired', body: 'Required value' });
    else if (v.length > limit) out.push({ field: path, type: 'FieldValueInvalid', body: `Invalid value: "": can have at most ${limit} characters` });
  }
  if (text('message').length > 1024) out.push({ field: 'note', type: 'FieldValueInvalid', body: 'Invalid value: "": can have at most 1024 characters' });
}

/** The message of field errors, as kube-apiserver joins them (one, or a bracketed list). @internal */
export function fieldErrorsText(errors: readonly FieldError[]): string {
  const parts = errors.map((e) => `${e.field}: ${e.body}`);
  return parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
}
