import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { check } from '../../../src/check.js';
import { builtinResources } from '../../../src/kube-rest/builtin-resources.js';
import { defineController } from '../../../src/runtime/define-controller.js';
import { Kernel } from '../../../src/sim/kernel.js';
import { Trace } from '../../../src/sim/trace.js';
import { Seams } from '../../../src/runtime/seams.js';
import { Informer } from '../../../src/runtime/informer.js';
import type { RuntimeEnv } from '../../../src/runtime/env.js';
import { cloneSorted, STRUCT_KINDS } from '../../../src/store/key-order.js';
import type { JsonObject } from '../../../src/store/object.js';
import { ObjectStore } from '../../../src/store/store.js';
import { apiFixture, webAppResource } from '../../conformance/kube-helpers.js';
import { collect, makeStore, ref } from './helpers.js';

/** Every key path of a value, in the order JSON.stringify meets them. */
function keyPaths(v: unknown, at = ''): string[] {
  if (v === null || typeof v !== 'object') return [];
  if (Array.isArray(v)) return v.flatMap((x, i) => keyPaths(x, `${at}[${i}]`));
  return Object.keys(v).flatMap((k) => [`${at}.${k}`, ...keyPaths((v as Record<string, unknown>)[k], `${at}.${k}`)]);
}

/** Whether every object in `v` has its keys in sorted order (integer-like keys, which JavaScript lists first, aside). */
function sortedDeep(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) return v.every(sortedDeep);
  const keys = Object.keys(v).filter((k) => !/^(0|[1-9]\d*)$/.test(k));
  return keys.every((k, i) => i === 0 || keys[i - 1]! < k) && Object.values(v).every(sortedDeep);
}

const unsorted = (name: string) => ({
  kind: 'Gizmo',
  apiVersion: 'example.dev/v1',
  metadata: { namespace: 'default', name, labels: { zeta: '1', alpha: '2' }, annotations: { 'z.dev/b': 'x', 'a.dev/a': 'y' }, finalizers: ['example.dev/f'], ownerReferences: [{ uid: 'u-1', name: 'o', kind: 'Owner', apiVersion: 'v1', controller: true }] },
  spec: { size: 3, image: 'nginx', ports: [{ port: 80, name: 'http' }], nested: { z: 1, a: { y: 2, b: 3 } } },
  status: { phase: 'Ready', conditions: [{ type: 'Ready', status: 'True', reason: 'Ok' }] },
  zone: 'eu',
  data: { b: '1', a: '2' },
});

