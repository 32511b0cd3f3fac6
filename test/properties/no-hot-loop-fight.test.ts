import { describe, expect, it } from 'vitest';
import { defineController, deployment, isStoreError, podLifecycle, type JsonObject, type ReconcileContext, type Scenario, type WatchMapping } from '../../src/index.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { writeStatus } from '../../examples/false-positives/_shared/status.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * A fight inside one controller (red team rt46's deploy-putter, seed 9 run 20): two Scalers, one
 * wanting 3 replicas and the other 2, target one Deployment, and the controller's two keys set
 * `spec.replicas` in turn for ever, the Deployment's status following each write. no-hot-loop
 * used to excuse it as the environment moving on its own (scheduled.ts): the Deployment moved only
 * because the controller wrote. A correct Scaler that detects the conflict (as HPA does:
 * AmbiguousSelector) passes, and so does a controller following an environment that really moves
 * on its own (pods crashing and restarting on the kubelet's timers).
 */
type ScalerSpec = { target: string; replicas: number };

/** A Deployment's event goes to the Scalers that target it. */
const scalersOfDeployment: WatchMapping = { kind: 'Deployment', map: (d, ctx) => ctx.list('Scaler', { namespace: d.metadata.namespace ?? 'default' }).filter((s) => s.spec['target'] === d.metadata.name).map((s) => `${s.metadata.namespace}/${s.metadata.name}`) };

/** The Scaler read live, unless it is gone or going. */
async function liveScaler(ctx: ReconcileContext) {
  const s = await ctx.client.tryGet<ScalerSpec, JsonObject>('Scaler', ctx.key, { live: true });
  return !s || s.metadata.deletionTimestamp !== undefined ? undefined : s;
}

function scalerController(detectsConflict: boolean) {
  return defineController({
    name: 'scaler',
    for: 'Scaler',
    watches: [scalersOfDeployment],
    async reconcile(ctx) {
      const s = await liveScaler(ctx);
      if (!s) return;
      const ns = s.metadata.namespace ?? 'default';
      if (detectsConflict) {
        const rivals = (await ctx.client.list<ScalerSpec, JsonObject>('Scaler', { namespace: ns })).filter((x) => x.spec.target === s.spec.target && x.metadata.deletionTimestamp === undefined);
        // the first by name owns the target and the others stand down: the end state depends on the declared Scalers only
        const owner = rivals.map((x) => x.metadata.name).sort()[0] ?? s.metadata.name;
        if (owner !== s.metadata.name) return writeStatus(ctx, s, { scaled: false, reason: 'AmbiguousSelector', owner, observedGeneration: s.metadata.generation });
      }
      const d = await ctx.client.tryGet<JsonObject, JsonObject>('Deployment', { namespace: ns, name: s.spec.target });
      if (d && d.spec['replicas'] !== s.spec.replicas) {
        try {
          await ctx.client.patch('Deployment', { namespace: ns, name: s.spec.target }, { spec: { replicas: s.spec.replicas } }, { resourceVersion: d.metadata.resourceVersion });
        } catch (err) {
          if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
        }
      }
      return writeStatus(ctx, s, { scaled: d !== undefined, observedGeneration: s.metadata.generation });
    },
  });
}

/** Mirrors its Deployment's ready replicas into its status: busy exactly as long as the Deployment's pods move. */
const mirror = defineController({
  name: 'scaler',
  for: 'Scaler',
  watches: [scalersOfDeployment],
  async reconcile(ctx) {
    const s = await liveScaler(ctx);
    if (!s) return;
    const d = await ctx.client.tryGet<JsonObject, { readyReplicas?: number }>('Deployment', { namespace: s.metadata.namespace ?? 'default', name: s.spec.target });
    return writeStatus(ctx, s, { ready: d?.status.readyReplicas ?? 0, observedGeneration: s.metadata.generation });
  },
});

/** Each Scaler notes its Deployment's ready replicas in an annotation of its own on the Deployment: two keys writing one object, each write answering the pods. */
const noter = defineController({
  name: 'scaler',
  for: 'Scaler',
  watches: [scalersOfDeployment],
  async reconcile(ctx) {
    const s = await liveScaler(ctx);
    if (!s) return;
    const ref = { namespace: s.metadata.namespace ?? 'default', name: s.spec.target };
    const d = await ctx.client.tryGet<JsonObject, { readyReplicas?: number }>('Deployment', ref);
    const note = `scaler.example.com/${s.metadata.name}-ready`;
    const ready = String(d?.status.readyReplicas ?? 0);
    if (d && d.metadata.annotations[note] !== ready) await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [note]: ready } } });
    return writeStatus(ctx, s, { observedGeneration: s.metadata.generation });
  },
});

