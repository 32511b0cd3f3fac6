import { defineController, virtualTimestamp } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { sameJson } from '../shared/same-json.js';
import { applyDeployment, type Condition, type WebAppSpec, type WebAppStatus } from '../lying-status/web-app.js';

/**
 * BUG: while its Deployment is not yet Available, every pass records when it last looked
 * (`status.lastCheckedAt`), a value that is new on every pass, so every pass writes. The write's
 * own watch event brings the next pass: about one status write per watch delivery for as long as
 * the pods take to start (an image pull of a few seconds is thousands of writes), then Ready and
 * quiet. The quiet tail is silent and the app converges, so only a judgement of the whole run sees
 * it: no-hot-loop's stamping loop. Fix (correct.ts): record a time only when what it dates changes.
 */
export const buggyWaitingWebApp = defineController({
  name: 'web-app',
  for: 'WebApp',
  owns: ['Deployment'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const app = await latest<WebAppSpec, WebAppStatus & { lastCheckedAt?: string }>(ctx, 'WebApp');
    if (!app || app.metadata.deletionTimestamp !== undefined) return;
    await applyDeployment(ctx, app);
    const dep = await ctx.client.get('Deployment', { namespace: app.metadata.namespace, name: app.metadata.name }, { live: true });
    const conditions = (dep.status['conditions'] ?? []) as unknown as Condition[];
    const ready = conditions.some((c) => c.type === 'Available' && c.status === 'True') && dep.status['observedGeneration'] === dep.metadata.generation;
    const status = {
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'DeploymentAvailable' : 'DeploymentProgressing' }],
      observedGeneration: app.metadata.generation,
      // BUG: the time of this check, new on every pass
      ...(ready ? {} : { lastCheckedAt: virtualTimestamp(ctx.clock.now()) }),
    };
    // by value (the API server serves the status with its keys sorted): the stamp is this exhibit's only bug
    if (sameJson(app.status, status)) return;
    await ctx.client.updateStatus({ ...app, status });
  },
});
