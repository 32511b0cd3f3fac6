import { describe, expect, it } from 'vitest';
import { deploymentMirror } from '../../examples/deployment-mirror/correct.js';
import { deploymentMirrorBuggy } from '../../examples/deployment-mirror/buggy.js';
import { ensureDeployment, reportStatus, statusFor, WEB_APP_KIND, webApp, type WebAppSpec, type WebAppStatus } from '../../examples/deployment-mirror/web-app.js';
import { statusTruthfulness } from '../../properties/status-truthfulness.js';
import { defineController } from '../../src/runtime/define-controller.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { expectFailure, judgeScenario } from '../helpers/property-laws.js';

/**
 * status-truthfulness judges only claims a controller under test wrote, of objects whose actual
 * readiness it can tell: a run without either is one it had nothing to judge in, and its verdict
 * says so (red team N7b: a check judged only by it passed a controller it never judged).
 */

function mirrorScenario(): Scenario {
  return {
    seed: 7,
    controllers: [{ name: 'deployment-mirror' }],
    environment: [{ name: 'cluster' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: webApp('web', { replicas: 2, image: 'nginx:1' }) }],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  };
}

/** Runs the Deployment and never says anything of readiness. */
const mute = defineController({
  name: 'deployment-mirror',
  for: WEB_APP_KIND,
  owns: ['Deployment'],
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<WebAppSpec, WebAppStatus>(WEB_APP_KIND, ctx.key);
    if (app) await ensureDeployment(ctx, app);
  },
});

/** Says Ready of an app that runs nothing (no workload to hold the claim to). */
const hollow = defineController({
  name: 'deployment-mirror',
  for: WEB_APP_KIND,
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<WebAppSpec, WebAppStatus>(WEB_APP_KIND, ctx.key);
    if (app && !app.status.conditions) await reportStatus(ctx, app, statusFor(app, undefined, true, ctx.clock.now()));
  },
});

describe('status-truthfulness says when it had nothing to judge', () => {
  it('judges the claims of a controller that reports readiness of what it runs (and still fails a false one)', async () => {
    const { verdict } = await judgeScenario(statusTruthfulness(), mirrorScenario(), { controllers: [deploymentMirror] });
    expect(verdict).toMatchObject({ ok: true, stats: { judged: true } });
    expect(verdict.ok && verdict.judged).not.toBe(false);
    expectFailure((await judgeScenario(statusTruthfulness(), mirrorScenario(), { controllers: [deploymentMirrorBuggy] })).verdict);
  });

  it('a controller that never writes a readiness claim: nothing to judge', async () => {
    const { verdict } = await judgeScenario(statusTruthfulness(), mirrorScenario(), { controllers: [mute] });
    expect(verdict).toMatchObject({ ok: true, judged: false, why: 'the controllers wrote no readiness claim (a Ready or Available condition, status.ready, a readiness phase) on WebApp' });
  });

  it('an object that controls no workload: nothing to hold its claim to, unless told what ready means', async () => {
    const { verdict } = await judgeScenario(statusTruthfulness(), mirrorScenario(), { controllers: [hollow] });
    expect(verdict).toMatchObject({ ok: true, judged: false, why: expect.stringMatching(/^no WebApp object controls a workload .*; pass `actual` to say what ready means for it$/) });
    const told = await judgeScenario(statusTruthfulness({ actual: () => 'it runs nothing' }), mirrorScenario(), { controllers: [hollow] });
    expect(expectFailure(told.verdict).summary).toContain('while not actually ready (it runs nothing)');
  });
});
