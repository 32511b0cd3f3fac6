import { defineController, type JsonObject } from '../../../src/index.js';
import { APP, POD, ownerRefTo, podSpecFor, type AppSpec, type AppStatus } from './app.js';

/**
 * Buggy: trusts its own bookkeeping in a cached read. When `status.child` is unset it creates a
 * Pod with `generateName` (a server-chosen name, so a second create is a second Pod) and then
 * records the name. Anything that makes it run again before it sees its own status write (a
 * stale or lagging cache, a crash between the two writes, a lost response, a second replica)
 * creates a duplicate; and once `status.child` is set it never looks at the Pod again, so a
 * deleted or edited Pod is never repaired.
 */
export const singleChildBuggy = defineController({
  name: 'single-child-buggy',
  for: APP,
  owns: [POD],
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<AppSpec, AppStatus>(APP, ctx.key);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    if (app.status.child !== undefined) return;
    const pod = await ctx.client.create({
      kind: POD,
      metadata: { generateName: `${app.metadata.name}-`, namespace: app.metadata.namespace, ownerReferences: [ownerRefTo(app)] },
      spec: podSpecFor(app.spec.image) as unknown as JsonObject,
    });
    await ctx.client.patchStatus(APP, ctx.key, { status: { child: pod.metadata.name, observedGeneration: app.metadata.generation } });
  },
});
