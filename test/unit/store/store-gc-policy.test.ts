import { describe, expect, it } from 'vitest';
import type { NewObject, StoredObject } from '../../../src/store/object.js';
import { makeStore, ref } from './helpers.js';

/**
 * The propagation policy of a DELETE that names none is the kind's (kube-apiserver's
 * `DefaultGarbageCollectionPolicy`): batch/v1 Jobs and v1 ReplicationControllers orphan their
 * dependents, for backward compatibility; kubectl and the garbage collector always name one.
 */
const job = (name: string): NewObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'default' },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
});
const podOf = (owner: StoredObject, name: string): NewObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: owner.metadata.name, uid: owner.metadata.uid, controller: true }] },
  spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
});

describe('the default propagation policy of a delete, by kind', () => {
  it('a Job deleted without a policy orphans its Pods, and the write names them', () => {
    const { store, take } = makeStore();
    const j = store.create('user', job('render'));
    store.create('environment:job', podOf(j, 'render-abc'));
    take();
    store.delete('controller:reports/0', 'Job', ref('render'));
    const pod = store.peek('Pod', 'default/render-abc');
    expect(pod?.metadata.ownerReferences).toEqual([]);
    expect(take()[0]).toMatchObject({ verb: 'delete', kind: 'Job', removed: true, orphaned: ['Pod default/render-abc'] });
  });

  it('a Job deleted with Background (or by a user: kubectl names Background) takes its Pods, and the write names no orphans', () => {
    const { store, take } = makeStore();
    const j = store.create('user', job('render'));
    store.create('environment:job', podOf(j, 'render-abc'));
    take();
    store.delete('controller:reports/0', 'Job', ref('render'), { propagationPolicy: 'Background' });
    expect(store.peek('Pod', 'default/render-abc')).toBeUndefined();
    expect(take()[0]).not.toHaveProperty('orphaned');
  });

  it('a Job the garbage collector deletes (its owner went) takes its Pods: the collector names Background', () => {
    const { store } = makeStore();
    const owner = store.create('user', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner', namespace: 'default' } });
    const j = store.create('user', { ...job('render'), metadata: { name: 'render', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] } });
    store.create('environment:job', podOf(j, 'render-abc'));
    store.delete('user', 'ConfigMap', ref('owner'), { propagationPolicy: 'Background' });
    expect(store.peek('Job', 'default/render')).toBeUndefined();
    expect(store.peek('Pod', 'default/render-abc')).toBeUndefined();
  });

  it('a ReplicaSet deleted without a policy still takes its Pods (apps/v1 collects in the background)', () => {
    const { store } = makeStore();
    const rs = store.create('user', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } });
    store.create('environment:replicaset', { ...podOf(rs, 'web-1'), metadata: { name: 'web-1', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true }] } });
    store.delete('controller:x/0', 'ReplicaSet', ref('web'));
    expect(store.peek('Pod', 'default/web-1')).toBeUndefined();
  });
});

describe('a cluster-scoped dependent of a namespaced owner', () => {
  it('is left by the collector when the owner goes (kube-controller-manager cannot resolve the reference: OwnerRefInvalidNamespace)', () => {
    const { store } = makeStore();
    const claim = store.create('user', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'claim', namespace: 'default' } });
    store.create('controller:provisioner/0', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-1', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'claim', uid: claim.metadata.uid }] },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv-1' } },
    });
    store.delete('user', 'ConfigMap', ref('claim'), { propagationPolicy: 'Background' });
    expect(store.peek('PersistentVolume', 'pv-1')).toBeDefined();
  });
});
