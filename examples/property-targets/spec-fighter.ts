import { defineController, type NewObject, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { setFieldsMatch, sameJson } from '../deployment-mirror/web-app.js';
import { RESYNC_MS, WIDGET, type WidgetSpec, type WidgetStatus } from './widget.js';

/**
 * Spec fighter: a Widget runs as a Deployment of `size` replicas. The API server defaults what
 * the controller leaves out of the Deployment's spec (strategy, revisionHistoryLimit,
 * progressDeadlineSeconds, the Pod template's dnsPolicy, restartPolicy, imagePullPolicy, …), so
 * the live spec never deep-equals the one the controller builds. The buggy twin compares the
 * whole spec and updates on any difference: every reconcile (each resync, each Deployment event)
 * sends an update that changes nothing, forever (caught by idempotence and no-hot-loop; a store
 * without defaulting hid it). The correct twin compares only the fields it sets.
 */
export const specFighterBuggy = defineSpecFighter((live, want) => sameJson(live, want));
export const specFighterCorrect = defineSpecFighter(setFieldsMatch);

/** The Deployment a Widget should have: same name, `size` replicas of one nginx container. */
export function desiredDeployment(w: StoredObject<WidgetSpec, WidgetStatus>): NewObject {
  const labels = { app: w.metadata.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: w.metadata.name,
      ...(w.metadata.namespace !== undefined ? { namespace: w.metadata.namespace } : {}),
      labels,
      ownerReferences: [{ apiVersion: 'example.dev/v1', kind: WIDGET, name: w.metadata.name, uid: w.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas: w.spec.size,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } },
    },
  };
}

function defineSpecFighter(same: (live: unknown, want: unknown) => boolean) {
  return defineController({
    name: 'widget',
    for: WIDGET,
    owns: ['Deployment'],
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx: ReconcileContext) {
      const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
      if (!w || w.metadata.deletionTimestamp !== undefined) return;
      const want = desiredDeployment(w);
      const dep = await ctx.client.tryGet('Deployment', ctx.key);
      if (!dep) {
        await ctx.client.create(want);
        return;
      }
      if (!dep.metadata.ownerReferences.some((r) => r.uid === w.metadata.uid)) return;
      // BUG (buggy twin): `same` is a whole-spec deep comparison, which the server's defaults defeat
      if (!same(dep.spec, want.spec)) await ctx.client.update({ ...dep, spec: want.spec ?? {} });
    },
  });
}
