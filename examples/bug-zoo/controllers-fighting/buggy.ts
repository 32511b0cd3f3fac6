import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { APP_KIND, deploymentOf, ownerRef, DEPLOYMENT_KIND, SYNC_PERIOD_MS, type ApplicationSpec, type ApplicationStatus, type DeploymentSpec, deploymentSpec, imageOf } from './kinds.js';

/**
 * BUG (controllers fighting): the sync controller applies the whole manifest, `replicas`
 * included, every refresh. When an autoscaler scales the same Deployment, each refresh puts the
 * manifest's count back, the autoscaler raises it again, and `spec.replicas` flips forever (the
 * classic Argo CD + HPA fight). Both believe they own the field.
 */
export const buggyGitopsSync = defineController({
  name: 'gitops-sync',
  for: APP_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const app = await latest<ApplicationSpec, ApplicationStatus>(ctx, APP_KIND);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    const ref = { namespace: app.metadata.namespace, name: deploymentOf(app) };
    const want: DeploymentSpec = deploymentSpec(ref.name, app.spec.image, app.spec.replicas);
    const dep = await ctx.client.tryGet<DeploymentSpec>(DEPLOYMENT_KIND, ref);
    if (!dep) {
      await ctx.client.create({ kind: DEPLOYMENT_KIND, metadata: { ...ref, labels: { 'app.kubernetes.io/managed-by': 'gitops-sync' }, ownerReferences: [ownerRef(app)] }, spec: want });
    } else if (imageOf(dep) !== app.spec.image || dep.spec.replicas !== want.replicas) {
      await ctx.client.update({ ...dep, spec: { ...dep.spec, ...want } });
    }
    if (app.status.sync !== 'Synced' || app.status.observedGeneration !== app.metadata.generation) {
      await ctx.client.updateStatus({ ...app, status: { sync: 'Synced', observedGeneration: app.metadata.generation } });
    }
    return { requeueAfter: SYNC_PERIOD_MS };
  },
});
