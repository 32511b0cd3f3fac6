import type { ReconcileContext, StoredObject } from '../../../src/index.js';

/**
 * Adds a finalizer (before the controller creates anything it must clean up). True when it had
 * to write: the update's watch event brings the key back, so the caller returns.
 */
export async function addFinalizer<S, T>(ctx: ReconcileContext, obj: StoredObject<S, T>, finalizer: string): Promise<boolean> {
  if (obj.metadata.finalizers.includes(finalizer)) return false;
  await ctx.client.update({ ...obj, metadata: { ...obj.metadata, finalizers: [...obj.metadata.finalizers, finalizer] } });
  return true;
}

/** Removes a finalizer once cleanup is done (optimistic concurrency: a stale object gets a 409). */
export async function removeFinalizer<S, T>(ctx: ReconcileContext, obj: StoredObject<S, T>, finalizer: string): Promise<void> {
  if (!obj.metadata.finalizers.includes(finalizer)) return;
  await ctx.client.update({ ...obj, metadata: { ...obj.metadata, finalizers: obj.metadata.finalizers.filter((f) => f !== finalizer) } });
}