function web(annotations: Record<string, string> = {}) {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' }, annotations }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } } };
}

/** A Deployment and Scalers (name, replicas) targeting it; the quiet tail runs from 1.0 s to 1.4 s (a loop is stopped early, as `check` stops it). */
function scenario(scalers: [string, number][], deploymentObject: JsonObject = web(), podParams: JsonObject = {}): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'scaler' }],
    environment: [{ name: 'pod-lifecycle', params: podParams }, { name: 'deployment' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: deploymentObject as never },
      // the second Scaler late in the settle phase: the fight is short to simulate
      ...scalers.map(([name, replicas], i) => ({ at: i === 0 ? 50 : 750, type: 'create' as const, object: { kind: 'Scaler', metadata: { name, namespace: 'default' }, spec: { target: 'web', replicas } } })),
    ],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 300, settleMs: 500 },
  };
}

const property = noHotLoop({ quietAfterMs: 200 });
const options = { environment: [podLifecycle, deployment], tailMs: 600, earlyStop: true };

describe('no-hot-loop: a fight inside one controller', () => {
  it('two Scalers on one Deployment setting its replicas in turn fail, the story naming both keys, the field and the hint', async () => {
    const { verdict } = await judgeScenario(property, scenario([['a', 3], ['b', 2]]), { controllers: [scalerController(false)], options });
    const v = expectFailure(verdict);
    expect(v.summary).toMatch(/^fight: Scaler default\/a and Scaler default\/b set spec\.replicas of Deployment default\/web in turn, \d+ writes in \d+ ms while nothing else happened \([23], [23], …\)$/);
    expect(v.explanation).toContain('two keys of controller scaler/0, set spec.replicas of Deployment default/web in turn');
    expect(v.explanation).toContain("one key's reconcile undid the other's write");
    expect(v.explanation).toContain('AmbiguousSelector');
    expect(v.explanation).toContain('if two Scalers sharing one Deployment is not a configuration you support, constrain the generator (`objects`');
    expect(v.evidence['fight']).toMatchObject({ keys: ['default/a', 'default/b'], path: 'spec.replicas' });
  });
  it('the same Scalers detecting the conflict (as HPA does: the first by name owns the Deployment, the other stands down) pass', async () => {
    const { verdict, run } = await judgeScenario(property, scenario([['a', 3], ['b', 2]]), { controllers: [scalerController(true)], options });
    expectQuiet(verdict);
    // a scaled while it was alone (to its 3), and nobody wrote after the second Scaler came (t=0.75 s)
    expect(run.writes.filter((w) => w.actor.startsWith('controller:') && w.kind === 'Deployment').map((w) => w.t)).toEqual([51]);
  });
  it('one Scaler alone passes', async () => {
    expectQuiet((await judgeScenario(property, scenario([['a', 3]]), { controllers: [scalerController(false)], options })).verdict);
  });
  it("a controller following pods that crash and restart on the kubelet's timers passes: the environment moves on its own", async () => {
    // each pod exits 150 ms after it starts and restarts after a 100 ms back-off: the Deployment's readyReplicas goes 0, 1, 0, 1, …
    const crashing = web({ 'steadystate.dev/run-ms': '150', 'steadystate.dev/exit-code': '1' });
    const s = scenario([['a', 1]], crashing, { readyMs: 50, startMs: 50, crashBackoffMs: 100, crashBackoffMaxMs: 100 });
    const { verdict, run } = await judgeScenario(property, s, { controllers: [mirror], options });
    expectQuiet(verdict);
    // the guard guards something: the mirror kept writing through the quiet tail
    expect(verdict.ok && verdict.stats?.['scheduledWrites']).toBeGreaterThanOrEqual(3);
    expect(run.writes.filter((w) => w.actor === 'controller:scaler/0' && w.t >= 1000).length).toBeGreaterThanOrEqual(3);
  });
  it("two keys answering each other's writes to one Deployment pass while its pods crash and restart: the Deployment's status answers the kubelet's timer, through the ReplicaSet", async () => {
    const crashing = web({ 'steadystate.dev/run-ms': '150', 'steadystate.dev/exit-code': '1' });
    const s = scenario([['a', 1], ['b', 1]], crashing, { readyMs: 50, startMs: 50, crashBackoffMs: 100, crashBackoffMaxMs: 100 });
    const { verdict, run } = await judgeScenario(property, s, { controllers: [noter], options });
    expectQuiet(verdict);
    expect(new Set(run.writes.filter((w) => w.actor === 'controller:scaler/0' && w.kind === 'Deployment' && w.t >= 1000).map((w) => w.changed.join()))).toEqual(new Set(['metadata.annotations.scaler.example.com/a-ready', 'metadata.annotations.scaler.example.com/b-ready']));
  });
});
