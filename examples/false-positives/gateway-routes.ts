import { defineController, isStoreError, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * `HttpRoute`s are published into one shared gateway ConfigMap (`gateway-routes`, one data entry
 * per route) by a controller with three workers: several routes reconcile at once and write the
 * same object, so every write is an optimistic-concurrency update (the resourceVersion read; a 409
 * is retried with back-off, never overwritten). Each reconcile recomputes the whole map from the
 * routes that exist (read live), so the map never depends on the order the workers saw them; a
 * finalizer makes sure a deleted route's entry is gone before the route is. Nobody owns the
 * ConfigMap; it exists while some route does.
 * Found while writing it (the controller, not the harness, was wrong each time): adding the
 * finalizer and returning under controller-runtime's `GenerationChanged` predicate left the route
 * unreconciled (the finalizer's update changes no generation, the predicate drops it and every
 * resync); an entry-by-entry map kept an empty ConfigMap in one run and none in another; deleting it
 * when the last *admitted* route left deleted and re-created it whenever a delayed route was
 * admitted late (no-extra-destructive-actions). With the predicate kept, a lost notification is
 * never repaired (SPEC §3 counts on resync for that), which is why this controller has none.
 */
export const HTTP_ROUTE = 'HttpRoute';
const FINALIZER = 'gateway.example.com/route';
const GATEWAY = { namespace: 'default', name: 'gateway-routes' };

interface RouteSpec {
  host: string;
  backend: string;
}
interface RouteStatus {
  admitted?: boolean;
  observedGeneration?: number;
}
type ConfigMap = StoredObject & { data?: Record<string, string> };

const entryOf = (r: StoredObject<unknown, unknown>): string => `${r.metadata.namespace ?? ''}.${r.metadata.name}`;

/**
 * Makes the shared ConfigMap hold exactly the routes that exist and are not being deleted, read live: the gateway's configuration is a function of every route, not of the
 * order this controller's workers happened to see them, so a delayed event never makes it churn.
 * No admitted route: no ConfigMap. A 409 (another worker wrote meanwhile) goes back to the queue.
 */
async function syncGateway(ctx: ReconcileContext): Promise<void> {
  const routes = await ctx.client.list<RouteSpec, RouteStatus>(HTTP_ROUTE, { namespace: GATEWAY.namespace, live: true });
  const data: Record<string, string> = {};
  for (const r of routes) if (r.metadata.deletionTimestamp === undefined) data[entryOf(r)] = `${r.spec.host} -> ${r.spec.backend}`;
  const cm = (await ctx.client.tryGet('ConfigMap', GATEWAY, { live: true })) as ConfigMap | undefined;
  if (Object.keys(data).length === 0) {
    // the precondition keeps a ConfigMap another worker just filled
    if (cm) await deleteIfPresent(ctx, 'ConfigMap', GATEWAY, { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion });
    return;
  }
  if (!cm) {
    try {
      await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...GATEWAY }, data } as never);
    } catch (err) {
      // another worker made it first: the next attempt updates it
      if (!isStoreError(err, 'AlreadyExists')) throw err;
      throw new Error('the gateway ConfigMap appeared meanwhile; retrying');
    }
    return;
  }
  if (sameJson(cm.data ?? {}, data)) return;
  // the update carries the resourceVersion read: a concurrent writer makes it a 409, retried
  await ctx.client.update({ ...cm, data } as never);
}

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const r = await ctx.client.tryGet<RouteSpec, RouteStatus>(HTTP_ROUTE, ctx.key, { live: true });
  // gone (deleted before it had a finalizer): the gateway forgets it
  if (!r) return syncGateway(ctx);
  if (r.metadata.deletionTimestamp !== undefined) {
    if (!r.metadata.finalizers.includes(FINALIZER)) return;
    await syncGateway(ctx);
    await ctx.client.update({ ...r, metadata: { ...r.metadata, finalizers: r.metadata.finalizers.filter((f) => f !== FINALIZER) } });
    return;
  }
  // go on with the object the update returned (its event would only bring the same work back)
  const route = r.metadata.finalizers.includes(FINALIZER) ? r : await ctx.client.update({ ...r, metadata: { ...r.metadata, finalizers: [...r.metadata.finalizers, FINALIZER] } });
  await syncGateway(ctx);
  if (route.status.admitted !== true || route.status.observedGeneration !== route.metadata.generation) await writeStatus(ctx, route, { admitted: true, observedGeneration: route.metadata.generation });
}

export const gatewayRoutesController = defineController({
  name: 'gateway-routes',
  for: HTTP_ROUTE,
  // the shared ConfigMap has no owner: a change to it (a hand edit, a lost entry) re-admits every route
  watches: [{ kind: 'ConfigMap', map: (o, ctx) => (o.metadata.name === GATEWAY.name ? ctx.list(HTTP_ROUTE).map((r) => `${r.metadata.namespace ?? ''}/${r.metadata.name}`) : []) }],
  maxConcurrentReconciles: 3,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const gatewayRoutes: FalsePositiveCase = {
  name: 'gateway-routes',
  description: 'HttpRoutes admitted by three concurrent workers into one shared, unowned ConfigMap with optimistic-concurrency updates; a finalizer removes a deleted route\'s entry',
  controllers: [gatewayRoutesController],
  options: {
    objects: { kind: HTTP_ROUTE, name: 'route', spec: [{ host: 'shop.example.com', backend: 'shop:80' }, { host: 'shop.example.com', backend: 'shop-v2:80' }, { host: 'api.example.com', backend: 'api:8080' }] },
    maxObjects: 3,
  },
};
