import { defineController } from '../../src/runtime/define-controller.js';
import type { ReconcileContext } from '../../src/runtime/reconcile.js';
import type { FaultPlan } from '../../src/harness/fault-plan.js';
import type { RunRecord } from '../../src/harness/property.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { fromVirtualTimestamp, keyOf, virtualTimestamp, type JsonObject, type NewObject, type StoredObject } from '../../src/store/object.js';

/**
 * A small operator for the environment faults' law suites: a WebSet asks for `replicas` pods
 * (`<name>-<i>`, optionally all mounting the claim `<name>-data`) and reports `phase` and a
 * Ready condition. The correct version waits as long as it takes; the buggy ones carry two
 * classic operator bugs the environment faults expose.
 */
export const WEB_SET = 'WebSet';

interface WebSetSpec {
  replicas: number;
  volume?: boolean;
}
type WebSet = StoredObject<WebSetSpec & JsonObject, JsonObject>;

/** How long the timeout-buggy version waits for readiness before it declares failure for good. */
export const READY_TIMEOUT_MS = 10_000;

function isReady(p: StoredObject): boolean {
  const c = Array.isArray(p.status['conditions']) ? (p.status['conditions'] as JsonObject[]) : [];
  return c.some((x) => x['type'] === 'Ready' && x['status'] === 'True');
}

function owned(ws: WebSet) {
  return (o: StoredObject) => o.metadata.ownerReferences.some((r) => r.uid === ws.metadata.uid);
}

function podFor(ws: WebSet, i: number): NewObject {
  return {
    kind: 'Pod',
    metadata: { name: `${ws.metadata.name}-${i}`, namespace: ws.metadata.namespace ?? 'default', labels: { app: ws.metadata.name }, ownerReferences: [{ kind: WEB_SET, name: ws.metadata.name, uid: ws.metadata.uid, controller: true }] },
    spec: { containers: [{ name: 'web', image: 'nginx' }], ...(ws.spec.volume ? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `${ws.metadata.name}-data` } }] } : {}) },
  };
}

/** Creates what is missing (the claim, pods), deletes finished pods; returns whether every pod is Ready. */
async function converge(ctx: ReconcileContext, ws: WebSet, createPods: boolean): Promise<boolean> {
  const ns = ws.metadata.namespace ?? 'default';
  if (ws.spec.volume && !(await ctx.client.tryGet('PersistentVolumeClaim', `${ns}/${ws.metadata.name}-data`))) {
    await ctx.client.create({ kind: 'PersistentVolumeClaim', metadata: { name: `${ws.metadata.name}-data`, namespace: ns, ownerReferences: [{ kind: WEB_SET, name: ws.metadata.name, uid: ws.metadata.uid, controller: true }] }, spec: { resources: { requests: { storage: '1Gi' } } } });
  }
  const pods = (await ctx.client.list('Pod', { namespace: ns })).filter(owned(ws));
  let ready = 0;
  for (let i = 0; i < ws.spec.replicas; i++) {
    const p = pods.find((x) => x.metadata.name === `${ws.metadata.name}-${i}`);
    if (!p) {
      if (createPods) await ctx.client.create(podFor(ws, i));
    } else if (isReady(p)) ready++;
  }
  return ready === ws.spec.replicas;
}

async function report(ctx: ReconcileContext, ws: WebSet, phase: 'Ready' | 'Progressing' | 'Failed', extra: JsonObject = {}): Promise<void> {
  const ready = phase === 'Ready' ? 'True' : 'False';
  const prev = (Array.isArray(ws.status['conditions']) ? (ws.status['conditions'] as JsonObject[]) : []).find((c) => c['type'] === 'Ready');
  const status: JsonObject = {
    ...extra,
    phase,
    observedGeneration: ws.metadata.generation,
    conditions: [{ type: 'Ready', status: ready, reason: phase, lastTransitionTime: prev && prev['status'] === ready ? (prev['lastTransitionTime'] as string) : virtualTimestamp(ctx.clock.now()) }],
  };
  if (JSON.stringify(status) !== JSON.stringify(ws.status)) await ctx.client.updateStatus({ ...ws, status });
}

