import { ConflictError, InvalidError, NotFoundError, StoreError } from './errors.js';
import { cloneSorted, isBuiltin } from './key-order.js';
import type { FieldError } from './immutability.js';
import { cloneJson, keyOf, type Json, type JsonObject, type StoredObject } from './object.js';

/**
 * An autoscaling/v1 Scale: the body of the scale subresource (`deployments/{name}/scale`), what
 * HorizontalPodAutoscaler, KEDA, `kubectl scale` and client-go's scale client read and write to
 * scale a workload without owning its spec. Its metadata is the scaled object's (name, namespace,
 * uid, resourceVersion, creationTimestamp); `spec.replicas` is the object's desired replicas,
 * `status.replicas` its observed ones and `status.selector` its Pods' label selector as a string.
 * @public
 */
export interface Scale {
  /** `autoscaling/v1` */
  apiVersion?: string;
  /** `Scale` */
  kind?: string;
  metadata: {
    /** The scaled object's name. */
    name: string;
    namespace?: string | undefined;
    /** Precondition on a write: 409 unless the object still has this uid. */
    uid?: string | undefined;
    /** Precondition on a write: 409 unless the object is still at this resourceVersion. */
    resourceVersion?: string | undefined;
    creationTimestamp?: string | undefined;
  };
  spec: {
    /** Desired replicas; absent is 0, as in the API (an int32 without a pointer). */
    replicas?: number | undefined;
  };
  status?: {
    replicas: number;
    /** The Pods' label selector in its string form (`app=web,tier in (a,b)`); '' when it has none. */
    selector?: string | undefined;
  };
}

/** Where a kind keeps what its Scale shows (a CRD's `subresources.scale`). @internal */
export interface ScalePaths {
  /** `.spec.replicas` */
  specReplicasPath: string;
  /** `.status.replicas` */
  statusReplicasPath: string;
  /** `.status.selector` (a string field); undefined: the built-ins' `spec.selector` object, or none. */
  labelSelectorPath: string | undefined;
  /** A built-in workload (its spec.selector is a LabelSelector object). */
  builtin: boolean;
}

/** Built-in kinds with a scale subresource (kube-apiserver 1.32), by kind: their apiVersions. */
const BUILTIN_SCALE: ReadonlyMap<string, string> = new Map([
  ['Deployment', 'apps/v1'],
  ['ReplicaSet', 'apps/v1'],
  ['StatefulSet', 'apps/v1'],
  ['ReplicationController', 'v1'],
]);

const BUILTIN_PATHS: ScalePaths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: undefined, builtin: true };

/** The scale paths of a built-in `kind` (stored with `apiVersion`), or undefined when it has no scale subresource. @internal */
export function builtinScalePaths(kind: string, apiVersion: string | undefined): ScalePaths | undefined {
  return BUILTIN_SCALE.has(kind) && isBuiltin(kind, apiVersion) ? BUILTIN_PATHS : undefined;
}

/** A CRD version's `subresources.scale`, or undefined when it has none (or a malformed one, which the API server would have refused). @internal */
export function crdScalePaths(subresources: unknown): ScalePaths | undefined {
  if (subresources === null || typeof subresources !== 'object') return undefined;
  const s = (subresources as Record<string, unknown>)['scale'];
  if (s === null || typeof s !== 'object') return undefined;
  const { specReplicasPath, statusReplicasPath, labelSelectorPath } = s as Record<string, unknown>;
  if (typeof specReplicasPath !== 'string' || !specReplicasPath.startsWith('.spec.')) return undefined;
  if (typeof statusReplicasPath !== 'string' || !statusReplicasPath.startsWith('.status.')) return undefined;
  return { specReplicasPath, statusReplicasPath, labelSelectorPath: typeof labelSelectorPath === 'string' && labelSelectorPath !== '' ? labelSelectorPath : undefined, builtin: false };
}

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

function valueAt(obj: StoredObject, path: string): unknown {
  let v: unknown = obj;
  for (const s of segments(path)) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[s];
  }
  return v;
}

/**
 * A LabelSelector object in the string form apimachinery's `LabelSelectorAsSelector(…).String()`
 * gives: requirements sorted by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`.
 */
