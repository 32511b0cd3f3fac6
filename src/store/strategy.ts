import { InvalidError } from './errors.js';
import { builtinApiVersion, cloneSorted, isBuiltin, keysSorted, sortedShallow } from './key-order.js';
import { cloneJson, contentOf, virtualTimestamp, type JsonObject, type NewObject, type OwnerReference, type StoredObject } from './object.js';
import { checkUid, resourceVersionConflict } from './preconditions.js';

/*
 * What the server sets and keeps on each write, after kube-apiserver's registry strategies
 * (PrepareForCreate, PrepareForUpdate, the status subresource's strategy): pure builders of the
 * next stored object. The store adds resourceVersion and generation, and runs the checks.
 */

/** The metadata a write through the main resource may change; absent fields become empty. @internal */
export interface WritableMetadata {
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
  finalizers?: string[] | undefined;
  ownerReferences?: OwnerReference[] | undefined;
}

/**
 * The object a create stores (its resourceVersion still empty): the request's fields, deep
 * copied and defaulted (every top-level field kept, a Secret's `stringData` folded into `data`),
 * plus the server-set metadata.
 * @internal
 */
export function prepareForCreate(input: NewObject<unknown, unknown>, name: string, namespace: string | undefined, uid: string, now: number): StoredObject {
  const meta = input.metadata;
  if (keysSorted(input.kind, input.apiVersion)) {
    // a custom resource: stored (and served) with every key sorted, metadata's too (see key-order.ts)
    const metadata = { annotations: cloneSorted(meta.annotations ?? {}) } as StoredObject['metadata'];
    metadata.creationTimestamp = virtualTimestamp(now);
    metadata.finalizers = cloneJson(meta.finalizers ?? []);
    if (meta.generateName !== undefined) metadata.generateName = meta.generateName;
    metadata.generation = 1;
    metadata.labels = cloneSorted(meta.labels ?? {});
    metadata.name = name;
    if (namespace !== undefined) metadata.namespace = namespace;
    metadata.ownerReferences = cloneSorted(meta.ownerReferences ?? []);
    metadata.resourceVersion = '';
    metadata.uid = uid;
    return withContent(shell(input.apiVersion, input.kind, metadata, cloneSorted((input.status ?? {}) as JsonObject)), cloneSorted(contentOf(input)));
  }
  // fields added one by one in the order of the literal they stand for: a literal that starts
  // with a conditional spread costs V8 (Node 20) microseconds per object (see {@link shell})
  const metadata = { name } as StoredObject['metadata'];
  if (namespace !== undefined) metadata.namespace = namespace;
  if (meta.generateName !== undefined) metadata.generateName = meta.generateName;
  metadata.uid = uid;
  metadata.resourceVersion = '';
  metadata.generation = 1;
  metadata.creationTimestamp = virtualTimestamp(now);
  metadata.finalizers = cloneJson(meta.finalizers ?? []);
  metadata.ownerReferences = cloneJson(meta.ownerReferences ?? []);
  // Go map fields of ObjectMeta: served sorted for every kind
  metadata.labels = cloneSorted(meta.labels ?? {});
  metadata.annotations = cloneSorted(meta.annotations ?? {});
  // a built-in object always has its apiVersion on a cluster: an in-process `{ kind: 'ConfigMap' }` gets the core one
  const apiVersion = input.apiVersion !== undefined && input.apiVersion !== '' ? input.apiVersion : builtinApiVersion(input.kind);
  return withContent(shell(apiVersion, input.kind, metadata, cloneJson((input.status ?? {}) as JsonObject)), cloneJson(contentOf(input)));
}

/**
 * `{ apiVersion?, kind, metadata, spec: {}, status }` (apiVersion only when defined; the keys in
 * sorted order, as a custom resource keeps them). Written as
 * two literals: the same object as `{ ...(apiVersion !== undefined ? { apiVersion } : {}), kind, … }`,
 * which V8 (Node 20) builds on its slow path (a spread copy that then gains fields: ~3 µs
 * against ~30 ns), on every store write.
 */
function shell(apiVersion: string | undefined, kind: string, metadata: StoredObject['metadata'], status: JsonObject): StoredObject {
  return apiVersion !== undefined ? { apiVersion, kind, metadata, spec: {}, status } : { kind, metadata, spec: {}, status };
}

/**
 * A write through the main resource: the content (spec and every other top-level field but
 * status) and the writable metadata come from the request, everything else (status, server-set
 * metadata) is kept. No copies of `content`. With `status` (a kind without the status subresource,
 * as a CRD without `subresources.status`), status comes from the request too, as kube-apiserver keeps it.
 * @internal
 */
export function prepareForUpdate(cur: StoredObject, content: Record<string, unknown>, meta: WritableMetadata, status?: JsonObject): StoredObject {
  // copied, then the four fields stored: the object (and key order) of `{ ...cur.metadata, labels, … }`, off V8's slower path for a spread literal that redefines fields
  const metadata = { ...cur.metadata };
  // Go map fields of ObjectMeta, served sorted for every kind (a custom kind's came sorted already)
  metadata.labels = meta.labels ? sortedShallow(meta.labels) : {};
  metadata.annotations = meta.annotations ? sortedShallow(meta.annotations) : {};
  metadata.finalizers = meta.finalizers ?? [];
  metadata.ownerReferences = meta.ownerReferences ?? [];
  // `status` only for a kind without the status subresource: its main resource writes status too
  return withContent(shell(cur.apiVersion, cur.kind, metadata, status ?? cur.status), content);
}

/**
 * `base` with the content fields set (spec defaulting to `{}`), a Secret's stringData folded in.
 * A custom resource's top-level keys stay sorted (a field besides spec comes after status
 * otherwise); a ConfigMap's or Secret's data maps are sorted, as Go serves a map.
 */
