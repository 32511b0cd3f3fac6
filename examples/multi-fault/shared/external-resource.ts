import type { ReconcileContext, ReconcileResult, StoredObject } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../../bug-zoo/shared/finalizers.js';
import { jsonApi, matches, type JsonApi, type Remote } from '../../bug-zoo/shared/json-api.js';
import { latest } from '../../bug-zoo/shared/latest.js';

/** Status of an object that owns one external resource. */
export interface ExternalStatus {
  /** Server-chosen id of the external resource. */
  id?: string;
  observedGeneration?: number;
}

/** How one kind maps to its external resource. */
export interface ExternalResourceOptions<S> {
  kind: string;
  baseUrl: string;
  collection: string;
  finalizer: string;
  /** The external resource's body for an object (it carries `owner`: the object's uid). */
  desired: (o: StoredObject<S, ExternalStatus>) => { owner: string } & Record<string, string | number | boolean>;
  /** Deletes what the object owns at the API before its finalizer goes. */
  cleanup: (api: JsonApi, o: StoredObject<S, ExternalStatus>) => Promise<void>;
  /** Re-check a synced resource this often (drift repair). @defaultValue 10_000 */
  recheckMs?: number;
}

/**
 * The reconcile of a controller that keeps one external resource per object at a REST API that
 * honours an `Idempotency-Key` header: created with a key made of the object's uid (a retry after
 * a lost response or a crash gets the same resource back), its id recorded in status, re-checked
 * periodically, and deleted behind a finalizer by `cleanup`.
 */
export function reconcileExternal<S>(o: ExternalResourceOptions<S>) {
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    const obj = await latest<S, ExternalStatus>(ctx, o.kind);
    if (!obj) return;
    const api = jsonApi(ctx.fetch, o.baseUrl);
    if (obj.metadata.deletionTimestamp !== undefined) {
      if (!obj.metadata.finalizers.includes(o.finalizer)) return;
      await o.cleanup(api, obj);
      await removeFinalizer(ctx, obj, o.finalizer);
      return;
    }
    if (await addFinalizer(ctx, obj, o.finalizer)) return;
    const want = o.desired(obj);
    let remote: Remote<object> | undefined = obj.status.id !== undefined ? await api.get<object>(o.collection, obj.status.id) : undefined;
    // one key per resource to create: the first one, or the replacement of one someone deleted
    if (!remote) remote = await api.create(o.collection, want, { idempotencyKey: `${obj.metadata.uid}/${obj.status.id ?? 'first'}` });
    else if (!matches(remote, want)) remote = await api.replace(o.collection, remote.id, want);
    if (obj.status.id !== remote.id || obj.status.observedGeneration !== obj.metadata.generation) {
      // a merge patch without a precondition: the id is recorded even if the object changed meanwhile
      await ctx.client.patchStatus(o.kind, ctx.key, { status: { id: remote.id, observedGeneration: obj.metadata.generation } });
    }
    return { requeueAfter: o.recheckMs ?? 10_000 };
  };
}
