import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { applyDeployment, reportReady, WEBAPP_KIND, type WebAppSpec, type WebAppStatus } from './web-app.js';

/**
 * BUG (status that lies): reports Ready as soon as the Deployment was applied. "Apply
 * succeeded" is not "available": the pods are still being scheduled and started, a new image may
 * never come up, and everything that waits on this condition (a rollout pipeline, a dependent
 * app) goes ahead too early.
 */
export const buggyWebApp = defineController({
  name: 'web-app',
  for: WEBAPP_KIND,
  owns: ['Deployment'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const app = await latest<WebAppSpec, WebAppStatus>(ctx, WEBAPP_KIND);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    await applyDeployment(ctx, app);
    await reportReady(ctx, app, true, 'Applied');
  },
});
