import { describe, expect, it } from 'vitest';
import { defineController, deployment, isStoreError, podLifecycle, type JsonObject, type ReconcileContext, type Scenario, type WatchMapping } from '../../src/index.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { writeStatus } from '../../examples/false-positives/_shared/status.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * A one-key loop through the environment (h49): a Spare keeps its Deployment at its Ready pods + 1,
 * so each write scales the ReplicaSet up, the new Pod becomes Ready on the kubelet's timer, the
 * Deployment's status answers, and the Spare's next reconcile writes the replicas again, for ever.
 * The scheduled-work rule counted each reconcile the Deployment's status started as the
 * environment moving on its own (a Pod becoming Ready is the kubelet's timer), and every property
 * passed it. The environment's timers now carry what set them (the Pod's creation, the ReplicaSet
 * scaled by the controller's write), and a reconcile started only by the environment's answers to
 * the loop's own writes, changing again an object they changed, feeds the loop. The correct twin
 * writes the Deployment once from its declared spec and answers the same status changes with nothing.
 */
type SpareSpec = { target: string; replicas: number };

const sparesOfDeployment: WatchMapping = { kind: 'Deployment', map: (d, ctx) => ctx.list('Spare', { namespace: d.metadata.namespace ?? 'default' }).filter((s) => s.spec['target'] === d.metadata.name).map((s) => `${s.metadata.namespace}/${s.metadata.name}`) };

async function liveSpare(ctx: ReconcileContext) {
  const s = await ctx.client.tryGet<SpareSpec, JsonObject>('Spare', ctx.key, { live: true });
  return !s || s.metadata.deletionTimestamp !== undefined ? undefined : s;
}

/** `fromReady`: the replicas from the Deployment's Ready pods + 1 (the bug); else from the Spare's spec + 1. */
function spareController(fromReady: boolean) {
  return defineController({
    name: 'spare',
    for: 'Spare',
    watches: [sparesOfDeployment],
    async reconcile(ctx) {
      const s = await liveSpare(ctx);
      if (!s) return;
      const ref = { namespace: s.metadata.namespace ?? 'default', name: s.spec.target };
      const d = await ctx.client.tryGet<{ replicas?: number }, { readyReplicas?: number }>('Deployment', ref);
      const ready = d?.status.readyReplicas ?? 0;
      const want = fromReady ? ready + 1 : s.spec.replicas + 1;
      if (d && d.spec.replicas !== want) {
        try {
          await ctx.client.patch('Deployment', ref, { spec: { replicas: want } }, { resourceVersion: d.metadata.resourceVersion });
        } catch (err) {
          if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
        }
      }
      return writeStatus(ctx, s, { ready, observedGeneration: s.metadata.generation });
    },
  });
}

/** A Deployment of 1 and its Spare; Pods Ready 100 ms after they are made; the quiet tail runs from 1.8 s to 4.3 s. */
function scenario(): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'spare' }],
    environment: [{ name: 'pod-lifecycle', params: { startMs: 50, readyMs: 50 } }, { name: 'deployment' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } } } as never },
      { at: 50, type: 'create', object: { kind: 'Spare', metadata: { name: 'a', namespace: 'default' }, spec: { target: 'web', replicas: 2 } } },
    ],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 300, settleMs: 1000 },
  };
}

const options = { environment: [podLifecycle, deployment], tailMs: 3000 };

const property = noHotLoop({ quietAfterMs: 500 });

describe('no-hot-loop: a one-key loop through the environment', () => {
  it("a Spare setting its Deployment's replicas to the Ready pods + 1 fails: each new Pod's readiness brings the next write", async () => {
    const { verdict, run } = await judgeScenario(property, scenario(), { controllers: [spareController(true)], options });
    const v = expectFailure(verdict);
    expect(v.summary).toMatch(/^hot loop: \d+ controller writes in 2\.5 s of the quiet tail, \d+ to Deployment default\/web \(spec\.replicas/);
    expect(v.explanation).toMatch(/environment actor deployment wrote Deployment default\/web at t=[\d.]+ s in answer to controller spare\/0's own patch of Deployment default\/web at t=[\d.]+ s \(changed spec\.replicas\), through ReplicaSet default\/web-\w+ and Pod default\/web-[\w-]+: the environment moved only because the controller wrote/);
    expect(v.explanation).toContain('derive what is written from the declared spec');
    // the loop grows the Deployment for ever: one more replica per round
    const replicas = run.finalObjects.find((o) => o.kind === 'Deployment')?.spec['replicas'];
    expect(replicas).toBeGreaterThan(15);
  });
  it("the same Spare setting the replicas from its own spec (+ 1) passes: the Deployment's answers bring reconciles that write nothing", async () => {
    const { verdict, run } = await judgeScenario(property, scenario(), { controllers: [spareController(false)], options });
    expectQuiet(verdict);
    // the same shape: it wrote the Deployment once, and the Deployment's status answered, reconcile after reconcile
    expect(run.writes.filter((w) => w.actor === 'controller:spare/0' && w.kind === 'Deployment').length).toBe(1);
    expect(run.writes.filter((w) => w.actor === 'environment:deployment' && w.kind === 'Deployment').length).toBeGreaterThanOrEqual(2);
  });
});
