import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/store/object.js';
import { makeStore } from './helpers.js';

/*
 * Where the store models kube-apiserver's and kube-controller-manager's behaviour beyond the
 * shapes it relies on (red team rt44): status of a kind without the status subresource, the
 * scope of built-in kinds, and how the garbage collector resolves owners.
 */

/** A store whose garbage collector runs when `drain` is called (the world defers it). */
function deferred() {
  let queue: (() => void)[] = [];
  const f = makeStore({ defer: (fn) => queue.push(fn) });
  const drain = (): void => {
    while (queue.length > 0) {
      const q = queue;
      queue = [];
      q.forEach((fn) => fn());
    }
  };
  return { ...f, drain };
}

function crd(kind: string, plural: string, options: { status: boolean; scope?: 'Namespaced' | 'Cluster' }) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: options.scope ?? 'Namespaced',
      names: { kind, plural },
      versions: [{ name: 'v1', served: true, storage: true, ...(options.status ? { subresources: { status: {} } } : {}) }],
    },
  };
}

describe('H-G: a kind without the status subresource', () => {
  it('stores status written through the main resource (update and patch) and counts it toward generation', () => {
    const { store } = makeStore();
    store.create('user', crd('Widget', 'widgets', { status: false }));
    const w = store.create('user', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'a' }, spec: { size: 1 } });
    const u = store.update('c', { ...w, status: { size: 1 } as JsonObject });
    expect(u.status).toEqual({ size: 1 });
    expect(u.metadata.generation).toBe(2);
    const p = store.patch('c', 'Widget', { namespace: 'a', name: 'w' }, { status: { observedGeneration: 2 } });
    expect(p.status).toEqual({ observedGeneration: 2, size: 1 });
    expect(p.metadata.generation).toBe(3);
  });

  it("refuses a controller's write to /status of such a kind (404), as kube-apiserver serves no /status for it", () => {
    const { store } = makeStore();
    store.create('user', crd('Widget', 'widgets', { status: false }));
    const w = store.create('user', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'a' }, spec: { size: 1 } });
    expect(() => store.updateStatus('controller:x/0', { ...w, status: { size: 1 } as JsonObject })).toThrow(/could not find the requested resource.*no status subresource/);
    expect(() => store.patch('controller:x/0', 'Widget', { namespace: 'a', name: 'w' }, { status: { size: 1 } }, { subresource: 'status' })).toThrow(/no status subresource/);
  });

  it('keeps ignoring status through the main resource of a kind with the status subresource', () => {
    const { store } = makeStore();
    store.create('user', crd('Widget', 'widgets', { status: true }));
    const w = store.create('user', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'a' }, spec: { size: 1 } });
    const p = store.patch('c', 'Widget', { namespace: 'a', name: 'w' }, { status: { size: 1 } });
    expect(p.status).toEqual({});
    expect(p.metadata.resourceVersion).toBe(w.metadata.resourceVersion);
    expect(store.updateStatus('controller:x/0', { ...p, status: { size: 1 } as JsonObject }).status).toEqual({ size: 1 });
  });

  it('takes the statusSubresource option of a write (the API server knows the resource)', () => {
    const { store } = makeStore();
    const w = store.create('user', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'a' }, spec: {} });
    const u = store.update('c', { ...w, status: { ready: true } as JsonObject }, { statusSubresource: false });
    expect(u.status).toEqual({ ready: true });
    expect(u.metadata.generation).toBe(2);
  });
});

