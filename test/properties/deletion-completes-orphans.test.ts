import { describe, expect, it } from 'vitest';
import { deletionCompletes } from '../../properties/deletion-completes.js';
import { defineController, type ControllerDefinition, type DeleteOptions, type Scenario } from '../../src/index.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * A controller that stops a Render's Job when the Render is paused. batch/v1 Jobs orphan their
 * Pods when a delete names no propagation policy (kube-apiserver's default, with a warning), so
 * the plain delete leaves the Job's running Pod behind: fluxcd/pkg#670, kubeflow/katib#632.
 */
function renderController(options: DeleteOptions): ControllerDefinition {
  return defineController({
    name: 'render',
    for: 'Render',
    owns: ['Job'],
    async reconcile(ctx) {
      const r = await ctx.client.tryGet<{ paused: boolean }>('Render', ctx.key);
      if (!r) return;
      const name = `${r.metadata.name}-job`;
      const j = await ctx.client.tryGet('Job', { namespace: r.metadata.namespace, name });
      if (r.spec.paused) {
        if (j) await ctx.client.delete('Job', { namespace: r.metadata.namespace, name }, options);
        return;
      }
      if (!j) {
        await ctx.client.create({
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name, namespace: r.metadata.namespace, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Render', name: r.metadata.name, uid: r.metadata.uid, controller: true, blockOwnerDeletion: true }] },
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'render', image: 'render:1' }] } } },
        });
      }
    },
  });
}

const scenario: Scenario = {
  seed: 1,
  controllers: [{ name: 'render' }],
  environment: [{ name: 'pod-lifecycle', params: { scheduleMs: 0, startMs: 200, readyMs: 100 } }, { name: 'job', params: { durationMs: 60_000 } }],
  initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { apiVersion: 'example.com/v1', kind: 'Render', metadata: { name: 'sales', namespace: 'default' }, spec: { paused: false } } },
    { at: 3_000, type: 'patch', kind: 'Render', key: 'default/sales', patch: { spec: { paused: true } } },
  ],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 5_000, settleMs: 5_000 },
};

describe('deletion-completes: dependents orphaned by a delete that names no policy', () => {
  it('a Job deleted without a propagationPolicy, its Pod left running, is a finding that quotes the API server', async () => {
    const { verdict, run } = await judgeScenario(deletionCompletes(), scenario, { controllers: [renderController({})] });
    const v = expectFailure(verdict);
    const pod = run.finalObjects.find((o) => o.kind === 'Pod')!;
    expect(pod.metadata.ownerReferences).toEqual([]);
    expect(v.summary).toBe(`orphaned dependents: Job default/sales-job deleted without a propagationPolicy left Pod ${pod.metadata.namespace}/${pod.metadata.name} without an owner`);
    expect(v.explanation).toContain('child pods are preserved by default when jobs are deleted');
    expect(v.explanation).toMatch(/render\/0 deleted Job default\/sales-job at t=3\.\d+ s without a propagationPolicy/);
  });

  it('the same delete with Background takes the Pod too, and holds', async () => {
    const { verdict, run } = await judgeScenario(deletionCompletes(), scenario, { controllers: [renderController({ propagationPolicy: 'Background' })] });
    expectQuiet(verdict);
    expect(run.finalObjects.filter((o) => o.kind === 'Pod')).toEqual([]);
  });

  it('Orphan named on purpose is the design, not a finding', async () => {
    const { verdict } = await judgeScenario(deletionCompletes(), scenario, { controllers: [renderController({ propagationPolicy: 'Orphan' })] });
    expectQuiet(verdict);
  });
});

/**
 * A provisioner that makes a PersistentVolume (cluster-scoped) for each VolumeRequest
 * (namespaced). An ownerReference from the volume to the request is never resolved by the garbage
 * collector (OwnerRefInvalidNamespace): the volume outlives its request. The correct one keeps a
 * finalizer on the request and deletes the volume itself, found by its label.
 */
const FINALIZER = 'example.com/volume';
function provisioner(by: 'owner-reference' | 'finalizer'): ControllerDefinition {
  return defineController({
    name: 'provisioner',
    for: 'VolumeRequest',
    async reconcile(ctx) {
      const r = await ctx.client.tryGet('VolumeRequest', ctx.key, { live: true });
      if (!r) return;
      const pv = `pv-${r.metadata.uid.slice(-8)}`;
      if (r.metadata.deletionTimestamp !== undefined) {
        if (!r.metadata.finalizers.includes(FINALIZER)) return;
        for (const v of await ctx.client.list('PersistentVolume', { labelSelector: { matchLabels: { 'example.com/request': r.metadata.uid } } })) {
          await ctx.client.delete('PersistentVolume', { name: v.metadata.name }, { propagationPolicy: 'Background' });
        }
        await ctx.client.update({ ...r, metadata: { ...r.metadata, finalizers: r.metadata.finalizers.filter((f) => f !== FINALIZER) } });
        return;
      }
      if (by === 'finalizer' && !r.metadata.finalizers.includes(FINALIZER)) {
        await ctx.client.update({ ...r, metadata: { ...r.metadata, finalizers: [...r.metadata.finalizers, FINALIZER] } });
        return;
      }
      if (await ctx.client.tryGet('PersistentVolume', { name: pv }, { live: true })) return;
      await ctx.client.create({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: {
          name: pv,
          labels: { 'example.com/request': r.metadata.uid },
          ...(by === 'owner-reference' ? { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'VolumeRequest', name: r.metadata.name, uid: r.metadata.uid }] } : {}),
        },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${pv}` } },
      });
    },
  });
}

const volumes: Scenario = {
  seed: 1,
  controllers: [{ name: 'provisioner' }],
  initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { apiVersion: 'example.com/v1', kind: 'VolumeRequest', metadata: { name: 'data', namespace: 'default' }, spec: { size: '1Gi' } } },
    { at: 2_000, type: 'delete', kind: 'VolumeRequest', key: 'default/data' },
  ],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 4_000, settleMs: 4_000 },
};

describe('deletion-completes: a cluster-scoped object owned by a namespaced one', () => {
  it('is never collected, and that is a finding', async () => {
    const { verdict } = await judgeScenario(deletionCompletes(), volumes, { controllers: [provisioner('owner-reference')] });
    const v = expectFailure(verdict);
    expect(v.summary).toMatch(/^never collected: cluster-scoped PersistentVolume pv-\w+ names deleted VolumeRequest default\/data as its owner$/);
    expect(v.explanation).toContain('OwnerRefInvalidNamespace');
  });

  it('a finalizer on the request that deletes the volume holds', async () => {
    const { verdict, run } = await judgeScenario(deletionCompletes(), volumes, { controllers: [provisioner('finalizer')] });
    expectQuiet(verdict);
    expect(run.finalObjects.filter((o) => o.kind === 'PersistentVolume')).toEqual([]);
  });
});