describe('a custom resource comes back with its keys sorted, as kube-apiserver serves unstructured objects', () => {
  it('create: get, list and the watch event show every level sorted, metadata included; arrays keep their order', () => {
    const { store } = makeStore();
    const w = collect();
    store.watch('Gizmo', undefined, w.fn);
    const made = store.create('user', unsorted('g'));
    for (const o of [made, store.get('Gizmo', ref('g')), store.list('Gizmo').items[0], w.events[0]!.type !== 'BOOKMARK' ? w.events[0]!.object : undefined]) {
      expect(sortedDeep(o), JSON.stringify(o)).toBe(true);
    }
    expect(Object.keys(made)).toEqual(['apiVersion', 'data', 'kind', 'metadata', 'spec', 'status', 'zone']);
    expect(Object.keys(made.metadata)).toEqual(['annotations', 'creationTimestamp', 'finalizers', 'generation', 'labels', 'name', 'namespace', 'ownerReferences', 'resourceVersion', 'uid']);
    expect(JSON.stringify(made.spec)).toBe('{"image":"nginx","nested":{"a":{"b":3,"y":2},"z":1},"ports":[{"name":"http","port":80}],"size":3}');
    expect(made.metadata.finalizers).toEqual(['example.dev/f']);
  });

  it('update, updateStatus, every patch, a deletion and the garbage collector keep it sorted', () => {
    const { store } = makeStore();
    const owner = store.create('user', { kind: 'Owner', metadata: { name: 'o', namespace: 'default' }, spec: {} });
    const other = store.create('user', { kind: 'Owner', metadata: { name: 'p', namespace: 'default' }, spec: {} });
    store.create('user', { ...unsorted('g'), metadata: { ...unsorted('g').metadata, ownerReferences: [{ uid: owner.metadata.uid, name: 'o', kind: 'Owner', apiVersion: 'v1' }, { uid: other.metadata.uid, name: 'p', kind: 'Owner', apiVersion: 'v1' }] } });
    const cur = store.get('Gizmo', ref('g'));
    const steps: [string, () => unknown][] = [
      ['update', () => store.update('user', { ...cur, metadata: { ...cur.metadata, labels: { zz: '1', aa: '2' } }, spec: { z: 1, a: 2 }, extra: { y: 1, b: 2 } })],
      ['updateStatus', () => store.updateStatus('user', { ...store.get('Gizmo', ref('g')), status: { z: [{ y: 1, b: 2 }], a: 1 } })],
      ['merge patch', () => store.patch('user', 'Gizmo', ref('g'), { spec: { m: 1, c: 2 }, metadata: { annotations: { 'q/q': '1', 'b/b': '2' } } })],
      ['status patch', () => store.patch('user', 'Gizmo', ref('g'), { status: { y: 1, c: 2 } }, { subresource: 'status' })],
      ['transform', () => store.transform('user', 'Gizmo', ref('g'), (c) => ({ ...c, spec: { ...c.spec, x: { q: 1, d: 2 } }, a2: 1 }))],
      ['delete with finalizers', () => store.delete('user', 'Gizmo', ref('g'))],
    ];
    for (const [what, step] of steps) {
      step();
      const got = store.get('Gizmo', ref('g'));
      expect(sortedDeep(got), `${what}: ${JSON.stringify(got)}`).toBe(true);
    }
    expect(store.get('Gizmo', ref('g')).metadata.deletionTimestamp).toBeDefined();
    // the garbage collector drops the reference to an owner deleted with Orphan (a transform of its own)
    store.delete('user', 'Owner', ref('p'), { propagationPolicy: 'Orphan' });
    const refs = store.get('Gizmo', ref('g')).metadata.ownerReferences;
    expect(refs.map((r) => r.uid)).toEqual([owner.metadata.uid]);
    expect(Object.keys(refs[0]!)).toEqual(['apiVersion', 'kind', 'name', 'uid']);
  });

  it('a write that changes only the key order is a no-op (no new resourceVersion, no event)', () => {
    const { store, take } = makeStore();
    store.create('user', { kind: 'Gizmo', metadata: { name: 'g', namespace: 'default' }, spec: {}, status: { b: 1, a: 2 } });
    take();
    store.updateStatus('user', { ...store.get('Gizmo', ref('g')), status: { b: 1, a: 2 } });
    expect(take().map((w) => w.noop)).toEqual([true]);
  });

  it('the informer cache a controller reads through holds the sorted object', async () => {
    const kernel = new Kernel();
    const store = new ObjectStore({ clock: kernel.clock });
    const env: RuntimeEnv = { kernel, store, seams: new Seams(), trace: new Trace(), watchLatencyMs: 1, rewatchDelayMs: 100, traceReads: false };
    const inf = new Informer(env, { controller: 'c', replica: 0, kind: 'Gizmo', resyncPeriodMs: 0 });
    inf.start();
    store.create('user', unsorted('g'));
    await kernel.run(5);
    store.updateStatus('user', { ...store.get('Gizmo', ref('g')), status: { z: 1, a: { c: 1, b: 2 } } });
    await kernel.run(20);
    const cached = inf.get('default/g')!;
    expect(JSON.stringify(cached.status)).toBe('{"a":{"b":2,"c":1},"z":1}');
    expect(sortedDeep(cached)).toBe(true);
  });
});

