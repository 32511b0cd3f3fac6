import { CustomObjectsApi, KubeConfig, KubernetesObjectApi, makeInformer } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { kubeController } from '../../src/kube-rest/kube-controller.js';
import { simulate } from '../../src/simulate.js';
import { properties } from '../../properties/index.js';
import { buggyWebAppController, webAppController, webAppResource } from '../../examples/client-node/steadystate.js';
import type { WebApp } from '../../examples/client-node/webapp.js';

/**
 * The example controller, written only against @kubernetes/client-node, run unchanged inside
 * the simulation: its informers and writes go through msw to the simulated API.
 */
function scenario(over: Partial<Scenario> = {}): Scenario {
  return {
    seed: 7,
    controllers: [{ name: 'webapp' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: { apiVersion: 'example.com/v1', kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2, image: 'nginx' } } },
      { at: 2000, type: 'patch', kind: 'WebApp', key: 'default/web', patch: { spec: { replicas: 3 } } },
    ],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 4000, settleMs: 4000 },
    ...over,
  };
}

const converged = (run: { finalObjects: { kind: string; metadata: { name: string; generation: number }; status: Record<string, unknown>; spec: Record<string, unknown>; [field: string]: unknown }[] }) => {
  const app = run.finalObjects.find((o) => o.kind === 'WebApp' && o.metadata.name === 'web');
  const cm = run.finalObjects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'web-web');
  return { observed: app?.status['observedGeneration'] === app?.metadata.generation, data: cm?.['data'] };
};