function withContent(base: StoredObject, content: Record<string, unknown>): StoredObject {
  let out: StoredObject = base;
  let others = false;
  for (const k in content) {
    if (content[k] === undefined) continue;
    out[k] = content[k];
    if (k !== 'spec') others = true;
  }
  if (out.spec === null || out.spec === undefined) out.spec = {};
  if (!others) return out;
  const builtin = isBuiltin(out.kind, out.apiVersion);
  if (builtin && out.kind === 'Secret') out = foldStringData(out);
  if (builtin && (out.kind === 'Secret' || out.kind === 'ConfigMap')) {
    for (const f of ['data', 'binaryData']) {
      const m = out[f];
      if (m !== null && typeof m === 'object' && !Array.isArray(m)) out[f] = sortedShallow(m);
    }
    return out;
  }
  return builtin ? out : sortedShallow(out);
}

/**
 * Secrets: `stringData` is write-only; its entries land base64-encoded in `data` (overriding
 * entries of the same key), as kube-apiserver does on every write.
 */
function foldStringData(obj: StoredObject): StoredObject {
  const sd = obj['stringData'];
  if (sd === undefined) return obj;
  const { stringData: _drop, ...rest } = obj;
  if (sd === null || typeof sd !== 'object' || Array.isArray(sd)) return { ...rest, stringData: sd } as StoredObject; // validation answers 422
  const data: Record<string, string> = rest.data !== null && typeof rest.data === 'object' && !Array.isArray(rest.data) ? { ...rest.data } : {};
  for (const [k, v] of Object.entries(sd as Record<string, unknown>)) data[k] = base64(String(v));
  return { ...rest, data } as StoredObject;
}

/** UTF-8 text as base64 (no Node Buffer needed). */
function base64(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** A write through the status subresource: only status comes from the request. No copies. @internal */
export function prepareForStatusUpdate(cur: StoredObject, status: JsonObject | undefined): StoredObject {
  // copied, then status stored: the same object (and key order) as `{ ...cur, status }`, which
  // V8 (Node 20) builds on a slower path (a spread literal that redefines a field)
  const next = { ...cur };
  next.status = status ?? {};
  return next;
}

/**
 * A patch (any transformation of the current object) through the main resource or the status
 * subresource: only the part that subresource may write is kept. A resourceVersion or uid in
 * the patched object is a precondition, as in kube-apiserver.
 * @throws InvalidError when the result is not an object, ConflictError when a precondition fails
 * @internal
 */
export function prepareForPatch(kind: string, key: string, cur: StoredObject, result: unknown, status: boolean, mainWritesStatus = false): StoredObject {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) throw new InvalidError(`${kind} "${key}": patch result is not an object`);
  // the result may share parts with the patch's inputs; a custom resource's keys are sorted in the copy
  const next = (keysSorted(kind, cur.apiVersion) ? cloneSorted(result) : cloneJson(result)) as StoredObject;
  const m = (next.metadata !== null && typeof next.metadata === 'object' ? next.metadata : {}) as Partial<StoredObject['metadata']>;
  const conflict = resourceVersionConflict(kind, key, cur, typeof m.resourceVersion === 'string' ? m.resourceVersion : undefined);
  if (conflict) throw conflict;
  checkUid(cur, m.uid);
  if (status) return prepareForStatusUpdate(cur, next.status as JsonObject | undefined);
  return prepareForUpdate(cur, contentOf(next), m, mainWritesStatus ? ((next.status ?? {}) as JsonObject) : undefined);
}

/**
 * A delete of an object that has finalizers: it stays, marked by a deletionTimestamp and a
 * generation bump (as kube-apiserver does), until the last finalizer goes; `finalizer` is added (Foreground deletion's).
 * @internal
 */
export function prepareForDeletion(cur: StoredObject, now: number, rv: number, finalizer?: string): StoredObject {
  const metadata = {
    ...cur.metadata,
    deletionTimestamp: virtualTimestamp(now),
    generation: cur.metadata.generation + 1,
    resourceVersion: String(rv),
    ...(finalizer !== undefined ? { finalizers: [...cur.metadata.finalizers, finalizer] } : {}),
  };
  // deletionTimestamp is a new key: a custom resource's metadata gets it in its sorted place
  return { ...cur, metadata: keysSorted(cur.kind, cur.apiVersion) ? sortedShallow(metadata) : metadata };
}

/**
 * The built-in kinds whose registry strategy keeps `metadata.generation` in Kubernetes 1.32 (sets
 * it to 1 on create, bumps it on a spec change): the workloads, and the kinds whose status reports
 * an observedGeneration. A ConfigMap, Secret, Service, Pod (until 1.33), Namespace, Lease, RBAC
 * object, … has none.
 */
const GENERATION_KINDS: ReadonlySet<string> = new Set([
  'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'ReplicationController', 'NetworkPolicy', 'Ingress',
  'PodDisruptionBudget', 'CustomResourceDefinition', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding',
]);

/**
 * Whether kube-apiserver keeps `metadata.generation` for `kind`: every custom resource, and the
 * built-in kinds of {@link GENERATION_KINDS}. The store counts a generation for every kind (its
 * typed objects always carry one); the wire leaves it out where a real server has none.
 * @internal
 */
export function keepsGeneration(kind: string, apiVersion?: string): boolean {
  return keysSorted(kind, apiVersion) || GENERATION_KINDS.has(kind);
}

/**
 * The suffix of a `generateName` name: deterministic (from a counter `n`), name-safe, 5 chars
 * like Kubernetes' generated suffixes.
 * @internal
 */
export function generateNameSuffix(n: number): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) {
    s += alphabet[n % alphabet.length];
    n = Math.floor(n / alphabet.length) + 13 * i;
  }
  return s;
}
