import { describe, expect, it } from 'vitest';
import { deploymentMirrorBuggy } from '../../examples/deployment-mirror/buggy.js';
import { deploymentMirror } from '../../examples/deployment-mirror/correct.js';
import { deploymentAvailable, ensureDeployment, reportStatus, statusFor, WEB_APP_KIND, webApp, type WebAppSpec, type WebAppStatus } from '../../examples/deployment-mirror/web-app.js';
import { statusTruthfulness } from '../../properties/status-truthfulness.js';
import { defineController } from '../../src/runtime/define-controller.js';
import type { FaultPlan } from '../../src/harness/fault-plan.js';
import type { Scenario, WorkloadAction } from '../../src/harness/scenario.js';
import { expectFailure, expectQuiet, judgeScenario, propertyLaws } from '../helpers/property-laws.js';
import { appController, APP, databaseController } from '../../examples/false-positives/app-database.js';
import { apply } from '../../examples/false-positives/_shared/apply.js';
import { controllerRef } from '../../examples/false-positives/_shared/owner.js';
import { deploymentAvailable as available } from '../../examples/false-positives/_shared/pods.js';
import { setCondition, writeStatus, type Condition } from '../../examples/false-positives/_shared/status.js';

/** One WebApp of 3 replicas in a small cluster; faults act for 20 s, then 20 s to settle. */
function mirrorScenario(faults: FaultPlan = { events: [], background: [] }, extra: WorkloadAction[] = []): Scenario {
  const app = webApp('web', { replicas: 3, image: 'nginx:1' });
  return {
    seed: 7,
    controllers: [{ name: 'deployment-mirror' }],
    environment: [{ name: 'cluster' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: app }, ...extra],
    faults,
    options: { faultWindowMs: 20_000, settleMs: 20_000 },
  };
}
const plan = (...events: { kind: string; [k: string]: unknown }[]): FaultPlan => ({ events: events as never, background: [] });

/** Buggy: reports Ready once the Deployment is available, and never takes it back. */
const stickyMirror = defineController({
  name: 'deployment-mirror',
  for: WEB_APP_KIND,
  owns: ['Deployment'],
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<WebAppSpec, WebAppStatus>(WEB_APP_KIND, ctx.key);
    if (!app) return;
    const dep = await ensureDeployment(ctx, app);
    const was = app.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    await reportStatus(ctx, app, statusFor(app, dep, was || (dep !== undefined && deploymentAvailable(dep)), ctx.clock.now()));
  },
});

/** Buggy: creates the Deployment and reports "not ready" once, then never looks at it again. */
const silentMirror = defineController({
  name: 'deployment-mirror',
  for: WEB_APP_KIND,
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<WebAppSpec, WebAppStatus>(WEB_APP_KIND, ctx.key);
    if (!app || app.status.conditions) return;
    const dep = await ensureDeployment(ctx, app);
    await reportStatus(ctx, app, statusFor(app, dep, false, ctx.clock.now()));
  },
});

propertyLaws({
  property: statusTruthfulness(),
  buggy: { controllers: [deploymentMirrorBuggy], scenario: mirrorScenario() },
  correct: {
    controllers: [deploymentMirror],
    scenarios: [
      { name: 'fault-free', scenario: mirrorScenario() },
      { name: 'a pod never Ready', scenario: mirrorScenario(plan({ kind: 'environment-pod-never-ready', nth: 1 })) },
      { name: 'a crash-looping pod', scenario: mirrorScenario(plan({ kind: 'environment-crash-looping-pod', nth: 0 })) },
      { name: 'a node evicted', scenario: mirrorScenario(plan({ kind: 'environment-pod-eviction', at: 5000, params: { node: 1 } })) },
      { name: 'a slow rollout', scenario: mirrorScenario(plan({ kind: 'environment-slow-rollout', params: { delayMs: 8000 } })) },
      { name: 'lost events', scenario: mirrorScenario({ events: [], background: [{ kind: 'event-loss', rate: 0.5 }] }) },
      { name: 'a rollout and a scale-down', scenario: mirrorScenario(plan(), [{ at: 8000, type: 'patch', kind: WEB_APP_KIND, key: 'default/web', patch: { spec: { image: 'nginx:2', replicas: 2 } } }]) },
    ],
  },
  explains: ['WebApp default/web', 'claiming it Ready, while it was not actually ready: Deployment default/web: Available=', 'controller deployment-mirror/0', 'beyond the allowed lag of 1.0 s'],
});