describe('kubeController: a client-node controller inside simulate', () => {
  it('converges, writes as controller:webapp/0, and completes deletion through its finalizer', async () => {
    const { run } = await simulate(scenario({ workload: [...scenario().workload, { at: 5000, type: 'delete', kind: 'WebApp', key: 'default/web' }] }), { controllers: [webAppController], tailMs: 2000 });
    const byController = run.writes.filter((w) => w.actor === 'controller:webapp/0' && !w.noop);
    expect(byController.map((w) => `${w.verb} ${w.kind}`)).toEqual(
      expect.arrayContaining(['patch WebApp', 'create ConfigMap', 'patchStatus WebApp', 'patch ConfigMap', 'delete ConfigMap']),
    );
    expect(run.finalObjects.filter((o) => o.kind === 'WebApp' || o.kind === 'ConfigMap')).toEqual([]);
    expect(run.blocked).toEqual([]);
    expect(run.trace.some((e) => e.type === 'watch:event' && e['via'] === 'http')).toBe(true);
  });

  it('replays exactly under HTTP-layer faults and two replicas: the same scenario gives the same trace hash', async () => {
    const s = scenario({
      controllers: [{ name: 'webapp', replicas: 2 }],
      faults: {
        events: [],
        background: [
          { kind: 'watch-disconnect', rate: 0.2 },
          { kind: 'crash-restart', rate: 0.05 },
          { kind: 'duplication', rate: 0.2 },
          { kind: 'api-error', rate: 0.2 },
          { kind: 'api-conflict', rate: 0.2 },
          { kind: 'delay', rate: 0.2, params: { ms: 300 } },
        ],
      },
    });
    const a = await simulate(s, { controllers: [webAppController], tailMs: 1000 });
    const b = await simulate(s, { controllers: [webAppController], tailMs: 1000 });
    const fired = new Set(a.run.trace.filter((e) => e.type === 'fault:inject').map((e) => e['kind']));
    expect(fired.size).toBeGreaterThanOrEqual(4);
    expect(b.run.hash).toBe(a.run.hash);
    expect(b.run.trace.length).toBe(a.run.trace.length);
    expect(converged(a.run)).toEqual({ observed: true, data: { replicas: '3', image: 'nginx' } });
  });

  it('survives a cut watch (it restarts its informers) and a crash between two requests', async () => {
    const cut = await simulate(scenario({ faults: { events: [{ kind: 'watch-disconnect', nth: 0 }], background: [] } }), { controllers: [webAppController], tailMs: 1000 });
    expect(cut.run.trace.some((e) => e.type === 'fault:inject' && e['kind'] === 'watch-disconnect')).toBe(true);
    expect(converged(cut.run)).toEqual({ observed: true, data: { replicas: '3', image: 'nginx' } });
    const crash = await simulate(scenario({ faults: { events: [{ kind: 'crash-restart', nth: 1, params: { point: 'after-write' } }], background: [] } }), { controllers: [webAppController], tailMs: 1000 });
    expect(crash.run.trace.filter((e) => e.type === 'controller:crash')).toHaveLength(1);
    expect(crash.run.trace.filter((e) => e.type === 'controller:start')).toHaveLength(2);
    expect(converged(crash.run)).toEqual({ observed: true, data: { replicas: '3', image: 'nginx' } });
  });

  it('api-error reaches its informers: a refused LIST, a 503 on a GET and a reset watch connect are retried, and it converges', async () => {
    // calls of the run, counted over writes and reads that reach the API server: 0 is the first LIST
    const events = [
      { kind: 'api-error', nth: 0, params: { status: 'refused' } },
      { kind: 'api-error', nth: 1, params: { status: 503 } },
      { kind: 'api-error', nth: 2, params: { status: 'reset', applied: false } },
      { kind: 'api-error', nth: 3, params: { status: 429, retryAfterSeconds: 1 } },
    ];
    const { run } = await simulate(scenario({ faults: { events, background: [] } }), { controllers: [webAppController], tailMs: 1000 });
    const fired = run.trace.filter((e) => e.type === 'fault:inject' && e['kind'] === 'api-error');
    expect(fired).toHaveLength(4);
    // reads are among them: list and watch connects fail too, not only writes
    expect(fired.some((e) => e['verb'] === 'list' || e['verb'] === 'watch')).toBe(true);
    expect(run.trace.some((e) => e.type === 'store:read' && e['via'] === 'http' && e['fault'] === 'api-error')).toBe(true);
    expect(converged(run)).toEqual({ observed: true, data: { replicas: '3', image: 'nginx' } });
  });

  it('regression (found by check): with a delayed watch event and a second replica it creates its ConfigMap once', async () => {
    // Before the example re-read the owner before creating, a replica whose cache still held a
    // deleted WebApp re-created the ConfigMap about 50 times, each garbage-collected at once.
    const s = scenario({
      workload: [
        { at: 200, type: 'create', object: { kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, image: 'nginx' } } },
        { at: 1400, type: 'delete', kind: 'WebApp', key: 'default/web' },
      ],
      faults: { events: [{ kind: 'delay', nth: 4, params: { ms: 3500 } }, { kind: 'second-replica', at: 1700, params: { leaderElection: true } }], background: [] },
      options: { faultWindowMs: 3000, settleMs: 6000 },
    });
    const { run } = await simulate(s, { controllers: [webAppController], tailMs: 1000 });
    expect(run.trace.filter((e) => e.type === 'fault:inject').map((e) => e['kind'])).toEqual(['delay', 'second-replica']);
    expect(run.writes.filter((w) => w.kind === 'ConfigMap' && w.verb === 'create' && w.error === undefined)).toHaveLength(1);
    expect(run.finalObjects.filter((o) => o.kind === 'ConfigMap')).toEqual([]);
  });

  it('a controller that never restarts its client-node informer is caught by the watch-disconnect fault', async () => {
    const naive = kubeController({
      name: 'webapp',
      for: 'WebApp',
      resources: [webAppResource],
      start(ctx) {
        const kc = new KubeConfig();
        kc.loadFromString(ctx.kubeconfig);
        const objects = KubernetesObjectApi.makeApiClient(kc);
        const custom = kc.makeApiClient(CustomObjectsApi);
        const informer = makeInformer<WebApp>(kc, '/apis/example.com/v1/webapps', () => objects.list<WebApp>('example.com/v1', 'WebApp'));
        const sync = (app: WebApp) => {
          const generation = app.metadata?.generation;
          if (app.status?.observedGeneration === generation) return;
          void custom
            .patchNamespacedCustomObjectStatus({ group: 'example.com', version: 'v1', plural: 'webapps', namespace: app.metadata!.namespace!, name: app.metadata!.name!, body: [{ op: 'add', path: '/status', value: { observedGeneration: generation } }] })
            .catch(() => {});
        };
        informer.on('add', sync);
        informer.on('update', sync);
        void informer.start();
        return () => informer.stop();
      },
    });
    const plain = await simulate(scenario(), { controllers: [naive], tailMs: 1000 });
    expect(converged(plain.run).observed).toBe(true);
    const cut = await simulate(scenario({ faults: { events: [{ kind: 'watch-disconnect', nth: 0 }], background: [] } }), { controllers: [naive], tailMs: 1000 });
    expect(converged(cut.run).observed).toBe(false);
    const verdict = properties.convergence().judge(cut.run, undefined, {});
    expect(verdict.ok).toBe(false);
  });
});

describe('kubeController: check', () => {
  it('passes the example controller under every fault kind (swarm) and every property', async () => {
    const result = await check(webAppController, { runs: 20, seed: 42, faultWindowMs: 3000, settleMs: 6000, tailMs: 3000 });
    if (!result.ok) throw new Error(`${result.property}: ${result.summary}\n${result.explanation}`);
    expect(result.ok).toBe(true);
  });

  it('catches the variant that writes status unconditionally (no-hot-loop), with a shrunk reproduction', { timeout: 120_000 }, async () => {
    const result = await check(buggyWebAppController, { runs: 3, seed: 1, faults: [], faultWindowMs: 500, settleMs: 3500, tailMs: 1000, determinism: false, properties: [properties.noHotLoop({ quietAfterMs: 500 }), properties.convergence()], shrink: { maxSteps: 10, maxMinimizeTests: 4 } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.property).toBe('no-hot-loop');
    expect(result.summary).toMatch(/hot loop: \d+ controller writes/);
    expect(result.scenario.workload.length).toBeLessThanOrEqual(1);
    expect(result.scenario.faults.events).toEqual([]);
  });
});
