import { describe, expect, it } from 'vitest';
import { defineController, deployment, isStoreError, podLifecycle, type JsonObject, type ReconcileContext, type Scenario } from '../../src/index.js';
import { noFighting } from '../../properties/no-fighting.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { writeStatus } from '../../examples/false-positives/_shared/status.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * A fight between two keys of one controller that no event drives: cron scalers (KEDA's cron
 * trigger, a time-of-day scaler) each enforce their replicas on a Deployment every second, on
 * their own timer. Two of them on one Deployment set spec.replicas in turn, 3, 2, 3, …, for ever.
 * no-hot-loop excuses each pass as scheduled work (a timer it asked for, no event), and
 * no-fighting, counting writers by actor, saw one writer: the controller.
 */
type CronSpec = { target: string; replicas: number };

const PERIOD_MS = 1000;

async function liveCron(ctx: ReconcileContext) {
  const s = await ctx.client.tryGet<CronSpec, JsonObject>('CronScaler', ctx.key, { live: true });
  return !s || s.metadata.deletionTimestamp !== undefined ? undefined : s;
}

/** `detectsConflict`: the first CronScaler by name owns a target, the others stand down (as KEDA refuses a second ScaledObject on one workload). `ownAnnotation`: each writes a field of its own instead. */
function cronScaler(mode: 'fights' | 'detectsConflict' | 'ownAnnotation') {
  return defineController({
    name: 'cron-scaler',
    for: 'CronScaler',
    async reconcile(ctx) {
      const s = await liveCron(ctx);
      if (!s) return;
      const ns = s.metadata.namespace ?? 'default';
      if (mode === 'detectsConflict') {
        const rivals = (await ctx.client.list<CronSpec, JsonObject>('CronScaler', { namespace: ns })).filter((x) => x.spec.target === s.spec.target && x.metadata.deletionTimestamp === undefined);
        const owner = rivals.map((x) => x.metadata.name).sort()[0] ?? s.metadata.name;
        if (owner !== s.metadata.name) {
          await writeStatus(ctx, s, { active: false, reason: 'AmbiguousSelector', owner, observedGeneration: s.metadata.generation });
          return { requeueAfter: PERIOD_MS };
        }
      }
      const ref = { namespace: ns, name: s.spec.target };
      const d = await ctx.client.tryGet<JsonObject, JsonObject>('Deployment', ref);
      if (d) {
        try {
          if (mode === 'ownAnnotation') {
            const note = `cron.example.com/${s.metadata.name}-replicas`;
            if (d.metadata.annotations[note] !== String(s.spec.replicas)) await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [note]: String(s.spec.replicas) } } });
          } else if (d.spec['replicas'] !== s.spec.replicas) await ctx.client.patch('Deployment', ref, { spec: { replicas: s.spec.replicas } }, { resourceVersion: d.metadata.resourceVersion });
        } catch (err) {
          if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
        }
      }
      await writeStatus(ctx, s, { active: d !== undefined, observedGeneration: s.metadata.generation });
      return { requeueAfter: PERIOD_MS };
    },
  });
}

function scenario(scalers: [string, number][]): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'cron-scaler' }],
    environment: [{ name: 'pod-lifecycle' }, { name: 'deployment' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } } } as never },
      ...scalers.map(([name, replicas], i) => ({ at: 50 + 500 * i, type: 'create' as const, object: { kind: 'CronScaler', metadata: { name, namespace: 'default' }, spec: { target: 'web', replicas } } })),
    ],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 300, settleMs: 2000 },
  };
}

const options = { environment: [podLifecycle, deployment], tailMs: 5000 };

const fighting = scenario([
  ['a', 3],
  ['b', 2],
]);

describe('no-fighting: two keys of one controller', () => {
  it('two CronScalers on one Deployment enforcing 3 and 2 replicas on their own timers fail, the story naming both keys, the values and the hint', async () => {
    const v = expectFailure((await judgeScenario(noFighting(), fighting, { controllers: [cronScaler('fights')], options })).verdict);
    expect(v.summary).toMatch(/^fighting over spec\.replicas of Deployment default\/web: \d+ flips between CronScaler default\/a and CronScaler default\/b, keys of controller:cron-scaler\/0$/);
    expect(v.explanation).toMatch(/written alternately by CronScaler default\/(a|b) \(\d+×\) and CronScaler default\/(a|b) \(\d+×\), both keys of controller cron-scaler\/0, setting it to [23], [23], [23], …/);
    expect(v.explanation).toContain("each key's reconcile undid the other's write");
    expect(v.explanation).toContain('AmbiguousSelector');
    expect(v.evidence).toMatchObject({ path: 'spec.replicas', actors: ['controller:cron-scaler/0'], keys: ['default/a', 'default/b'] });
  });
  it('no-hot-loop excuses the same fight: each pass is a timer the controller asked for, no event', async () => {
    expectQuiet((await judgeScenario(noHotLoop(), fighting, { controllers: [cronScaler('fights')], options })).verdict);
  });
  it('the same CronScalers detecting the conflict (the first by name owns the Deployment, the other stands down) pass', async () => {
    expectQuiet((await judgeScenario(noFighting(), fighting, { controllers: [cronScaler('detectsConflict')], options })).verdict);
  });
  it('two keys each writing an annotation of its own on the Deployment, every second, pass', async () => {
    const { verdict, run } = await judgeScenario(noFighting(), fighting, { controllers: [cronScaler('ownAnnotation')], options });
    expectQuiet(verdict);
    expect(run.writes.filter((w) => w.actor === 'controller:cron-scaler/0' && w.kind === 'Deployment').map((w) => w.changed)).toEqual([['metadata.annotations.cron.example.com/a-replicas'], ['metadata.annotations.cron.example.com/b-replicas']]);
  });
});