/** Buggy: the app-database App controller that reports Ready from its Deployment alone, whatever its Database says. */
const deploymentOnlyApp = defineController({
  name: 'app',
  for: APP,
  owns: ['Database', 'Deployment'],
  async reconcile(ctx) {
    const app = await ctx.client.tryGet<{ image: string; replicas: number; databaseGi: number }, { conditions?: Condition[] }>(APP, ctx.key, { live: true });
    if (!app) return;
    const owner = [controllerRef(app)];
    const meta = { namespace: app.metadata.namespace, ownerReferences: owner };
    await apply(ctx, { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: `${app.metadata.name}-db`, ...meta }, spec: { sizeGi: app.spec.databaseGi, replicas: 1 } });
    const labels = { app: app.metadata.name };
    const dep = await apply(ctx, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: app.metadata.name, ...meta }, spec: { replicas: app.spec.replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: app.spec.image }] } } } });
    const ready = available(dep);
    await writeStatus(ctx, app, { conditions: setCondition(app.status.conditions, { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'Serving' : 'Progressing', message: '', observedGeneration: app.metadata.generation }, ctx.clock.now()) });
  },
});

describe('statusTruthfulness', () => {
  it('a claim made before the workload is ready fails after the lag, with the times and the reason', async () => {
    const v = expectFailure((await judgeScenario(statusTruthfulness(), mirrorScenario(), { controllers: [deploymentMirrorBuggy] })).verdict);
    expect(v.summary).toBe('WebApp default/web reported Ready for 2.1 s while not actually ready (Deployment default/web: Available=unset (0/3 available))');
    expect(v.explanation).toMatch(/^Let: at t=0\.001 s controller deployment-mirror\/0 wrote .*status\.conditions.* of WebApp default\/web, claiming it Ready, while it was not actually ready: .*Then: the claim stood for 2\.1 s, until t=2\.101 s/);
    expect(v.evidence).toMatchObject({ rule: 'claim', start: 1, end: 2101, deadline: 1001, claimedBy: 'controller:deployment-mirror/0' });
    // a longer lag tolerates it
    expectQuiet((await judgeScenario(statusTruthfulness({ lagMs: 2500 }), mirrorScenario(), { controllers: [deploymentMirrorBuggy] })).verdict);
  });

  it('a claim made after a fault that may have hidden the truth from the controller is judged once faults stop', async () => {
    const never = statusTruthfulness({ actual: () => 'the test says it never is' });
    // the WebApp's ADDED notification is lost: the controller first acts at its 5 s resync
    const lost = mirrorScenario(plan({ kind: 'event-loss', nth: 0 }));
    const blind = expectFailure((await judgeScenario(never, lost, { controllers: [deploymentMirrorBuggy] })).verdict);
    expect(blind.evidence).toMatchObject({ rule: 'claim-while-blind', deadline: 30_000, claimedBy: 'controller:deployment-mirror/0' });
    expect(blind.explanation).toMatch(/^Let: at t=5\.0\d* s, while faults acted and after the \w+ notification of default\/web to deployment-mirror at t=0\.0\d* s was dropped \(event-loss\), controller deployment-mirror\/0 wrote/);
    // the real definition: the pods are Ready 2.1 s after that claim, long before the bound
    expectQuiet((await judgeScenario(statusTruthfulness(), lost, { controllers: [deploymentMirrorBuggy] })).verdict);
    // without the fault the same claim is judged at once
    expect(expectFailure((await judgeScenario(never, mirrorScenario(), { controllers: [deploymentMirrorBuggy] })).verdict).evidence).toMatchObject({ rule: 'claim', deadline: 1001 });
  });

  it('a claim left standing after readiness is lost fails, after the lag once faults have stopped', async () => {
    // the pods' container exits 5 s after it starts (6.101 s), and restarts only after a minute
    const s = crashingScenario(5000);
    const v = expectFailure((await judgeScenario(statusTruthfulness(), s, { controllers: [stickyMirror] })).verdict);
    expect(v.evidence).toMatchObject({ rule: 'stale-after-faults', start: 6101, deadline: 7101, claimedBy: null });
    expect(v.explanation).toContain('at t=6.101 s, after faults stopped, WebApp default/web stopped being actually ready while its status still said Ready');
    expect(v.explanation).toContain('the controller does not withdraw Ready');
    expectQuiet((await judgeScenario(statusTruthfulness(), s, { controllers: [deploymentMirror] })).verdict);
  });

  it('a claim that went stale while faults acted must be withdrawn within the bound after they stop', async () => {
    const s = crashingScenario(20_000);
    const v = expectFailure((await judgeScenario(statusTruthfulness(), s, { controllers: [stickyMirror] })).verdict);
    expect(v.evidence).toMatchObject({ rule: 'stale', start: 6101, deadline: 30_000, open: true });
    expect(v.explanation).toContain('while faults acted');
    expect(v.explanation).toContain('the stale claim stood to the end of the run (t=50.0 s), beyond t=30.0 s, the bound of 10.0 s after faults stopped at t=20.0 s: the controller never withdrew Ready');
    // a bound longer than the rest of the run cannot be judged yet
    expectQuiet((await judgeScenario(statusTruthfulness({ boundMs: 40_000 }), s, { controllers: [stickyMirror] })).verdict);
    expectQuiet((await judgeScenario(statusTruthfulness({ boundMs: 0, lagMs: 100 }), s, { controllers: [deploymentMirror] })).verdict);
  });

  it('readiness that is never reported fails once the bound has passed after faults stopped', async () => {
    const v = expectFailure((await judgeScenario(statusTruthfulness(), mirrorScenario(), { controllers: [silentMirror] })).verdict);
    expect(v.evidence).toMatchObject({ rule: 'unreported', start: 2101, open: true, deadline: 30_000 });
    expect(v.summary).toBe('WebApp default/web was actually ready from t=2.101 s but did not report Ready by the end of the run');
    expect(v.explanation).toMatch(/Then: its status still did not say Ready at the end of the run \(t=50\.0 s\), more than 10\.0 s after faults stopped at t=20\.0 s: the controller does not report readiness it has/);
  });

  it('takes the user\'s definitions of "reported" and "actually ready"', async () => {
    const p = statusTruthfulness({
      reported: (o) => o.status['availableReplicas'] === 3,
      actual: (o, view) => view.list('Pod').filter((x) => x.metadata.labels['app'] === o.metadata.name && x.status['phase'] === 'Running').length >= 3 || 'fewer than 3 pods Running',
    });
    // the buggy mirror copies availableReplicas from the Deployment, so by this definition it is truthful
    expectQuiet((await judgeScenario(p, mirrorScenario(), { controllers: [deploymentMirrorBuggy] })).verdict);
    expect(() => statusTruthfulness({ lagMs: -1 })).toThrow('steadystate.properties.statusTruthfulness: lagMs must be ≥ 0 virtual ms, got -1');
    expect(() => statusTruthfulness({ actual: 3 as never })).toThrow(/actual must be a function/);
  });

  it('an object is actually ready only once the objects it controls are, down to their workloads (an App waits for its Database)', async () => {
    // guided search (issue 16) found app-database failing: its Database's pod was Ready long
    // after its Deployment was, and the App rightly waited; the oracle looked only at the App's
    // own workloads. Here the database pod is created only when faults stop (a slow rollout) and
    // pods take 12 s to be Ready: the App's Deployment is Ready at ~13 s, its Database at ~33 s,
    // more than the 10 s bound after faults stop at 20 s
    const scenario: Scenario = {
      seed: 7,
      controllers: [{ name: 'app' }, { name: 'database' }],
      environment: [{ name: 'deployment' }, { name: 'stateful-set' }, { name: 'pvc-binding' }, { name: 'pod-lifecycle', params: { readyMs: 12_000 } }],
      initialObjects: [],
      workload: [{ at: 0, type: 'create', object: { kind: APP, metadata: { name: 'shop', namespace: 'default' }, spec: { image: 'shop:1', replicas: 1, databaseGi: 1 } } }],
      faults: plan({ kind: 'environment-slow-rollout', target: 'default/shop-db', params: { delayMs: 29_000 } }),
      options: { faultWindowMs: 20_000, settleMs: 20_000 },
    };
    const { verdict, run } = await judgeScenario(statusTruthfulness(), scenario, { controllers: [appController, databaseController] });
    expectQuiet(verdict);
    const readyAt = (kind: string) => run.writes.find((w) => w.kind === kind && w.verb === 'updateStatus' && w.t >= 20_000)?.t;
    // the App reports Ready right after its Database does
    expect(readyAt('Database')).toBeGreaterThan(30_000);
    expect(readyAt(APP)! - readyAt('Database')!).toBeLessThan(100);
    // and an App that reports Ready once its Deployment is, its Database not yet ready, is caught
    const buggy = await judgeScenario(statusTruthfulness(), scenario, { controllers: [deploymentOnlyApp, databaseController] });
    expect(expectFailure(buggy.verdict).summary).toMatch(/^App default\/shop reported Ready .*Database default\/shop-db: StatefulSet default\/shop-db/);
  });

  it('does not judge a run without environment actors (nothing becomes ready there) unless told what ready means', async () => {
    const bare = { ...mirrorScenario(), environment: [] };
    const { verdict } = await judgeScenario(statusTruthfulness(), bare, { controllers: [deploymentMirrorBuggy] });
    expect(verdict).toEqual({ ok: true, judged: false, why: expect.stringContaining('no environment actor runs') });
    const told = await judgeScenario(statusTruthfulness({ actual: () => 'nothing runs' }), bare, { controllers: [deploymentMirrorBuggy] });
    expect(expectFailure(told.verdict).summary).toContain('while not actually ready (nothing runs)');
  });
});

/** Pods that exit 5 s after they start (exit code 1) and wait a minute to restart. */
function crashingScenario(faultWindowMs: number): Scenario {
  const app = webApp('web', { replicas: 3, image: 'nginx:1', podAnnotations: { 'steadystate.dev/run-ms': '5000', 'steadystate.dev/exit-code': '1' } });
  return {
    ...mirrorScenario(),
    environment: [{ name: 'cluster', params: { 'pod-lifecycle': { crashBackoffMs: 60_000 } } }],
    workload: [{ at: 0, type: 'create', object: app }],
    options: { faultWindowMs, settleMs: 20_000 },
  };
}
