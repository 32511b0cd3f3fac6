import { defineController, isStoreError, type JsonObject } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { APP, POD, imageOf, ownerRefTo, podSpecFor, type AppSpec, type AppStatus, type PodSpec } from './app.js';

/**
 * Correct: level-triggered and idempotent. The Pod's name is derived from the App, so a second
 * create (after a stale read, a lost response, a crash, a second replica) answers AlreadyExists
 * instead of making a duplicate; every pass checks the Pod itself (recreating or repairing it)
 * and writes status only when it differs.
 */
export const singleChildCorrect = defineController({
  name: 'single-child-correct',
  for: APP,
  owns: [POD],
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<AppSpec, AppStatus>(APP, ctx.key);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    const name = `${app.metadata.name}-pod`;
    const pod = await ctx.client.tryGet<PodSpec>(POD, { namespace: app.metadata.namespace, name });
    if (!pod) {
      try {
        await ctx.client.create({ kind: POD, metadata: { name, namespace: app.metadata.namespace, ownerReferences: [ownerRefTo(app)] }, spec: podSpecFor(app.spec.image) as unknown as JsonObject });
      } catch (err) {
        // our cache is behind: the Pod is there, the next event brings it
        if (!isStoreError(err, 'AlreadyExists')) throw err;
      }
    } else if (imageOf(pod) !== app.spec.image) {
      // a container's image is the one field of a Pod that may change
      await ctx.client.patch(POD, { namespace: app.metadata.namespace, name }, { spec: podSpecFor(app.spec.image) as unknown as JsonObject });
    }
    if (app.status.child !== name || app.status.observedGeneration !== app.metadata.generation) {
      await ctx.client.patchStatus(APP, ctx.key, { status: { child: name, observedGeneration: app.metadata.generation } });
    }
  },
});
