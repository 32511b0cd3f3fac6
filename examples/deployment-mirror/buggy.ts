import { defineController } from '../../src/index.js';
import { ensureDeployment, reportStatus, statusFor, WEB_APP_KIND, WEB_APP_SAMPLES, type WebAppSpec, type WebAppStatus } from './web-app.js';

/**
 * Buggy: reports Ready as soon as the Deployment exists ("apply succeeded" taken for
 * "available"). Everything else matches the correct version, so only status truthfulness tells
 * them apart: for the seconds the pods take to start, and for as long as a pod never becomes
 * Ready or crash-loops, the WebApp says Ready while nothing serves.
 */
export const deploymentMirrorBuggy = defineController({
  name: 'deployment-mirror',
  for: WEB_APP_KIND,
  owns: ['Deployment'],
  resyncPeriodMs: 5_000,
  leaderElection: true,
  sample: WEB_APP_SAMPLES,
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<WebAppSpec, WebAppStatus>(WEB_APP_KIND, ctx.key);
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    const dep = await ensureDeployment(ctx, app);
    await reportStatus(ctx, app, statusFor(app, dep, dep !== undefined, ctx.clock.now()));
    return dep === undefined ? { requeueAfter: 1000 } : undefined;
  },
});
