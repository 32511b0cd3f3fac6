import { InvalidError } from './errors.js';
import { cloneJson, virtualTimestamp, type JsonObject, type NewObject, type OwnerReference, type StoredObject } from './object.js';
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
 * copied and defaulted, plus the server-set metadata.
 * @internal
 */
export function prepareForCreate(input: NewObject<unknown, unknown>, name: string, namespace: string | undefined, uid: string, now: number): StoredObject {
  const meta = input.metadata;
  return {
    ...(input.apiVersion !== undefined ? { apiVersion: input.apiVersion } : {}),
    kind: input.kind,
    metadata: {
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(meta.generateName !== undefined ? { generateName: meta.generateName } : {}),
      uid,
      resourceVersion: '',
      generation: 1,
      creationTimestamp: virtualTimestamp(now),
      finalizers: cloneJson(meta.finalizers ?? []),
      ownerReferences: cloneJson(meta.ownerReferences ?? []),
      labels: cloneJson(meta.labels ?? {}),
      annotations: cloneJson(meta.annotations ?? {}),
    },
    spec: cloneJson((input.spec ?? {}) as JsonObject),
    status: cloneJson((input.status ?? {}) as JsonObject),
  };
}

/**
 * A write through the main resource: spec and the writable metadata come from the request,
 * everything else (status, server-set metadata) is kept. No copies.
 * @internal
 */
export function prepareForUpdate(cur: StoredObject, spec: JsonObject | undefined, meta: WritableMetadata): StoredObject {
  return {
    ...cur,
    spec: spec ?? {},
    metadata: {
      ...cur.metadata,
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
      finalizers: meta.finalizers ?? [],
      ownerReferences: meta.ownerReferences ?? [],
    },
  };
}

/** A write through the status subresource: only status comes from the request. No copies. @internal */
export function prepareForStatusUpdate(cur: StoredObject, status: JsonObject | undefined): StoredObject {
  return { ...cur, status: status ?? {} };
}

/**
 * A patch (any transformation of the current object) through the main resource or the status
 * subresource: only the part that subresource may write is kept. A resourceVersion or uid in
 * the patched object is a precondition, as in kube-apiserver.
 * @throws InvalidError when the result is not an object, ConflictError when a precondition fails
 * @internal
 */
export function prepareForPatch(kind: string, key: string, cur: StoredObject, result: unknown, status: boolean): StoredObject {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) throw new InvalidError(`${kind} "${key}": patch result is not an object`);
  const next = cloneJson(result) as StoredObject; // the result may share parts with the patch's inputs
  const m = (next.metadata !== null && typeof next.metadata === 'object' ? next.metadata : {}) as Partial<StoredObject['metadata']>;
  const conflict = resourceVersionConflict(kind, key, cur, typeof m.resourceVersion === 'string' ? m.resourceVersion : undefined);
  if (conflict) throw conflict;
  checkUid(cur, m.uid);
  return status ? prepareForStatusUpdate(cur, next.status as JsonObject | undefined) : prepareForUpdate(cur, next.spec as JsonObject | undefined, m);
}

/**
 * A delete of an object that has finalizers: it stays, marked by a deletionTimestamp and a
 * generation bump (as kube-apiserver does), until the last finalizer goes.
 * @internal
 */
export function prepareForDeletion(cur: StoredObject, now: number, rv: number): StoredObject {
  return {
    ...cur,
    metadata: { ...cur.metadata, deletionTimestamp: virtualTimestamp(now), generation: cur.metadata.generation + 1, resourceVersion: String(rv) },
  };
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