describe('H-I/H-J: the scope of built-in kinds', () => {
  it('stores a cluster-scoped object sent with a namespace without one (kube-apiserver clears it), and finds it by either ref', () => {
    const { store } = makeStore();
    const r = store.create('c', { kind: 'ClusterRole', metadata: { name: 'reader', namespace: 'a' } });
    expect(r.metadata.namespace).toBeUndefined();
    expect(store.peek('ClusterRole', 'reader')).toBeDefined();
    expect(store.get('ClusterRole', { namespace: 'a', name: 'reader' }).metadata.name).toBe('reader');
    expect(store.list('ClusterRole', { namespace: 'a' }).items).toHaveLength(1);
    store.delete('c', 'ClusterRole', { namespace: 'a', name: 'reader' });
    expect(store.peek('ClusterRole', 'reader')).toBeUndefined();
  });

  it('refuses a namespaced built-in object sent without a namespace, saying what to do', () => {
    const { store } = makeStore();
    expect(() => store.create('c', { kind: 'ConfigMap', metadata: { name: 'settings' } })).toThrow(/metadata\.namespace: Required value.*Set metadata\.namespace/);
  });

  it('keeps the rule of custom kinds (no namespace: cluster-scoped) unless their CRD says their scope', () => {
    const { store } = makeStore();
    expect(store.create('c', { kind: 'Thing', metadata: { name: 't' }, spec: {} }).metadata.namespace).toBeUndefined();
    store.create('user', crd('Widget', 'widgets', { status: true }));
    expect(() => store.create('c', { kind: 'Widget', metadata: { name: 'w' }, spec: {} })).toThrow(/namespaced/);
    store.create('user', crd('Tenant', 'tenants', { status: true, scope: 'Cluster' }));
    expect(store.create('c', { kind: 'Tenant', metadata: { name: 't', namespace: 'a' }, spec: {} }).metadata.namespace).toBeUndefined();
  });
});

describe('H-A: garbage collection resolves owners as kube-controller-manager does', () => {
  function world() {
    const f = deferred();
    const owner = f.store.create('user', { apiVersion: 'example.com/v1', kind: 'App', metadata: { name: 'web', namespace: 'a' }, spec: {} });
    const ref = { apiVersion: 'example.com/v1', kind: 'App', name: 'web', uid: owner.metadata.uid, controller: true };
    return { ...f, ref };
  }

  it('collects a dependent whose owner is in another namespace (cross-namespace owner references are disallowed)', () => {
    const { store, drain, ref } = world();
    store.create('c', { kind: 'ConfigMap', metadata: { name: 'child', namespace: 'b', ownerReferences: [ref] } });
    expect(store.peek('ConfigMap', 'b/child')).toBeDefined(); // until the collector runs
    drain();
    expect(store.peek('ConfigMap', 'b/child')).toBeUndefined();
  });

  it('collects a dependent whose owner uid never existed, or whose owner name is wrong', () => {
    const { store, drain, ref } = world();
    store.create('c', { kind: 'ConfigMap', metadata: { name: 'made-up', namespace: 'a', ownerReferences: [{ ...ref, uid: 'never' }] } });
    store.create('c', { kind: 'ConfigMap', metadata: { name: 'wrong-name', namespace: 'a', ownerReferences: [{ ...ref, name: 'other' }] } });
    drain();
    expect(store.peek('ConfigMap', 'a/made-up')).toBeUndefined();
    expect(store.peek('ConfigMap', 'a/wrong-name')).toBeUndefined();
  });

  it('keeps a dependent with its owner in its namespace, and drops only the absent reference of one that has another owner', () => {
    const { store, drain, ref } = world();
    store.create('c', { kind: 'ConfigMap', metadata: { name: 'ok', namespace: 'a', ownerReferences: [ref] } });
    store.create('c', { kind: 'ConfigMap', metadata: { name: 'two', namespace: 'a', ownerReferences: [ref, { ...ref, name: 'gone', uid: 'never', controller: false }] } });
    drain();
    expect(store.peek('ConfigMap', 'a/ok')).toBeDefined();
    expect(store.peek('ConfigMap', 'a/two')?.metadata.ownerReferences.map((r) => r.uid)).toEqual([ref.uid]);
  });

  it('keeps a cluster-scoped dependent of a namespaced owner (unresolvable), and one whose owner kind is unknown', () => {
    const { store, drain, ref } = world();
    const ns = store.create('user', { kind: 'Namespace', metadata: { name: 'a' } });
    store.create('c', { kind: 'ClusterRole', metadata: { name: 'r', ownerReferences: [ref] } });
    store.create('c', { kind: 'ConfigMap', metadata: { name: 'x', namespace: 'a', ownerReferences: [{ ...ref, kind: 'Nothing', uid: 'u-x' }] } });
    // a namespaced dependent of a cluster-scoped owner is resolved by name
    store.create('c', { kind: 'ConfigMap', metadata: { name: 'y', namespace: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'a', uid: ns.metadata.uid }] } });
    drain();
    expect(store.peek('ClusterRole', 'r')).toBeDefined();
    expect(store.peek('ConfigMap', 'a/x')).toBeDefined();
    expect(store.peek('ConfigMap', 'a/y')).toBeDefined();
  });
});

