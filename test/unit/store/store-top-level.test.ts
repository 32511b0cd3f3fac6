import { describe, expect, it } from 'vitest';
import { makeStore } from './helpers.js';

/**
 * Objects keep every top-level field (SPEC §2.1, issue 11 item 6): ConfigMap/Secret `data`,
 * `binaryData`, `type`, `immutable`, RBAC `rules`/`subjects`/`roleRef` and any other, through
 * create, update and patch; a Secret's `stringData` is merged into `data` (base64) on write.
 */
const CM = { namespace: 'default', name: 'app' };

describe('ObjectStore keeps every top-level field', () => {
  it('create keeps ConfigMap data, binaryData and immutable, and reads return them', () => {
    const { store } = makeStore();
    store.create('user', { apiVersion: 'v1', kind: 'ConfigMap', metadata: CM, data: { 'app.conf': 'x=1' }, binaryData: { blob: 'AAE=' } });
    const got = store.get('ConfigMap', CM);
    expect(got.data).toEqual({ 'app.conf': 'x=1' });
    expect(got.binaryData).toEqual({ blob: 'AAE=' });
    expect(got.spec).toEqual({});
    expect(store.list('ConfigMap').items[0]!.data).toEqual({ 'app.conf': 'x=1' });
  });

  it('update replaces the content (every field but status and server metadata) and bumps generation', () => {
    const { store, take } = makeStore();
    const cm = store.create('user', { kind: 'ConfigMap', metadata: CM, data: { a: '1' } });
    take();
    const next = store.update('user', { ...cm, data: { a: '2', b: '3' } });
    expect(next.data).toEqual({ a: '2', b: '3' });
    expect(next.metadata.generation).toBe(2);
    expect(take()[0]!.changed).toEqual(['data.a', 'data.b']);
    // a write without the field removes it, as a PUT does
    const { data: _d, ...without } = next;
    expect(store.update('user', without).data).toBeUndefined();
  });

  it('a no-op update of a ConfigMap is a no-op (no new resourceVersion)', () => {
    const { store, take } = makeStore();
    const cm = store.create('user', { kind: 'ConfigMap', metadata: CM, data: { a: '1' } });
    take();
    expect(store.update('user', { ...cm }).metadata.resourceVersion).toBe(cm.metadata.resourceVersion);
    expect(take()[0]!.noop).toBe(true);
  });

  it('merge patch changes one data entry and keeps the rest', () => {
    const { store } = makeStore();
    store.create('user', { kind: 'ConfigMap', metadata: CM, data: { a: '1', b: '2' } });
    expect(store.patch('user', 'ConfigMap', CM, { data: { a: '9', b: null } }).data).toEqual({ a: '9' });
  });

  it('status writes never touch the content; main-resource writes never touch status', () => {
    const { store } = makeStore();
    const o = store.create('user', { kind: 'Widget', metadata: CM, spec: { n: 1 }, extra: { keep: true } });
    const s = store.updateStatus('ctl', { ...o, extra: { keep: false }, status: { ready: true } });
    expect(s['extra']).toEqual({ keep: true });
    expect(s.metadata.generation).toBe(1);
    const u = store.update('user', { ...s, status: { ready: false } });
    expect(u.status).toEqual({ ready: true });
  });

  it('a Secret keeps type and data, and stringData is merged into data base64-encoded (and never stored)', () => {
    const { store } = makeStore();
    const s = store.create('user', { kind: 'Secret', metadata: CM, type: 'kubernetes.io/basic-auth', data: { username: btoa('admin') }, stringData: { password: 'pässword' } });
    expect(s.type).toBe('kubernetes.io/basic-auth');
    expect(s.data).toEqual({ username: 'YWRtaW4=', password: 'cMOkc3N3b3Jk' });
    expect(s).not.toHaveProperty('stringData');
    const u = store.update('user', { ...s, stringData: { username: 'root' } });
    expect(u.data).toEqual({ username: 'cm9vdA==', password: 'cMOkc3N3b3Jk' });
    expect(u).not.toHaveProperty('stringData');
    expect(store.patch('user', 'Secret', CM, { stringData: { token: 't' } }).data).toMatchObject({ token: 'dA==' });
  });

  it('RBAC kinds keep rules, subjects and roleRef', () => {
    const { store } = makeStore();
    const rules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }];
    store.create('ctl', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { namespace: 'team-a', name: 'dev' }, rules });
    store.create('ctl', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { namespace: 'team-a', name: 'dev' },
      subjects: [{ kind: 'Group', name: 'team-a', apiGroup: 'rbac.authorization.k8s.io' }],
      roleRef: { kind: 'Role', name: 'dev', apiGroup: 'rbac.authorization.k8s.io' },
    });
    expect(store.get('Role', { namespace: 'team-a', name: 'dev' }).rules).toEqual(rules);
    const rb = store.get('RoleBinding', { namespace: 'team-a', name: 'dev' });
    expect(rb.subjects).toHaveLength(1);
    expect(rb.roleRef).toMatchObject({ kind: 'Role', name: 'dev' });
  });

  it('watch events and snapshots carry the top-level fields', () => {
    const { store } = makeStore();
    const seen: unknown[] = [];
    store.watch('ConfigMap', 0, (ev) => seen.push(ev.object.data));
    store.create('user', { kind: 'ConfigMap', metadata: CM, data: { a: '1' } });
    store.patch('user', 'ConfigMap', CM, { data: { a: '2' } });
    expect(seen).toEqual([{ a: '1' }, { a: '2' }]);
    expect(store.snapshotAt('ConfigMap', 1)![0]!.data).toEqual({ a: '1' });
  });
});
