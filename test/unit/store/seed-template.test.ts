import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/store/errors.js';
import { seededNamespaceTemplates, type ObjectStore, type WatchEvent } from '../../../src/store/store.js';
import { makeStore, thrown, widget } from './helpers.js';

/*
 * A world's seeding (the cluster's Namespace objects, before the run) reuses what `create` made for
 * an earlier store of the process from the same name, uid and time: the store it leaves must be
 * the one `create` leaves, in every way a run can see (objects, versions, sizes, watch history,
 * lagging snapshots, uids handed out, NamespaceLifecycle), and no two stores may share an object.
 */

/** Everything of a store a run can observe about its Namespaces, and what the next writes give. */
function observed(store: ObjectStore): unknown {
  const rv = store.currentResourceVersion();
  const events: WatchEvent[] = [];
  const w = store.watch('Namespace', 0, (ev) => events.push(ev));
  w.stop();
  const objects = store.peekAll('Namespace');
  const snapshots = Array.from({ length: rv + 1 }, (_, i) => store.snapshotAt('Namespace', i));
  const sizes = objects.map((o) => store.storedSizeOf('Namespace', o.metadata.name));
  const listed = store.list('Namespace');
  // what comes next: a create into a seeded namespace (its uid and version), one into no namespace (404), a namespace deleted
  const next = store.create('user', widget('w', undefined, { namespace: objects[0]!.metadata.name }));
  const refused = thrown(() => store.create('user', widget('w', undefined, { namespace: 'never-seeded' })));
  const deleted = store.delete('user', 'Namespace', { name: objects[objects.length - 1]!.metadata.name });
  return JSON.parse(JSON.stringify({ rv, events, objects, snapshots, sizes, listed, next, refused: refused instanceof NotFoundError ? (refused as Error).message : String(refused), deleted, after: store.peekAll('Namespace') }));
}

describe('seeded Namespaces: a second store of the process is the store create makes', () => {
  it('reuses what create made (same name, uid and time) and leaves the same observable store', () => {
    const names = ['apps-seed-a', 'default', 'kube-system'];
    const before = seededNamespaceTemplates();
    const first = makeStore({ uidPrefix: 'seed-template-1' });
    first.store.seedNamespaces(names);
    // a prefix no store used before: create made all three, and they are kept
    expect(seededNamespaceTemplates().reused).toBe(before.reused);
    const second = makeStore({ uidPrefix: 'seed-template-1' });
    second.store.seedNamespaces(names);
    expect(seededNamespaceTemplates().reused).toBe(before.reused + 3);
    // no write record either way
    expect(first.take()).toEqual([]);
    expect(second.take()).toEqual([]);
    expect(observed(second.store)).toEqual(observed(first.store));
  });

  it('no two stores share an object: a write to one store never shows in the next seeding', () => {
    const names = ['default', 'team-b'];
    const a = makeStore({ uidPrefix: 'seed-template-2' });
    a.store.seedNamespaces(names);
    const b = makeStore({ uidPrefix: 'seed-template-2' });
    // one write before the seeding: b's Namespaces get other resourceVersions than c's will
    b.store.create('user', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } });
    b.store.seedNamespaces(names);
    const bSeeded = b.store.peekAll('Namespace');
    expect(bSeeded.map((o) => o.metadata.resourceVersion)).toEqual(['2', '3']);
    b.store.patch('user', 'Namespace', { name: 'team-b' }, { metadata: { labels: { edited: 'yes' } } });
    // a caller's copy of what it read, changed in place
    b.store.get('Namespace', { name: 'default' }).metadata.labels['mutated'] = 'yes';
    const c = makeStore({ uidPrefix: 'seed-template-2' });
    c.store.seedNamespaces(names);
    const fresh = makeStore({ uidPrefix: 'seed-template-2' });
    expect(c.store.peekAll('Namespace')).toEqual(a.store.peekAll('Namespace'));
    expect(c.store.peekAll('Namespace')[1]!.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-b' });
    expect(c.store.peekAll('Namespace')[0]).not.toBe(a.store.peekAll('Namespace')[0]);
    expect(c.store.peekAll('Namespace')[0]).not.toBe(bSeeded[0]);
    // c's seeding left b's objects as they were
    expect(bSeeded.map((o) => o.metadata.resourceVersion)).toEqual(['2', '3']);
    expect(b.store.peek('Namespace', 'default')!.metadata.resourceVersion).toBe('2');
    fresh.store.seedNamespaces(names);
    expect(observed(fresh.store)).toEqual(observed(a.store));
  });

  it('another time or another incarnation of the name is not reused: create makes it', () => {
    const a = makeStore({ uidPrefix: 'seed-template-3' });
    a.store.seedNamespaces(['default']);
    // later on the virtual clock: another creationTimestamp
    const later = makeStore({ uidPrefix: 'seed-template-3' });
    later.clock.advanceTo(90_000);
    const reused = seededNamespaceTemplates().reused;
    later.store.seedNamespaces(['default']);
    expect(seededNamespaceTemplates().reused).toBe(reused);
    expect(later.store.peekAll('Namespace')[0]!.metadata.creationTimestamp).not.toBe(a.store.peekAll('Namespace')[0]!.metadata.creationTimestamp);
    // a name created and deleted before: its second incarnation has another uid
    const again = makeStore({ uidPrefix: 'seed-template-3' });
    again.store.create('user', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    again.store.delete('user', 'Namespace', { name: 'default' });
    expect(again.store.peek('Namespace', 'default')).toBeUndefined();
    again.store.seedNamespaces(['default']);
    const seeded = again.store.peekAll('Namespace');
    expect(seeded.map((o) => o.metadata.uid)).not.toContain(a.store.peekAll('Namespace')[0]!.metadata.uid);
  });

  it('an invalid name is refused as create refuses it, every time', () => {
    for (let i = 0; i < 2; i++) {
      const { store } = makeStore({ uidPrefix: 'seed-template-4' });
      expect(() => store.seedNamespaces(['Not_A_Name'])).toThrow(/Not_A_Name/);
    }
  });
});