function selectorString(sel: unknown): string {
  if (sel === null || typeof sel !== 'object' || Array.isArray(sel)) return '';
  const s = sel as { matchLabels?: unknown; matchExpressions?: unknown };
  const reqs: { key: string; text: string }[] = [];
  if (s.matchLabels !== null && typeof s.matchLabels === 'object') {
    for (const [k, v] of Object.entries(s.matchLabels as Record<string, unknown>)) reqs.push({ key: k, text: `${k}=${String(v)}` });
  }
  if (Array.isArray(s.matchExpressions)) {
    for (const e of s.matchExpressions as { key?: unknown; operator?: unknown; values?: unknown }[]) {
      const key = String(e?.key ?? '');
      const values = Array.isArray(e?.values) ? (e.values as unknown[]).map(String).sort() : [];
      const op = e?.operator;
      const text = op === 'In' ? `${key} in (${values.join(',')})` : op === 'NotIn' ? `${key} notin (${values.join(',')})` : op === 'Exists' ? key : op === 'DoesNotExist' ? `!${key}` : undefined;
      if (text !== undefined) reqs.push({ key, text });
    }
  }
  // sort.Sort(ByKey): by key only
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',');
}

/**
 * The Scale of `obj`, as kube-apiserver's ScaleREST builds it (scaleFromDeployment, and
 * scaleFromCustomResource for a CRD's paths: a missing replicas field is 0). `found`: whether the
 * object has its spec replicas field (a custom resource's Scale cannot be read without one).
 * @internal
 */
export function scaleOf(obj: StoredObject, paths: ScalePaths): { scale: Scale; found: boolean } {
  const spec = valueAt(obj, paths.specReplicasPath);
  const status = valueAt(obj, paths.statusReplicasPath);
  const selector = paths.builtin ? selectorString(obj.spec['selector']) : paths.labelSelectorPath !== undefined ? valueAt(obj, paths.labelSelectorPath) : undefined;
  const m = obj.metadata;
  return {
    scale: {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: {
        name: m.name,
        ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
        uid: m.uid,
        resourceVersion: m.resourceVersion,
        creationTimestamp: m.creationTimestamp,
      },
      spec: { replicas: typeof spec === 'number' ? spec : 0 },
      status: { replicas: typeof status === 'number' ? status : 0, ...(typeof selector === 'string' && selector !== '' ? { selector } : {}) },
    },
    found: typeof spec === 'number',
  };
}

/** The Scale a client reads: 500 for a custom resource without its spec replicas field, as the CRD's ScaleREST answers. @internal */
export function readableScale(obj: StoredObject, paths: ScalePaths): Scale {
  const { scale, found } = scaleOf(obj, paths);
  if (!found && !paths.builtin) throw new StoreError('InternalError', 500, `the spec replicas field ${JSON.stringify(paths.specReplicasPath)} does not exist`);
  return scale;
}

/** 404 for a kind without a scale subresource (`the server could not find the requested resource`). @internal */
export function noScaleSubresource(kind: string, key: string): NotFoundError {
  return new NotFoundError(
    `the server could not find the requested resource (${kind} "${key}"/scale: ${kind} has no scale subresource; Deployments, ReplicaSets, StatefulSets and custom kinds whose CustomResourceDefinition declares subresources.scale have one)`,
  );
}

/**
 * The object `cur` after the Scale `next` was written to it, as ScaleREST's scaleUpdatedObjectInfo
 * makes it: only the spec replicas field changes (422 for negative replicas, 409 for a uid or
 * resourceVersion precondition that no longer holds). The write path then bumps resourceVersion
 * and generation as for any spec write. Throws a 400-like InvalidError for replicas that are no
 * int32 (the API server fails to decode them).
 * @internal
 */
