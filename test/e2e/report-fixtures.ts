import { simulate } from '../../src/simulate.js';
import { defineController } from '../../src/runtime/define-controller.js';
import type { ControllerDefinition } from '../../src/runtime/define-controller.js';
import type { CheckFailed, CheckPassed } from '../../src/harness/check-result.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { createTimelineRecorder, type ObjectTimeline } from '../../src/report/timeline-recorder.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';

/**
 * Report fixtures: a real RunRecord (the edge-triggered replicas controller losing its one
 * ADDED notification) wrapped in a CheckFailed, so the report writers are tested on the data
 * `check()` produces without depending on the property search itself.
 */

/** A kind and object name full of markup, to prove every format escapes them. */
export const NASTY_KIND = 'Weird"<b>Kind</b>';
export const NASTY_NAME = `<img src=x onerror="window.__xss=1">&amp;|pipe\`tick`;

/** Edge-triggered controller of a kind with a hostile name. */
export const nastyController: ControllerDefinition = defineController({
  name: 'nasty-edge',
  for: NASTY_KIND,
  resyncPeriodMs: 0,
  async reconcile(ctx) {
    const o = await ctx.client.tryGet<{ replicas: number }, { replicas?: number }>(NASTY_KIND, ctx.key);
    if (!o) return;
    const actual = o.status.replicas ?? 0;
    if (actual === o.spec.replicas) return;
    await ctx.client.updateStatus({ ...o, status: { replicas: actual + 1 } });
  },
});

export function edgeScenario(kind = 'ReplicaSet', name = 'web', controller = 'edge-triggered'): Scenario {
  return {
    seed: 7,
    controllers: [{ name: controller }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind, metadata: { name, namespace: 'default', labels: { app: 'web' }, annotations: { note: '<script>x</script>' } }, spec: { replicas: 3 }, status: { replicas: 0 } } }],
    faults: { events: [{ kind: 'event-loss', nth: 0 }], background: [] },
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  };
}

/** A CheckFailed built from a real run, plus the desired-vs-actual samples of that run. */
export async function failedFixture(nasty = false): Promise<{ result: CheckFailed; timelines: ObjectTimeline[]; controller: ControllerDefinition }> {
  const controller = nasty ? nastyController : edgeTriggered;
  const kind = nasty ? NASTY_KIND : 'ReplicaSet';
  const scenario = nasty ? edgeScenario(kind, NASTY_NAME, controller.name) : edgeScenario();
  const rec = createTimelineRecorder([kind]);
  const { run } = await simulate(scenario, { controllers: [controller], probes: [rec.probe] });
  const key = `default/${nasty ? NASTY_NAME : 'web'}`;
  const result: CheckFailed = {
    ok: false,
    controller: controller.name,
    runs: 12,
    seed: 42,
    properties: ['convergence', 'idempotence'],
    faults: ['event-loss'],
    coverage: [{ kind: 'event-loss', enabled: 12, injected: 30, changedBehaviour: 4 }],
    stats: { convergenceLatencyMs: null, reconcilesPerObject: 2, storeWritesPerObject: 3, peakDownstreamQps: 0, reconciles: 40 },
    corpusReplayed: 0,
    determinismChecked: 1,
    property: 'convergence',
    summary: `${kind} ${key} did not converge: status.replicas stayed 0 ≠ 3`,
    explanation: `Let: the ${kind} ${key} ADDED event at t=0.000s was dropped (event-loss nth=0).\nThen: no reconcile of ${key} ran between t=0.000s and t=20.000s, and replicas stayed 0 ≠ 3.`,
    evidence: { key, desired: 3, actual: 0 },
    scenario,
    originalScenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 0 }, { kind: 'event-loss', nth: 4 }], background: [{ kind: 'event-loss', rate: 0.3 }] } },
    path: '3:0:0',
    failedAtRun: 4,
    shrinks: 2,
    run,
    determinism: { ok: true, hashes: [run.hash, run.hash] },
    inputs: { properties: [{ name: 'convergence', options: { stableFor: 3, checkEveryMs: 1000 } }, { name: 'idempotence', options: {} }], faults: ['event-loss'], environment: [], tailMs: 10_000, traceReads: true, downstream: null },
  };
  return { result, timelines: rec.timelines(), controller };
}

/** A CheckPassed. */
export function passedFixture(): CheckPassed {
  return {
    ok: true,
    controller: 'level-triggered',
    runs: 100,
    seed: 42,
    properties: ['convergence', 'idempotence'],
    faults: ['event-loss'],
    coverage: [{ kind: 'event-loss', enabled: 60, injected: 200, changedBehaviour: 40 }],
    stats: { convergenceLatencyMs: { p50: 2000, p90: 4000, p99: 5000, max: 5000 }, reconcilesPerObject: 4.5, storeWritesPerObject: 3, peakDownstreamQps: 0, reconciles: 450 },
    corpusReplayed: 1,
    determinismChecked: 10,
    property: null,
    summary: null,
    explanation: null,
    scenario: null,
    path: null,
  };
}
