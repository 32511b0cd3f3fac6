import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { sameJson } from '../shared/same-json.js';
import { autoscalersOf, DEPLOYMENT_KIND, HPA_KIND, SCALE_PERIOD_MS, type DeploymentSpec, type HpaSpec, type HpaStatus } from './kinds.js';

/**
 * The autoscaler (the same in both variants of the pair): every sync period it sets the target
 * Deployment's replicas to what the load asks for (the metrics part of a real HPA is left out:
 * the load here always asks for `minReplicas`), through the target's scale subresource. It owns `spec.replicas` of its target, unless
 * another autoscaler targets the same Deployment: then each of them stands back and says so in
 * status (`ambiguousWith`), since two owners of one field would flip it forever.
 */
export const autoscaler = defineController({
  name: 'autoscaler',
  for: HPA_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const hpa = await latest<HpaSpec, HpaStatus>(ctx, HPA_KIND);
    if (!hpa || hpa.metadata.deletionTimestamp !== undefined) return;
    const ns = hpa.metadata.namespace;
    const hpas = await ctx.client.list<HpaSpec, HpaStatus>(HPA_KIND, ns !== undefined ? { namespace: ns } : {});
    const others = autoscalersOf(hpas, hpa.spec.scaleTargetRef)
      .map((h) => h.metadata.name)
      .filter((n) => n !== hpa.metadata.name)
      .sort();
    let status: HpaStatus = { observedGeneration: hpa.metadata.generation };
    if (others.length > 0) {
      status = { ambiguousWith: others, ...status };
    } else {
      const target = await ctx.client.tryGet<DeploymentSpec>(DEPLOYMENT_KIND, { namespace: ns, name: hpa.spec.scaleTargetRef });
      if (target) {
        const desired = Math.min(hpa.spec.maxReplicas, hpa.spec.minReplicas);
        // through the scale subresource, as the HorizontalPodAutoscaler writes its target
        if (target.spec.replicas !== desired) await ctx.client.patchScale(DEPLOYMENT_KIND, { namespace: ns, name: target.metadata.name }, { spec: { replicas: desired } });
        status = { desiredReplicas: desired, ...status };
      }
    }
    // status describes the present: no target (or a shared one), no desired count
    if (!sameJson(hpa.status, status)) await ctx.client.updateStatus({ ...hpa, status });
    return { requeueAfter: SCALE_PERIOD_MS };
  },
});
