// rt46: one test per hole. Each asserts what a real cluster does (or that a correct controller
// passes), and FAILS today. Run from scratch/rt46:
//   nice npx vitest run --config vitest.config.ts --root .
import { describe, expect, it } from 'vitest';
import { check, isStoreError } from '../../src/index.js';
import { ObjectStore } from '../../src/store/store.js';
import { VirtualClock } from '../../src/sim/clock.js';
import { cleanupJobCase, configKeysCase, pvProvisionerCase } from './fixtures/controllers.js';
import type { Story } from '../../src/index.js';
import { properties } from '../../src/index.js';

function world() {
  const clock = new VirtualClock();
  let deferred: (() => void)[] = [];
  const store = new ObjectStore({ clock, defer: (fn) => deferred.push(fn) });
  const drain = () => {
    for (let i = 0; i < 20 && deferred.length; i++) {
      const d = deferred;
      deferred = [];
      d.forEach((f) => f());
    }
  };
  return { store, drain };
}
const podSpec = { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] };
const refusal = (fn: () => unknown): string => {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    return isStoreError(err, 'Invalid') ? 'Invalid' : isStoreError(err, 'NotFound') ? 'NotFound' : `other: ${(err as Error).message}`;
  }
};

describe('FA-1: same-end-state judges a "last known good" child whose primary ended on a spec the API server refuses', () => {
  // config-keys keeps the ConfigMap it last rendered when the current entries are refused (422),
  // as Flux/Argo keep the last applied revision. Which valid spec it last rendered depends on
  // whether it saw an intermediate user update (event loss skipped it), so the end state is
  // path-dependent by design; the fault-free twin's benign variations never skip a user update.
  it('config-keys passes 300 runs, seed 2', async () => {
    const r = await check(configKeysCase.controllers, { ...configKeysCase.options, runs: 300, seed: 2 });
    expect(r.ok ? 'pass' : `${r.property}: ${r.summary}`).toBe('pass');
  });
  it('config-keys passes 300 runs, seed 5 (the ADDED of a valid spec lost, the invalid update 0.3 s later seen first)', async () => {
    const r = await check(configKeysCase.controllers, { ...configKeysCase.options, runs: 300, seed: 5 });
    expect(r.ok ? 'pass' : `${r.property}: ${r.summary}`).toBe('pass');
  });
  it('FA-1b: recovery alone, no fault: invalid -> valid -> invalid keeps the last good render (seed 8)', async () => {
    const r = await check(configKeysCase.controllers, { ...configKeysCase.options, properties: [properties.recovery()], runs: 300, seed: 8 });
    expect(r.ok ? 'pass' : `${r.property}: ${r.summary}`).toBe('pass');
  });
});

describe('M-1 (missed bug, from R-2): a cluster-scoped PV owned by a namespaced request leaks on a real cluster', () => {
  // The twin relies on an ownerReference from the cluster-scoped PV to its namespaced
  // VolumeRequest instead of a finalizer. kube-controller-manager never collects it
  // (OwnerRefInvalidNamespace), so every deleted request leaks its PV; here the GC deletes it.
  it('the owner-ref twin of pv-provisioner fails check', async () => {
    const r = await check(pvProvisionerCase.buggy!, { ...pvProvisionerCase.options, runs: 100, seed: 1 });
    expect(r.ok).toBe(false);
  });
});

describe('R-1: a batch/v1 Job deleted without a propagationPolicy orphans its Pods (OrphanDependents is its default)', () => {
  it('the Pod stays, without its ownerReference to the Job', () => {
    const { store, drain } = world();
    const j = store.create('ctl', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' }, spec: { template: { spec: podSpec } } } as never);
    store.create('env', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'j-abc', namespace: 'default', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: j.metadata.uid, controller: true, blockOwnerDeletion: true }] }, spec: podSpec } as never);
    store.delete('ctl', 'Job', { namespace: 'default', name: 'j' }, {});
    drain();
    const pod = store.peek('Pod', 'default/j-abc');
    expect(pod?.metadata.ownerReferences ?? 'collected').toEqual([]);
  });
  it('so does a v1 ReplicationController', () => {
    const { store, drain } = world();
    const rc = store.create('ctl', { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc', namespace: 'default' }, spec: { replicas: 1, selector: { a: 'b' }, template: { metadata: { labels: { a: 'b' } }, spec: podSpec } } } as never);
    store.create('env', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'rc-abc', namespace: 'default', labels: { a: 'b' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: rc.metadata.uid, controller: true, blockOwnerDeletion: true }] }, spec: podSpec } as never);
    store.delete('ctl', 'ReplicationController', { namespace: 'default', name: 'rc' }, {});
    drain();
    expect(store.peek('Pod', 'default/rc-abc')?.metadata.ownerReferences ?? 'collected').toEqual([]);
  });
});

