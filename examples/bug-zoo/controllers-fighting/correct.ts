import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { APP_KIND, autoscalersOf, deploymentOf, ownerRef, DEPLOYMENT_KIND, HPA_KIND, SYNC_PERIOD_MS, type ApplicationSpec, type ApplicationStatus, type DeploymentSpec, deploymentSpec, imageOf, type HpaSpec, type HpaStatus } from './kinds.js';

/**
 * Fixed: field ownership. The manifest's replica count seeds a new Deployment, but once an
 * autoscaler targets it, `spec.replicas` belongs to the autoscaler and the sync controller
 * leaves it alone (Argo CD's `ignoreDifferences` on `/spec/replicas`), as long as that
 * autoscaler is the only one: several targeting it all stand back, and nobody else would own it.
 */
export const gitopsSync = defineController({
  name: 'gitops-sync',
  for: APP_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const app = await latest<ApplicationSpec, ApplicationStatus>(ctx, APP_KIND);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    const ref = { namespace: app.metadata.namespace, name: deploymentOf(app) };
    const dep = await ctx.client.tryGet<DeploymentSpec>(DEPLOYMENT_KIND, ref);
    if (!dep) {
      await ctx.client.create({ kind: DEPLOYMENT_KIND, metadata: { ...ref, labels: { 'app.kubernetes.io/managed-by': 'gitops-sync' }, ownerReferences: [ownerRef(app)] }, spec: deploymentSpec(ref.name, app.spec.image, app.spec.replicas) });
    } else {
      const hpas = await ctx.client.list<HpaSpec, HpaStatus>(HPA_KIND, app.metadata.namespace !== undefined ? { namespace: app.metadata.namespace } : {});
      // autoscalers sharing a target all stand back (autoscaler.ts): then the manifest's count applies
      const autoscaled = autoscalersOf(hpas, dep.metadata.name).length === 1;
      const replicas = autoscaled ? dep.spec.replicas : app.spec.replicas;
      if (imageOf(dep) !== app.spec.image || dep.spec.replicas !== replicas) await ctx.client.update({ ...dep, spec: { ...dep.spec, ...deploymentSpec(ref.name, app.spec.image, replicas) } });
    }
    if (app.status.sync !== 'Synced' || app.status.observedGeneration !== app.metadata.generation) {
      await ctx.client.updateStatus({ ...app, status: { sync: 'Synced', observedGeneration: app.metadata.generation } });
    }
    return { requeueAfter: SYNC_PERIOD_MS };
  },
});
