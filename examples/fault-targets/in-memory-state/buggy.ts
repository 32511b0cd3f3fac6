import { defineController, type JsonObject } from '../../../src/index.js';
import { RESYNC_MS } from '../resync.js';
import { APP, POD, ownerRefTo, podSpecFor, type AppSpec, type AppStatus, type PodSpec } from '../single-child/app.js';

/**
 * Buggy: "I already created the Pod for this App, skip" is remembered only in memory
 * (`ctx.state`, App uid → Pod name); the controller never looks for the Pod itself. Within one
 * incarnation the memory is right, so a fault-free run passes; a crash-restart loses it, and the
 * restarted replica creates a second Pod (`generateName`, so nothing stops it). Kept in a
 * module-level Map instead, the same bug survives every simulated crash, and also leaks from one
 * simulation into the next (uids repeat), which is why steadystate asks for `state`.
 */
export const singleChildMemoryBuggy = defineController({
  name: 'single-child-memory-buggy',
  for: APP,
  owns: [POD],
  resyncPeriodMs: RESYNC_MS,
  state: () => ({ created: new Map<string, string>() }),
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<AppSpec, AppStatus>(APP, ctx.key);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    let child = ctx.state.created.get(app.metadata.uid);
    if (child === undefined) {
      const pod = await ctx.client.create<PodSpec>({
        kind: POD,
        metadata: { generateName: `${app.metadata.name}-`, namespace: app.metadata.namespace, ownerReferences: [ownerRefTo(app)] },
        spec: podSpecFor(app.spec.image),
      });
      child = pod.metadata.name;
      ctx.state.created.set(app.metadata.uid, child);
    } else if (app.status.observedGeneration !== app.metadata.generation) {
      // a new spec: the remembered Pod gets the new image
      await ctx.client.patch(POD, { namespace: app.metadata.namespace, name: child }, { spec: podSpecFor(app.spec.image) as unknown as JsonObject });
    }
    if (app.status.child !== child || app.status.observedGeneration !== app.metadata.generation) {
      await ctx.client.patchStatus(APP, ctx.key, { status: { child, observedGeneration: app.metadata.generation } });
    }
  },
});