describe('R-2: a cluster-scoped object with a namespaced owner is never collected (OwnerRefInvalidNamespace)', () => {
  it('a PersistentVolume owned by a namespaced VolumeRequest outlives the request', () => {
    const { store, drain } = world();
    const vr = store.create('user', { apiVersion: 'example.com/v1', kind: 'VolumeRequest', metadata: { name: 'vr', namespace: 'default' }, spec: {} });
    store.create('ctl', { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-vr', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'VolumeRequest', name: 'vr', uid: vr.metadata.uid, controller: true }] }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'd', volumeHandle: 'h' } } } as never);
    drain();
    store.delete('user', 'VolumeRequest', { namespace: 'default', name: 'vr' }, {});
    drain();
    expect(store.peek('PersistentVolume', 'pv-vr') ? 'kept' : 'collected').toBe('kept');
  });
});

describe('R-3: field selectors kube-apiserver serves for built-in kinds are refused', () => {
  it('Pods by spec.nodeName (kubectl drain, kubelet) and status.phase', () => {
    const { store } = world();
    store.create('user', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'default' }, spec: { ...podSpec, nodeName: 'node-1' } } as never);
    store.create('user', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p2', namespace: 'default' }, spec: { ...podSpec, nodeName: 'node-2' } } as never);
    expect(store.list('Pod', { fieldSelector: 'spec.nodeName=node-1' }).items.map((p) => p.metadata.name)).toEqual(['p1']);
    expect(store.list('Pod', { fieldSelector: 'status.phase!=Succeeded' }).items.length).toBe(2);
  });
});

describe('R-6: a Pod is bound through pods/binding; an update or patch that sets spec.nodeName is 422', () => {
  // kube-apiserver's ValidatePodUpdate lets an update change only container images,
  // activeDeadlineSeconds, tolerations (additions), terminationGracePeriodSeconds and scheduling
  // gates: a custom scheduler that "binds" by writing spec.nodeName never binds on a cluster.
  it('a merge patch setting spec.nodeName of a pending Pod is refused', () => {
    const { store } = world();
    store.create('user', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: podSpec } as never);
    expect(refusal(() => store.patch('sched', 'Pod', { namespace: 'default', name: 'p' }, { spec: { nodeName: 'node-1' } }))).toBe('Invalid');
  });
});

describe('R-4: metadata and Event validation kube-apiserver applies', () => {
  it('an Event whose involvedObject is in another namespace is 422 (does not match event.namespace)', () => {
    const { store } = world();
    expect(refusal(() => store.create('ctl', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' }, involvedObject: { kind: 'Widget', name: 'w', namespace: 'team-a' }, reason: 'X', message: 'm', type: 'Normal' } as never))).toBe('Invalid');
  });
  it('a finalizer that is not a qualified name is 422', () => {
    const { store } = world();
    expect(refusal(() => store.create('ctl', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default', finalizers: ['Bad Finalizer!'] }, spec: {} }))).toBe('Invalid');
  });
  it('a ConfigMap has no status subresource (404)', () => {
    const { store } = world();
    const cm = store.create('ctl', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { a: '1' } } as never);
    expect(refusal(() => store.updateStatus('ctl', { ...cm, status: { x: 1 } } as never))).toBe('NotFound');
  });
});

describe('M-2 (missed bug): a Foreground delete the controller livelocks is stuck in the fault-free run, but passes under faults', () => {
  // cleanup-job's owned-job twin: its drop Job is owned by the Database, so the collector deletes it
  // during a Foreground delete and the controller makes it again at once, for ever (scenario
  // m2-cleanup-job-stuck.json: 4,334 Jobs made, the Database stuck with foregroundDeletion). Faults
  // slow the controller down enough for the collector to finish, so faulty runs complete; the
  // fault-free twin of every run is stuck, and nothing judges it.
  it('the owned-job twin fails within 6 runs of a create + Foreground delete story', async () => {
    const db = { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', sizeGi: 10 } };
    const story: Story = { objects: [db], actions: [{ at: 5_000, type: 'delete', kind: 'Database', key: 'default/orders', propagationPolicy: 'Foreground' } as never] };
    const r = await check([...cleanupJobCase.buggy!], { environment: cleanupJobCase.options.environment, story, runs: 6, seed: 1, shrink: false } as never);
    expect(r.ok).toBe(false);
  });
});
