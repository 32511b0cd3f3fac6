import { describe, expect, it } from 'vitest';
import { lyingStatus } from '../../examples/bug-zoo/lying-status/scenario.js';
import { applyDeployment, WEBAPP_KIND, type WebAppSpec, type WebAppStatus } from '../../examples/bug-zoo/lying-status/web-app.js';
import { statusTruthfulness } from '../../properties/status-truthfulness.js';
import { defineController, deployment, podLifecycle } from '../../src/index.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * status-truthfulness holds a controller to the readiness it speaks of: one that controls a
 * Deployment but reports no readiness at all (no Ready/Available condition, no status.ready, no
 * phase) makes no claim (the old false alarm: "ready but never reported"); one that reports
 * Ready False while its Deployment is available still fails.
 */
function webApp(name: string, says: 'nothing' | 'never-ready') {
  return defineController({
    name,
    for: WEBAPP_KIND,
    owns: ['Deployment'],
    async reconcile(ctx) {
      const app = await ctx.client.tryGet<WebAppSpec, WebAppStatus>(WEBAPP_KIND, ctx.key);
      if (!app || app.metadata.deletionTimestamp !== undefined) return;
      await applyDeployment(ctx, app);
      if (says === 'never-ready' && (app.status as { conditions?: unknown[] }).conditions === undefined) {
        await ctx.client.updateStatus({ ...app, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Waiting', message: '', lastTransitionTime: '1970-01-01T00:00:00Z' }] } as never });
      }
    },
  });
}

const options = { environment: [deployment, podLifecycle] };
const scenarioOf = (name: string) => ({ ...lyingStatus.reproduction, controllers: [{ name }] });

describe('status-truthfulness: readiness vocabulary', () => {
  it('a controller that reports no readiness at all makes no claim to hold to', async () => {
    const c = webApp('silent-app', 'nothing');
    expectQuiet((await judgeScenario(statusTruthfulness(), scenarioOf(c.name), { controllers: [c], options })).verdict);
  });
  it('a controller that says Ready False while its Deployment is available still fails', async () => {
    const c = webApp('never-ready-app', 'never-ready');
    const v = expectFailure((await judgeScenario(statusTruthfulness(), scenarioOf(c.name), { controllers: [c], options })).verdict);
    expect(v.summary).toMatch(/ready|Ready/);
  });
});
