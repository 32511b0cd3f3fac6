/**
 * Object shapes of the simulated API server (SPEC §2.1). Kinds are plain strings, so
 * non-Kubernetes reconcilers use the same store.
 */

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** @public */
export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** @public */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  generateName?: string;
  uid: string;
  /** Decimal string of the store's global counter, as in Kubernetes. */
  resourceVersion: string;
  generation: number;
  /** RFC 3339 time derived from virtual time (see {@link virtualTimestamp}). */
  creationTimestamp: string;
  deletionTimestamp?: string;
  finalizers: string[];
  ownerReferences: OwnerReference[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * The top-level fields of built-in kinds besides spec and status, as kube-apiserver serves them
 * (ConfigMap, Secret, ServiceAccount, RBAC kinds, Event). The store keeps every top-level field of
 * every kind, these and any other.
 * @public
 */
export interface TopLevelFields {
  /** ConfigMap / Secret entries (Secret values are base64). */
  data?: Record<string, string>;
  /** ConfigMap binary entries (base64). */
  binaryData?: Record<string, string>;
  /** Secret type, e.g. `Opaque`, `kubernetes.io/tls`. */
  type?: string;
  /** ConfigMap / Secret: once true, data, binaryData and immutable itself can no longer change. */
  immutable?: boolean;
  /** Role / ClusterRole policy rules. */
  rules?: Json[];
  /** RoleBinding / ClusterRoleBinding subjects. */
  subjects?: Json[];
  /** RoleBinding / ClusterRoleBinding role reference. */
  roleRef?: JsonObject;
  /** Every other top-level field. */
  [field: string]: unknown;
}

/** An object as stored and returned by the store: metadata, spec, status and every other top-level field. @public */
export interface StoredObject<Spec = JsonObject, Status = JsonObject> extends TopLevelFields {
  apiVersion?: string;
  kind: string;
  metadata: ObjectMeta;
  spec: Spec;
  status: Status;
}

/** Top-level fields the server manages (the rest is the object's content). @internal */
const MANAGED_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * An object's content: every top-level field but apiVersion, kind, metadata and status (spec,
 * ConfigMap data, RBAC rules, …). What a write through the main resource replaces, and what
 * bumps `metadata.generation` when it changes. No copies.
 * @internal
 */
export function contentOf(obj: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in obj) {
    const v = (obj as Record<string, unknown>)[k];
    if (v !== undefined && !MANAGED_FIELDS.has(k)) out[k] = v;
  }
  return out;
}

/**
 * `jsonEqual(contentOf(a), contentOf(b))` without building either content object (the store
 * asks it on every write, to decide whether `metadata.generation` moves).
 * @internal
 */
export function contentEqual(a: object, b: object): boolean {
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let na = 0;
  for (const k in ao) {
    const v = ao[k];
    if (v === undefined || MANAGED_FIELDS.has(k)) continue;
    na++;
    if (!jsonEqual(v, bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined && !MANAGED_FIELDS.has(k)) nb++;
  return na === nb;
}

/**
 * What a caller passes to create: everything but the server-set fields is optional. Top-level
 * fields besides spec and status (ConfigMap `data`, Secret `stringData`, RBAC `rules`) are kept;
 * a Secret's `stringData` is merged into `data` (base64) on write, as kube-apiserver does.
 * @public
 */
export interface NewObject<Spec = JsonObject, Status = JsonObject> extends TopLevelFields {
  /** Secret: write-only plain-text entries, stored base64-encoded in `data`. */
  stringData?: Record<string, string>;
  apiVersion?: string;
  kind: string;
  // `| undefined` on purpose: users with exactOptionalPropertyTypes can pass `namespace: ctx.namespace`
  metadata: {
    name?: string | undefined;
    generateName?: string | undefined;
    namespace?: string | undefined;
    labels?: Record<string, string> | undefined;
    annotations?: Record<string, string> | undefined;
    finalizers?: string[] | undefined;
    ownerReferences?: OwnerReference[] | undefined;
    resourceVersion?: string | undefined;
    uid?: string | undefined;
  };
  spec?: Spec | undefined;
  status?: Status | undefined;
}

/** Identifies one object: kind plus namespace/name. @public */
export interface ObjectRef {
  kind: string;
  namespace?: string;
  name: string;
}

/** `namespace/name`, or `name` for cluster-scoped objects (the workqueue key format). @public */
export function keyOf(ref: { namespace?: string | undefined; name: string }): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

/** Splits a `namespace/name` key. @public */
export function parseKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** Virtual time zero, as a wall-clock instant, so timestamps look like Kubernetes ones. */
export const VIRTUAL_EPOCH_MS = Date.UTC(2026, 0, 1);

/** RFC 3339 timestamp for a virtual time in milliseconds. @public */
export function virtualTimestamp(ms: number): string {
  // the last one made is kept: a run stamps many objects at one virtual instant (creations, deletions)
  if (ms !== lastStampMs) {
    lastStamp = Number.isInteger(ms) && ms >= 0 && ms < DAY_MS ? FIRST_DAY + clockTime(ms) : new Date(VIRTUAL_EPOCH_MS + ms).toISOString();
    lastStampMs = ms;
  }
  return lastStamp;
}
const DAY_MS = 86_400_000;
/** The date part of every stamp of the virtual epoch's first day (a run's whole time, nearly always). */
const FIRST_DAY = new Date(VIRTUAL_EPOCH_MS).toISOString().slice(0, 11);

/** `hh:mm:ss.mmmZ` of `ms` into the day, as Date's toISOString writes it (which costs ~5× more, and runs at every create). */
function clockTime(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const f = ms % 1000;
  return `${h < 10 ? '0' : ''}${h}:${m < 10 ? '0' : ''}${m}:${s < 10 ? '0' : ''}${s}.${f < 10 ? '00' : f < 100 ? '0' : ''}${f}Z`;
}
let lastStampMs = Number.NaN;
let lastStamp = '';

/** Virtual milliseconds of a timestamp produced by {@link virtualTimestamp}. @public */
export function fromVirtualTimestamp(ts: string): number {
  return Date.parse(ts) - VIRTUAL_EPOCH_MS;
}

/**
 * Deep copy of plain JSON data (faster than structuredClone for small objects). An instance of
 * a class (a Date, a Map) is kept as it is, not flattened to `{}`, so that validation can name it.
 * @internal
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const k in value as Record<string, unknown>) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = cloneJson(v);
  }
  return out as T;
}

/** Structural equality of JSON data (undefined members count as absent). @internal */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return (a === undefined && b === undefined) || false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    na++;
    if (!jsonEqual(ao[k], bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}
