import type { ReconcileContext, StoredObject } from '../../../src/index.js';

/**
 * The object being reconciled, read from the API server rather than the informer cache
 * (controller-runtime's API reader): the cache may still show an object that was just deleted or
 * changed, and a controller that creates children for a deleted parent makes garbage the
 * collector must remove (and, at zero latency, feeds itself). One read per reconcile buys that.
 */
export function latest<S, T>(ctx: ReconcileContext, kind: string): Promise<StoredObject<S, T> | undefined> {
  return ctx.client.tryGet<S, T>(kind, ctx.key, { live: true });
}
