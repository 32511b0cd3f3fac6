import fc from 'fast-check';
import type { ObjectTemplate } from '../../src/arbitrary/workload.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { isStoreError } from '../../src/store/errors.js';
import type { StoredObject } from '../../src/store/object.js';

/**
 * The crash-consistency pair: an `App` wants one `Pod`. The buggy reconciler creates the Pod
 * with `generateName` and records its name in status in a second write, so a crash between the
 * two writes makes the restarted controller create a second Pod. The fixed one names the Pod
 * after the App, so the second create answers AlreadyExists.
 */
const APP = 'App';
const POD = 'Pod';

interface AppStatus {
  child?: string;
  observedGeneration?: number;
}

function ownerRef(app: StoredObject) {
  return { kind: APP, name: app.metadata.name, uid: app.metadata.uid, controller: true };
}

export const appObjects: ObjectTemplate = { kind: APP, spec: fc.record({ image: fc.constantFrom('nginx:1', 'nginx:2') }) };

export const generateNameApp = defineController({
  name: 'generate-name-app',
  for: APP,
  owns: [POD],
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<{ image: string }, AppStatus>(APP, ctx.key);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    if (app.status.child !== undefined) {
      if (app.status.observedGeneration !== app.metadata.generation) await ctx.client.patchStatus(APP, ctx.key, { status: { observedGeneration: app.metadata.generation } });
      return;
    }
    const pod = await ctx.client.create({ kind: POD, metadata: { generateName: `${app.metadata.name}-`, namespace: app.metadata.namespace, ownerReferences: [ownerRef(app as unknown as StoredObject)] }, spec: { containers: [{ name: 'app', image: app.spec.image }] } });
    await ctx.client.patchStatus(APP, ctx.key, { status: { child: pod.metadata.name, observedGeneration: app.metadata.generation } });
  },
});

export const deterministicNameApp = defineController({
  name: 'deterministic-name-app',
  for: APP,
  owns: [POD],
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<{ image: string }, AppStatus>(APP, ctx.key);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    const name = `${app.metadata.name}-pod`;
    const pod = await ctx.client.tryGet(POD, { namespace: app.metadata.namespace, name });
    if (!pod) {
      try {
        await ctx.client.create({ kind: POD, metadata: { name, namespace: app.metadata.namespace, ownerReferences: [ownerRef(app as unknown as StoredObject)] }, spec: { containers: [{ name: 'app', image: app.spec.image }] } });
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
      }
    }
    if (app.status.child !== name || app.status.observedGeneration !== app.metadata.generation) {
      await ctx.client.patchStatus(APP, ctx.key, { status: { child: name, observedGeneration: app.metadata.generation } });
    }
  },
});