/** Correct: level-triggered, waits for readiness as long as it takes. */
export const webSetCorrect = defineController({
  name: 'web-set',
  for: WEB_SET,
  owns: ['Pod', 'PersistentVolumeClaim'],
  resyncPeriodMs: 5000,
  async reconcile(ctx) {
    const ws = (await ctx.client.tryGet(WEB_SET, ctx.key)) as WebSet | undefined;
    if (!ws || ws.metadata.deletionTimestamp !== undefined) return;
    await report(ctx, ws, (await converge(ctx, ws, true)) ? 'Ready' : 'Progressing');
  },
});

/** Buggy: a readiness deadline taken as permanent failure (Helm's `--wait --timeout`, done wrong). */
export const webSetTimeout = defineController({
  name: 'web-set',
  for: WEB_SET,
  owns: ['Pod', 'PersistentVolumeClaim'],
  resyncPeriodMs: 5000,
  async reconcile(ctx) {
    const ws = (await ctx.client.tryGet(WEB_SET, ctx.key)) as WebSet | undefined;
    if (!ws || ws.metadata.deletionTimestamp !== undefined || ws.status['phase'] === 'Failed') return undefined;
    const ready = await converge(ctx, ws, true);
    if (!ready && ctx.clock.now() - fromVirtualTimestamp(ws.metadata.creationTimestamp) > READY_TIMEOUT_MS) return report(ctx, ws, 'Failed');
    await report(ctx, ws, ready ? 'Ready' : 'Progressing');
    return ready ? undefined : { requeueAfter: READY_TIMEOUT_MS + 1 };
  },
});

/** Buggy: creates its pods once (remembered in status) and never recreates one that disappears. */
export const webSetCreateOnce = defineController({
  name: 'web-set',
  for: WEB_SET,
  owns: ['Pod', 'PersistentVolumeClaim'],
  resyncPeriodMs: 5000,
  async reconcile(ctx) {
    const ws = (await ctx.client.tryGet(WEB_SET, ctx.key)) as WebSet | undefined;
    if (!ws || ws.metadata.deletionTimestamp !== undefined) return;
    const created = ws.status['podsCreated'] === true;
    const ready = await converge(ctx, ws, !created);
    await report(ctx, ws, ready ? 'Ready' : 'Progressing', { podsCreated: true });
  },
});

/** One WebSet under a plan, with the pod and claim lifecycle actors. */
export function webSetScenario(options: { replicas?: number; volume?: boolean } = {}) {
  return (controller: string, faults: FaultPlan, seed = 1): Scenario => ({
    seed,
    controllers: [{ name: controller }],
    environment: [{ name: 'pod-lifecycle', params: { crashBackoffMs: 5000 } }, { name: 'pvc-binding' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: WEB_SET, metadata: { name: 'web', namespace: 'default' }, spec: { replicas: options.replicas ?? 3, ...(options.volume ? { volume: true } : {}) } } }],
    faults,
    options: { faultWindowMs: 20_000, settleMs: 20_000 },
  });
}

/** Healthy at the end: the WebSet says Ready and every one of its pods is Ready. */
export function judgeWebSet(run: RunRecord): true | string {
  const ws = run.finalObjects.find((o) => o.kind === WEB_SET);
  if (!ws) return 'the WebSet is gone';
  const want = Number(ws.spec['replicas']);
  const pods = run.finalObjects.filter((o) => o.kind === 'Pod' && o.metadata.ownerReferences.some((r) => r.uid === ws.metadata.uid));
  const ready = pods.filter(isReady).length;
  if (ready < want) return `${ready}/${want} pods of WebSet ${keyOf(ws.metadata)} are Ready (${pods.length} exist)`;
  if (ws.status['phase'] !== 'Ready') return `WebSet ${keyOf(ws.metadata)} reports phase ${String(ws.status['phase'])} although its pods are Ready`;
  return true;
}
