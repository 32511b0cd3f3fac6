import { KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { simulate, type Scenario } from '../src/index.js';
import { VirtualClock } from '../src/sim/clock.js';
import { ObjectStore } from '../src/store/store.js';
import { createKubeApi } from '../src/kube-rest/kube-api.js';
import { kubeController } from '../src/kube-rest/kube-controller.js';
import { startLoopback } from '../src/kube-rest/loopback.js';
import type { BenchRow } from './types.js';

type CM = V1ConfigMap & KubernetesObject;

/**
 * A trivial client-node controller: each reconcile reads its ConfigMap from the informer cache
 * and bumps `data.n` with a merge patch, whose watch event triggers the next reconcile, until
 * `limit`. One reconcile = one write + one watch event through the whole HTTP stack.
 */
function startCounter(kc: KubeConfig, limit: number, onReconcile: () => void): () => Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const informer = makeInformer<CM>(kc, '/api/v1/namespaces/bench/configmaps', () => objects.list<CM>('v1', 'ConfigMap', 'bench'));
  let busy = false;
  let again = false;
  // level-triggered: an event that arrives mid-reconcile runs it again from the cache afterwards
  const reconcile = async (): Promise<void> => {
    if (busy) {
      again = true;
      return;
    }
    const cm = informer.get('counter', 'bench');
    const n = Number(cm?.data?.['n'] ?? '0');
    if (!cm || n >= limit) return;
    busy = true;
    onReconcile();
    try {
      await objects.patch<CM>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counter', namespace: 'bench' }, data: { n: String(n + 1) } }, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
    } finally {
      busy = false;
    }
    if (again) {
      again = false;
      void reconcile();
    }
  };
  informer.on('add', () => void reconcile());
  informer.on('update', () => void reconcile());
  void informer.start();
  return () => informer.stop();
}

const seed = { kind: 'ConfigMap', metadata: { name: 'counter', namespace: 'bench' }, data: { n: '0' } };

/** Reconciles per wall-clock second through client-node 1.4 inside `simulate` (in-process transport, virtual time). */
export async function inProcess(limit: number): Promise<number> {
  let reconciles = 0;
  const counter = kubeController({ name: 'counter', for: 'ConfigMap', requestLatencyMs: 1, start: (ctx) => {
    const kc = new KubeConfig();
    kc.loadFromString(ctx.kubeconfig);
    return startCounter(kc, limit, () => reconciles++);
  } });
  const scenario: Scenario = { seed: 1, controllers: [{ name: 'counter' }], initialObjects: [seed], workload: [], faults: { events: [], background: [] }, options: { faultWindowMs: limit * 5, settleMs: 0, relistOnSettle: false } };
  const t0 = performance.now();
  await simulate(scenario, { controllers: [counter], tailMs: 0, traceReads: false });
  return reconciles / ((performance.now() - t0) / 1000);
}

/** Reconciles per wall-clock second through client-node 1.4 over a real loopback socket. */
async function overLoopback(limit: number): Promise<number> {
  const store = new ObjectStore({ clock: new VirtualClock() });
  const api = createKubeApi({ store });
  const server = await startLoopback(api);
  store.create('user', seed);
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig({ token: api.issueToken('controller:counter/0') }));
  let reconciles = 0;
  const t0 = performance.now();
  const stop = startCounter(kc, limit, () => reconciles++);
  // a ConfigMap's data is a top-level field of the stored object
  while ((store.peek('ConfigMap', 'bench/counter') as unknown as { data: { n: string } }).data.n !== String(limit)) await new Promise((r) => setTimeout(r, 1));
  const rate = reconciles / ((performance.now() - t0) / 1000);
  await stop();
  await server.close();
  return rate;
}

/**
 * Reconciles per second through client-node, in a simulation (in-process transport) and over
 * loopback. The in-process rate is measured warm (after 4,000 reconciles: a check's 300 runs do
 * far more than that), per wall-clock second and per CPU-second of this process (what an idle
 * machine gives; on a shared one the wall clock counts others' work too).
 */
export async function benchKubeRest(): Promise<BenchRow[]> {
  for (let i = 0; i < 3; i++) await inProcess(i === 0 ? 50 : 2000); // warm-up (JIT)
  const cpu0 = process.cpuUsage();
  const wall = await inProcess(2000);
  const cpu = process.cpuUsage(cpu0);
  const perCpu = 2000 / ((cpu.user + cpu.system) / 1e6);
  await overLoopback(50);
  const loopback = await overLoopback(1000);
  return [
    { name: 'reconciles/s, client-node in-process (simulate)', value: wall, unit: '/s', target: '≥ 5,000 (SPEC §10)' },
    { name: 'reconciles per CPU-second, client-node in-process', value: perCpu, unit: '/s', target: '≥ 5,000 (idle machine)' },
    { name: 'reconciles/s, client-node over loopback', value: loopback, unit: '/s', target: 'real sockets, wall clock' },
  ];
}
