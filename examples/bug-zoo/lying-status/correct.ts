import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { applyDeployment, reportReady, WEBAPP_KIND, type Condition, type WebAppSpec, type WebAppStatus } from './web-app.js';

/**
 * Fixed: Ready mirrors the Deployment's own report, read live: its `Available` condition is True
 * and its controller has observed the current generation (an old ReplicaSet being available says
 * nothing about the new image). The controller owns the Deployment, so its status changes come
 * back here.
 */
export const webApp = defineController({
  name: 'web-app',
  for: WEBAPP_KIND,
  owns: ['Deployment'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const app = await latest<WebAppSpec, WebAppStatus>(ctx, WEBAPP_KIND);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    await applyDeployment(ctx, app);
    // the claim is only as good as the evidence: read the Deployment's own report live, not from a
    // cache that may still show it Available after a pod was lost
    const dep = await ctx.client.get('Deployment', { namespace: app.metadata.namespace, name: app.metadata.name }, { live: true });
    const conditions = (dep.status['conditions'] ?? []) as unknown as Condition[];
    const available = conditions.some((c) => c.type === 'Available' && c.status === 'True');
    const observed = dep.status['observedGeneration'] === dep.metadata.generation;
    await reportReady(ctx, app, available && observed, available && observed ? 'DeploymentAvailable' : 'DeploymentProgressing');
  },
});
