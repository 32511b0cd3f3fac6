import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/store/errors.js';
import { keyOf } from '../../../src/store/object.js';
import { makeStore, thrown, widget } from './helpers.js';

/*
 * Realism gaps closed in round 45: lists in key order (etcd ranges over keys), and
 * NamespaceLifecycle's 404 for a namespace that has no Namespace object once the world seeded them.
 */

const keys = (items: { metadata: { namespace?: string; name: string } }[]) => items.map((o) => keyOf(o.metadata));

describe('lists come in key order (namespace, then name), as etcd ranges over keys', () => {
  it('lists by namespace then name whatever the creation order, also after a delete and recreate', () => {
    const { store } = makeStore();
    store.create('user', widget('web-2', undefined, { namespace: 'prod' }));
    store.create('user', widget('web-1', undefined, { namespace: 'prod' }));
    store.create('user', widget('db', undefined, { namespace: 'dev' }));
    store.create('user', widget('a', undefined, { namespace: 'prod-eu' }));
    expect(keys(store.list('Widget').items)).toEqual(['dev/db', 'prod-eu/a', 'prod/web-1', 'prod/web-2']);
    store.delete('user', 'Widget', { namespace: 'dev', name: 'db' });
    store.create('user', widget('zz', undefined, { namespace: 'dev' }));
    store.create('user', widget('db', undefined, { namespace: 'dev' }));
    expect(keys(store.list('Widget').items)).toEqual(['dev/db', 'dev/zz', 'prod-eu/a', 'prod/web-1', 'prod/web-2']);
    expect(keys(store.list('Widget', { namespace: 'prod' }).items)).toEqual(['prod/web-1', 'prod/web-2']);
    // an update keeps the order
    store.patch('user', 'Widget', { namespace: 'dev', name: 'db' }, { spec: { replicas: 3 } });
    expect(keys(store.peekAll('Widget'))).toEqual(['dev/db', 'dev/zz', 'prod-eu/a', 'prod/web-1', 'prod/web-2']);
  });

  it('a cluster-scoped kind lists by name', () => {
    const { store } = makeStore();
    for (const name of ['viewer', 'admin', 'edit']) store.create('user', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name } });
    expect(keys(store.list('ClusterRole').items)).toEqual(['admin', 'edit', 'viewer']);
  });

  it("a lagging replica's list (snapshotAt) is in key order too, an object deleted since back in its place", () => {
    const { store } = makeStore();
    store.create('user', widget('c'));
    store.create('user', widget('a'));
    const rv = store.currentResourceVersion();
    store.delete('user', 'Widget', { namespace: 'default', name: 'a' });
    store.create('user', widget('b'));
    expect(keys(store.snapshotAt('Widget', rv)!)).toEqual(['default/a', 'default/c']);
  });
});

describe('H-H: NamespaceLifecycle once the world seeded its Namespace objects', () => {
  it('a bare store takes any namespace (unit tests of the store create into default without one)', () => {
    const { store } = makeStore();
    expect(store.create('user', widget('w', undefined, { namespace: 'nowhere' })).metadata.namespace).toBe('nowhere');
  });

  it('refuses a create into a namespace without a Namespace object with 404 namespaces "x" not found, takes it once the Namespace exists', () => {
    const { store, take } = makeStore();
    store.seedNamespaces(['default', 'kube-system']);
    // seeded objects exist before the run: no write record
    expect(take()).toEqual([]);
    expect(keys(store.list('Namespace').items)).toEqual(['default', 'kube-system']);
    expect(store.create('user', widget('w')).metadata.namespace).toBe('default');
    const err = thrown(() => store.create('controller:c/0', widget('w', undefined, { namespace: 'apps-web' })));
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe('namespaces "apps-web" not found');
    expect(take().map((w) => `${w.verb} ${w.kind} ${w.key} ${w.error ?? ''}`)).toEqual(['create Widget default/w ', 'create Widget apps-web/w NotFound']);
    store.create('controller:c/0', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps-web' } });
    expect(store.create('controller:c/0', widget('w', undefined, { namespace: 'apps-web' })).metadata.namespace).toBe('apps-web');
    // cluster-scoped objects need no namespace; seeding again keeps what exists
    store.create('user', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', namespace: 'nowhere' } });
    store.seedNamespaces(['default', 'apps-web']);
    expect(keys(store.list('Namespace').items)).toEqual(['apps-web', 'default', 'kube-system']);
  });
});
