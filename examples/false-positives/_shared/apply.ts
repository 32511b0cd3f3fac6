import { AlreadyExistsError, type Json, type JsonObject, type NewObject, type ReconcileContext, type StoredObject } from '../../../src/index.js';
import { controllerUid } from './owner.js';

/** A child another owner still controls (its owner was deleted and recreated: the garbage collector removes it soon). */
export class HeldByAnotherOwner extends Error {
  constructor(kind: string, key: string) {
    super(`${kind} ${key} is controlled by another owner (waiting for the garbage collector)`);
    this.name = 'HeldByAnotherOwner';
  }
}

/**
 * Makes `desired` exist with at least the fields it names (client-side apply of the fields this
 * controller manages): creates it when missing (a create that finds it already there reads it
 * live), and merge-patches only the managed fields when they differ, so fields others set
 * (a binder's `spec.volumeName`, a scheduler's `spec.nodeName`, labels a person added) survive.
 * Returns the object as written, or as read when nothing needed writing.
 * @throws HeldByAnotherOwner when the object exists under another controller
 */
export async function apply(ctx: ReconcileContext, desired: NewObject & { metadata: { name: string } }): Promise<StoredObject> {
  const ref = { namespace: desired.metadata.namespace, name: desired.metadata.name };
  let current = await ctx.client.tryGet(desired.kind, ref);
  if (!current) {
    try {
      return await ctx.client.create(desired);
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      current = await ctx.client.get(desired.kind, ref, { live: true });
    }
  }
  const wantOwner = desired.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;
  const haveOwner = controllerUid(current);
  if (wantOwner !== undefined && haveOwner !== undefined && haveOwner !== wantOwner) throw new HeldByAnotherOwner(desired.kind, `${ref.namespace ?? ''}/${ref.name}`);
  const patch = managedPatch(current, desired);
  return patch === undefined ? current : ctx.client.patch(desired.kind, ref, patch);
}

/** The merge patch that brings `current` to the fields `desired` names, or undefined when it has them. */
export function managedPatch(current: StoredObject, desired: NewObject): JsonObject | undefined {
  const { kind: _k, apiVersion: _a, status: _s, metadata, ...content } = desired;
  const meta: JsonObject = {};
  if (metadata.labels && !contains(current.metadata.labels, metadata.labels)) meta['labels'] = metadata.labels;
  if (metadata.annotations && !contains(current.metadata.annotations, metadata.annotations)) meta['annotations'] = metadata.annotations;
  if (metadata.ownerReferences && !contains(current.metadata.ownerReferences, metadata.ownerReferences)) meta['ownerReferences'] = metadata.ownerReferences as unknown as Json;
  const patch: JsonObject = Object.keys(meta).length > 0 ? { metadata: meta } : {};
  for (const [k, v] of Object.entries(content)) if (v !== undefined && !contains(current[k], v)) patch[k] = v as Json;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/**
 * `want` is part of `have`: every member of an object (recursively), arrays of the same length
 * item by item, scalars equal. Items of an array are compared by the members `want` names too:
 * the API server defaults members of list items (a container's imagePullPolicy, a port's
 * protocol), so an item read back is never exactly the one written.
 */
export function contains(have: unknown, want: unknown): boolean {
  if (want === null || typeof want !== 'object') return have === want;
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => contains(have[i], w));
  if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
  const h = have as Record<string, unknown>;
  return Object.entries(want as Record<string, unknown>).every(([k, v]) => v === undefined || contains(h[k], v));
}

/** Deletes an object if it exists (a 404 is success: someone else got there first). */
export async function deleteIfPresent(ctx: ReconcileContext, kind: string, ref: { namespace?: string | undefined; name: string }, preconditions?: { uid: string; resourceVersion?: string }): Promise<void> {
  try {
    // Background named: a Job deleted without a policy would orphan its Pods (batch/v1's default)
    await ctx.client.delete(kind, ref, preconditions ? { propagationPolicy: 'Background', preconditions } : { propagationPolicy: 'Background' });
  } catch (err) {
    if ((err as { reason?: string }).reason !== 'NotFound') throw err;
  }
}