describe('the REST API serves what the store holds', () => {
  it('a custom resource on the wire: every key sorted, metadata included; a ConfigMap keeps ObjectMeta field order', async () => {
    const f = apiFixture({ resources: [webAppResource] });
    const base = '/apis/example.com/v1/namespaces/default/webapps';
    await f.req('POST', base, { kind: 'WebApp', apiVersion: 'example.com/v1', metadata: { name: 'w', labels: { z: '1', a: '2' } }, spec: { replicas: 1, image: 'x' } });
    const text = await (await f.api.handle(new Request(`http://kube.test${base}/w`))).text();
    const got = JSON.parse(text) as JsonObject;
    expect(sortedDeep(got), text).toBe(true);
    // no status: nothing wrote one (a create drops it), so none is served
    expect(Object.keys(got)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(text).toContain('"spec":{"image":"x","replicas":1}');
    const cm = (await f.req('POST', '/api/v1/namespaces/default/configmaps', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', labels: { z: '1', a: '2' } }, data: { z: '1', a: '2' } })).json as { metadata: JsonObject; data: JsonObject };
    expect(Object.keys(cm.metadata).slice(0, 3)).toEqual(['name', 'namespace', 'uid']);
    expect(Object.keys(cm.metadata['labels'] as JsonObject)).toEqual(['a', 'z']);
    expect(Object.keys(cm.data)).toEqual(['a', 'z']);
  });
});

describe('a built-in kind keeps the order it was written in, but for its Go map fields', () => {
  it('a Deployment keeps the spec order; labels and annotations come back sorted', () => {
    const { store } = makeStore();
    const made = store.create('user', {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'd', namespace: 'default', labels: { zeta: '1', alpha: '2' }, annotations: { z: '1', a: '2' } },
      spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
      status: { replicas: 0, availableReplicas: 0 },
    });
    // the fields the server defaults come after the ones written (see store-defaults.test.ts)
    expect(Object.keys(made.spec)).toEqual(['replicas', 'selector', 'template', 'strategy', 'revisionHistoryLimit', 'progressDeadlineSeconds']);
    expect(Object.keys(made.status)).toEqual(['replicas', 'availableReplicas']);
    expect(Object.keys(made.metadata).slice(0, 3)).toEqual(['name', 'namespace', 'uid']);
    expect(Object.keys(made.metadata.labels)).toEqual(['alpha', 'zeta']);
    expect(Object.keys(made.metadata.annotations)).toEqual(['a', 'z']);
    const patched = store.patch('user', 'Deployment', ref('d'), { metadata: { labels: { beta: '3' } } });
    expect(Object.keys(patched.metadata.labels)).toEqual(['alpha', 'beta', 'zeta']);
  });

  it("a ConfigMap's and a Secret's data come back sorted (Go maps), stringData folded in its place", () => {
    const { store } = makeStore();
    const cm = store.create('user', { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { z: '1', a: '2' } });
    expect(Object.keys(cm['data'] as object)).toEqual(['a', 'z']);
    const s = store.create('user', { kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { z: 'MQ==' }, stringData: { m: 'x', b: 'y' } });
    expect(Object.keys(s['data'] as object)).toEqual(['b', 'm', 'z']);
  });

  it('the store knows every kind the API server serves as built in', () => {
    expect(builtinResources.map((r) => r.kind).filter((k) => !STRUCT_KINDS.has(k))).toEqual([]);
  });
});

describe('cloneSorted', () => {
  it('sorts every level, keeps arrays in order, drops undefined members, keeps class instances', () => {
    const d = new Date(0);
    const v = cloneSorted({ b: [{ d: 1, c: 2 }, 3], a: undefined, c: d, '10': 1, '9': 2 } as unknown as JsonObject);
    expect(keyPaths(v)).toEqual(['.9', '.10', '.b', '.b[0].c', '.b[0].d', '.c']);
    expect(v['c']).toBe(d);
  });
});

/*
 * End to end: a controller comparing JSON.stringify(status) with a desired status built in its own
 * key order writes on every reconcile against a real API server; its deep-equal twin does not.
 */
interface GizmoStatus {
  size?: number;
  observedGeneration?: number;
  phase?: string;
}
function gizmoController(name: string, same: (a: unknown, b: unknown) => boolean) {
  return defineController({
    name,
    for: 'Gizmo',
    // a lost event is repaired by the next resync
    resyncPeriodMs: 10_000,
    async reconcile(ctx) {
      const g = await ctx.client.tryGet<{ size: number }, GizmoStatus>('Gizmo', ctx.key, { live: true });
      if (!g || g.metadata.deletionTimestamp !== undefined) return;
      const status: GizmoStatus = { size: g.spec.size, observedGeneration: g.metadata.generation, phase: 'Ready' };
      if (!same(g.status, status)) await ctx.client.updateStatus({ ...g, status });
    },
  });
}
const gizmos = { objects: { kind: 'Gizmo', name: 'g', spec: [{ size: 1 }, { size: 2 }] }, runs: 20, seed: 1 };

describe('end to end: comparing JSON.stringify of a custom resource', () => {
  it('fails: the status written in its own key order never reads back the same', async () => {
    const r = await check(gizmoController('stringify-compare', (a, b) => JSON.stringify(a) === JSON.stringify(b)), gizmos);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(['idempotence', 'no-hot-loop']).toContain(r.property);
  }, 120_000);

  it("passes when it compares by value (the deep-equal twin)", async () => {
    const r = await check(gizmoController('deep-equal-compare', isDeepStrictEqual), gizmos);
    expect(r.ok ? 'ok' : `${r.property}: ${r.summary}`).toBe('ok');
  }, 120_000);
});
