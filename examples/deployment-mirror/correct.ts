import { defineController } from '../../src/index.js';
import { deploymentAvailable, ensureDeployment, reportStatus, statusFor, WEB_APP_KIND, WEB_APP_SAMPLES, type WebAppSpec, type WebAppStatus } from './web-app.js';

/**
 * Correct: runs the WebApp as a Deployment and reports Ready only when the Deployment
 * controller says the Deployment is `Available` for the spec it has seen (its
 * `observedGeneration`). It owns the Deployment, so every availability change reconciles the
 * WebApp again; a 5 s resync repairs a lost event (while faults act, events get lost and the
 * Deployment's status changes are exactly the events that matter here).
 */
export const deploymentMirror = defineController({
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
    await reportStatus(ctx, app, statusFor(app, dep, dep !== undefined && deploymentAvailable(dep), ctx.clock.now()));
    // a Deployment of that name that is not ours is on its way out: look again soon
    return dep === undefined ? { requeueAfter: 1000 } : undefined;
  },
});