export function scaledObject(cur: StoredObject, paths: ScalePaths, next: Scale): StoredObject {
  const key = keyOf(cur.metadata);
  const raw: unknown = next?.spec?.replicas;
  const replicas = raw === undefined || raw === null ? 0 : raw;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas > 2147483647 || replicas < -2147483648) {
    throw new InvalidError(`Scale "${key}": spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be an int32 (the API server cannot decode it)`, [{ field: 'spec.replicas', type: 'FieldValueInvalid', body: `Invalid value: ${JSON.stringify(replicas)}: must be an int32` }]);
  }
  if (replicas < 0) {
    // ValidateScale for the built-ins; the CRD strategy's validateScaleSpec for custom resources
    const body = paths.builtin ? `Invalid value: ${replicas}: must be greater than or equal to 0` : `Invalid value: ${replicas}: should be a non-negative integer`;
    const field = paths.builtin ? 'spec.replicas' : paths.specReplicasPath;
    throw new InvalidError(`Scale "${key}": ${field}: ${body}`, [{ field, type: 'FieldValueInvalid', body }]);
  }
  const uid = next.metadata?.uid;
  if (typeof uid === 'string' && uid !== '' && uid !== cur.metadata.uid) {
    throw new ConflictError(`Operation cannot be fulfilled on ${cur.kind} "${key}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${cur.metadata.uid}`);
  }
  const rv = next.metadata?.resourceVersion;
  if (typeof rv === 'string' && rv !== '' && rv !== cur.metadata.resourceVersion) {
    throw new ConflictError(`Operation cannot be fulfilled on ${cur.kind} "${key}": the object has been modified; please apply your changes to the latest version and try again`);
  }
  const out = cloneJson(cur);
  const path = segments(paths.specReplicasPath);
  let at = out as unknown as Record<string, Json>;
  for (const s of path.slice(0, -1)) {
    const child = at[s];
    if (child === null || typeof child !== 'object' || Array.isArray(child)) at[s] = {};
    at = at[s] as unknown as Record<string, Json>;
  }
  at[path[path.length - 1]!] = replicas;
  // a custom resource's keys stay sorted (key-order.ts) when the replicas field is a new one
  return paths.builtin ? out : cloneSorted(out);
}

/** One replicas field of a custom resource as the CRD's validator (ValidateScaleSpec/Status) judges it, or undefined. */
function replicasFieldError(obj: StoredObject, path: string): FieldError | undefined {
  const v = valueAt(obj, path);
  if (v === undefined || v === null) return undefined;
  const type = typeof v === 'number' && Number.isInteger(v) ? undefined : typeof v === 'number' ? 'float64' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
  // unstructured.NestedInt64's error (`.spec.replicas accessor error: 1.5 is of the type float64, expected int64`)
  if (type !== undefined) return { field: path, type: 'FieldValueInvalid', body: `Invalid value: 0: ${path} accessor error: ${typeof v === 'object' ? JSON.stringify(v) : String(v)} is of the type ${type}, expected int64` };
  if ((v as number) < 0) return { field: path, type: 'FieldValueInvalid', body: `Invalid value: ${v as number}: should be a non-negative integer` };
  if ((v as number) > 2147483647) return { field: path, type: 'FieldValueInvalid', body: `Invalid value: ${v as number}: should be less than or equal to 2147483647` };
  return undefined;
}

/**
 * What the validator of a custom resource whose CRD declares `subresources.scale` refuses on every
 * write (apiextensions-apiserver's customResourceValidator): the spec replicas field (not on a
 * status write) and the status replicas field must be integers in [0, 2147483647] where present,
 * and the label selector field a string. @internal
 */
export function customScaleErrors(obj: StoredObject, paths: ScalePaths, statusWrite: boolean): FieldError[] {
  const out: FieldError[] = [];
  const spec = statusWrite ? undefined : replicasFieldError(obj, paths.specReplicasPath);
  if (spec !== undefined) out.push(spec);
  const status = replicasFieldError(obj, paths.statusReplicasPath);
  if (status !== undefined) out.push(status);
  if (paths.labelSelectorPath !== undefined) {
    const sel = valueAt(obj, paths.labelSelectorPath);
    if (sel !== undefined && sel !== null && typeof sel !== 'string') out.push({ field: paths.labelSelectorPath, type: 'FieldValueInvalid', body: `Invalid value: "": ${paths.labelSelectorPath} accessor error: ${typeof sel === 'object' ? JSON.stringify(sel) : String(sel)} is of the type ${typeof sel === 'number' ? (Number.isInteger(sel) ? 'int64' : 'float64') : typeof sel === 'boolean' ? 'bool' : Array.isArray(sel) ? '[]interface {}' : 'map[string]interface {}'}, expected string` });
  }
  return out;
}

/** The JSON form of a Scale (for merge patches). @internal */
export function scaleJson(scale: Scale): JsonObject {
  return cloneJson(scale) as unknown as JsonObject;
}