describe('H-B/H-C/H-D/H-E: what kube-apiserver validates', () => {
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['a name with upper case and "_"', { name: 'Web_Config' }, /RFC 1123 subdomain/],
    ['a name of 254 characters', { name: 'x'.repeat(254) }, /no more than 253 characters/],
    ['a namespace with upper case', { name: 'ok', namespace: 'Apps' }, /metadata\.namespace: .*RFC 1123 label/],
    ['a label value with ":" and "/"', { name: 'l1', labels: { image: 'registry.example.com/web:1.2' } }, /metadata\.labels: Invalid value: "registry\.example\.com\/web:1\.2": a valid label must be/],
    ['a label value of 64 characters', { name: 'l2', labels: { h: 'a'.repeat(64) } }, /must be no more than 63 characters/],
    ['a label key with a space', { name: 'l3', labels: { 'my app': 'x' } }, /name part must consist/],
    ['a label key with an upper-case prefix', { name: 'l4', labels: { 'Example.com/app': 'x' } }, /prefix part a lowercase RFC 1123 subdomain/],
    ['an annotation key with two "/"', { name: 'a1', annotations: { 'a/b/c': 'x' } }, /metadata\.annotations: .*qualified name/],
    ['annotations over 256 KiB', { name: 'a2', annotations: { big: 'x'.repeat(256 * 1024) } }, /metadata\.annotations: Too long/],
    ['two controller owner references', { name: 'two', ownerReferences: 'two' }, /Only one reference can have Controller set to true/],
    ['a resourceVersion on create', { name: 'rv', resourceVersion: '7' }, /resourceVersion should not be set on objects to be created/],
  ];
  for (const [what, meta, message] of refused) {
    it(`refuses ${what}`, () => {
      const { store } = makeStore();
      const owner = store.create('user', { apiVersion: 'example.com/v1', kind: 'App', metadata: { name: 'web', namespace: 'a' }, spec: {} });
      const ref = { apiVersion: 'example.com/v1', kind: 'App', name: 'web', uid: owner.metadata.uid, controller: true };
      const m = { namespace: 'a', ...meta } as Record<string, unknown>;
      if (m['ownerReferences'] === 'two') m['ownerReferences'] = [ref, { ...ref, name: 'other', uid: 'u2' }];
      expect(() => store.create('c', { kind: 'ConfigMap', metadata: m as never })).toThrow(message);
    });
  }

  it('accepts what kube-apiserver accepts: qualified label keys, empty values, RBAC names with ":", dotted names', () => {
    const { store } = makeStore();
    store.create('c', { kind: 'ConfigMap', metadata: { name: 'web.config-1', namespace: 'a', labels: { 'app.kubernetes.io/name': 'Web_1.2', empty: '' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"a": "b/c:d"}' } } });
    store.create('c', { kind: 'ClusterRole', metadata: { name: 'system:controller:web' } });
    store.create('c', { kind: 'Secret', metadata: { name: 's', namespace: 'a' }, data: { k: btoa('x'.repeat(1000)) } });
  });

  it('refuses a label change through update and patch, and keeps unchanged labels as they are', () => {
    const { store } = makeStore();
    const cm = store.create('c', { kind: 'ConfigMap', metadata: { name: 'x', namespace: 'a', labels: { app: 'web' } } });
    expect(() => store.update('c', { ...cm, metadata: { ...cm.metadata, labels: { app: 'web:1' } } })).toThrow(/a valid label must be/);
    expect(() => store.patch('c', 'ConfigMap', { namespace: 'a', name: 'x' }, { metadata: { labels: { 'a b': 'x' } } })).toThrow(/name part must consist/);
    expect(store.patch('c', 'ConfigMap', { namespace: 'a', name: 'x' }, { data: { k: 'v' } }).metadata.labels).toEqual({ app: 'web' });
  });

  it('refuses a Service name longer than 63 characters or starting with a digit (DNS-1035 label), and a ConfigMap over 1 MiB', () => {
    const { store } = makeStore();
    expect(() => store.create('c', { kind: 'Service', metadata: { name: 's'.repeat(64), namespace: 'a' }, spec: {} })).toThrow(/no more than 63 characters/);
    expect(() => store.create('c', { kind: 'Service', metadata: { name: '1web', namespace: 'a' }, spec: {} })).toThrow(/DNS-1035 label/);
    expect(() => store.create('c', { kind: 'ConfigMap', metadata: { name: 'big', namespace: 'a' }, data: { k: 'x'.repeat(1024 * 1024) } })).toThrow(/Too long: must have at most 1048576 bytes/);
  });

  it('judges the name of a custom kind once its CRD is in the store (a made-up kind keeps the "/" rule)', () => {
    const { store } = makeStore();
    store.create('c', { kind: 'Widget', metadata: { name: 'Web_1', namespace: 'a' }, spec: {} });
    store.create('user', crd('Widget', 'widgets', { status: true }));
    expect(() => store.create('c', { kind: 'Widget', metadata: { name: 'Web_2', namespace: 'a' }, spec: {} })).toThrow(/RFC 1123 subdomain/);
  });

  it('keeps at most 58 characters of a generateName prefix, as kube-apiserver does', () => {
    const { store } = makeStore();
    const o = store.create('c', { kind: 'Service', metadata: { generateName: `${'s'.repeat(70)}-`, namespace: 'a' }, spec: {} });
    expect(o.metadata.name).toHaveLength(63);
  });
});

describe('H-F: custom resources allow no unconditional update', () => {
  it('refuses a controller update of a custom resource without resourceVersion, and takes it with one or for a built-in kind', () => {
    const { store } = makeStore();
    const app = store.create('user', { apiVersion: 'example.com/v1', kind: 'App', metadata: { name: 'web', namespace: 'a' }, spec: {} });
    const cm = store.create('user', { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' } });
    expect(() => store.update('controller:x/0', { apiVersion: 'example.com/v1', kind: 'App', metadata: { name: 'web', namespace: 'a' }, spec: { v: 1 } })).toThrow(/metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
    expect(store.update('controller:x/0', { ...app, spec: { v: 1 } }).spec).toEqual({ v: 1 });
    expect(store.update('controller:x/0', { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' }, data: { k: 'v' } }).metadata.uid).toBe(cm.metadata.uid);
  });

  it("refuses it on the status subresource too (the status strategy embeds the resource's: red team rt48 U-1)", () => {
    const { store } = makeStore();
    const app = store.create('user', { apiVersion: 'example.com/v1', kind: 'App', metadata: { name: 'web', namespace: 'a' }, spec: {} });
    expect(() => store.updateStatus('controller:x/0', { apiVersion: 'example.com/v1', kind: 'App', metadata: { name: 'web', namespace: 'a' }, status: { ready: true } })).toThrow(
      /^App "a\/web": metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update \(a custom resource allows no unconditional update, of its status either/,
    );
    expect(store.get('App', { namespace: 'a', name: 'web' }).status).toEqual({});
    expect(store.updateStatus('controller:x/0', { ...app, status: { ready: true } }).status).toEqual({ ready: true });
    store.create('user', { kind: 'Service', metadata: { name: 's', namespace: 'a' }, spec: {} });
    expect(store.updateStatus('controller:x/0', { kind: 'Service', metadata: { name: 's', namespace: 'a' }, status: { loadBalancer: {} } }).metadata.name).toBe('s');
  });
});

describe('the scope table', () => {
  it('agrees with the served built-in resources (src/kube-rest/builtin-resources.ts)', async () => {
    const { builtinResources } = await import('../../../src/kube-rest/builtin-resources.js');
    const { builtinNamespaced } = await import('../../../src/store/scope.js');
    for (const r of builtinResources) expect([r.kind, builtinNamespaced(r.kind)]).toEqual([r.kind, r.namespaced ?? true]);
  });
});
