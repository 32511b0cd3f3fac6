import { CoreV1Api, KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/sim/clock.js';
import { ObjectStore } from '../../src/store/store.js';
import { createKubeApi } from '../../src/kube-rest/kube-api.js';
import { kubeconfigFor } from '../../src/kube-rest/kubeconfig.js';
import { KUBE_BASE_URL, kubeRestHandlers } from '../../src/kube-rest/msw.js';

/**
 * The msw arm of the conformance suite: `@kubernetes/client-node` 1.4, unchanged, against the
 * simulated API through msw handlers (no socket is opened).
 */
const store = new ObjectStore({ clock: new VirtualClock() });
const api = createKubeApi({ store });
const server = setupServer(...kubeRestHandlers(api));
const kc = new KubeConfig();
kc.loadFromString(kubeconfigFor({ server: KUBE_BASE_URL, token: api.issueToken('controller:conformance/0') }));
const objects = KubernetesObjectApi.makeApiClient(kc);
type CM = V1ConfigMap & KubernetesObject;

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

async function until(cond: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('@kubernetes/client-node 1.4 over msw: KubernetesObjectApi', () => {
  it('creates, reads, lists, patches (merge, strategic, JSON), replaces and deletes', async () => {
    const created = await objects.create<CM>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud', namespace: 'default', labels: { app: 'crud' } }, data: { a: '1' } });
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(store.peek('ConfigMap', 'default/crud')!.metadata.labels).toEqual({ app: 'crud' });
    expect(store.peek('ConfigMap', 'default/crud')!.metadata.uid).toBe(created.metadata?.uid);
    const read = await objects.read<CM>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud', namespace: 'default' } });
    expect(read.data).toEqual({ a: '1' });
    const list = await objects.list<CM>('v1', 'ConfigMap', 'default', undefined, undefined, undefined, undefined, 'app = crud');
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['crud']);
    const merged = await objects.patch<CM>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud', namespace: 'default' }, data: { b: '2' } }, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
    expect(merged.data).toEqual({ a: '1', b: '2' });
    const strategic = await objects.patch<CM>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud', namespace: 'default', finalizers: ['example.com/x'] } });
    expect(strategic.metadata?.finalizers).toEqual(['example.com/x']);
    const replaced = await objects.replace<CM>({ ...strategic, data: { c: '3' } });
    expect(replaced.data).toEqual({ c: '3' });
    await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud', namespace: 'default' } });
    expect(store.peek('ConfigMap', 'default/crud')!.metadata.deletionTimestamp).toBeDefined();
    await objects.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud', namespace: 'default', finalizers: [] } }, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
    expect(store.peek('ConfigMap', 'default/crud')).toBeUndefined();
    expect(store.peekAll('ConfigMap')).toEqual([]);
  });

  it('surfaces kube-apiserver errors as ApiException with the Status code and body', async () => {
    const missing = await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope', namespace: 'default' } }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 404 });
    expect(JSON.parse(String((missing as { body: unknown }).body))).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    await objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup', namespace: 'default' } });
    expect(await objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup', namespace: 'default' } }).catch((e: unknown) => e)).toMatchObject({ code: 409 });
    const stale = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup', namespace: 'default', resourceVersion: '1' }, data: { x: 'y' } };
    expect(await objects.replace(stale).catch((e: unknown) => e)).toMatchObject({ code: 409 });
  });

  it('works through the typed CoreV1Api too', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'typed', body: { metadata: { name: 't' }, data: { k: 'v' } } });
    const list = await core.listNamespacedConfigMap({ namespace: 'typed' });
    expect(list.items.map((i) => [i.metadata?.name, i.data])).toEqual([['t', { k: 'v' }]]);
    expect(list.items[0]!.metadata?.creationTimestamp).toBeInstanceOf(Date);
  });
});

describe('@kubernetes/client-node 1.4 over msw: binding a Pod (red team rt46 R-6)', () => {
  it('binds through createNamespacedPodBinding and createNamespacedBinding; a second binding is 409 and an update of spec.nodeName 422', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const spec = { containers: [{ name: 'c', image: 'app:1' }] };
    await core.createNamespacedPod({ namespace: 'bind', body: { metadata: { name: 'a' }, spec } });
    const b = await core.createNamespacedPod({ namespace: 'bind', body: { metadata: { name: 'b' }, spec } });
    b.spec!.nodeName = 'node-1';
    expect(await core.replaceNamespacedPod({ name: 'b', namespace: 'bind', body: b }).catch((e: unknown) => e)).toMatchObject({ code: 422 });
    await core.createNamespacedPodBinding({ name: 'a', namespace: 'bind', body: { metadata: { name: 'a' }, target: { kind: 'Node', name: 'node-1' } } });
    await core.createNamespacedBinding({ namespace: 'bind', body: { metadata: { name: 'b' }, target: { kind: 'Node', name: 'node-2' } } });
    expect((await core.readNamespacedPod({ name: 'a', namespace: 'bind' })).spec?.nodeName).toBe('node-1');
    expect(store.peek('Pod', 'bind/b')!.spec['nodeName']).toBe('node-2');
    const again = await core.createNamespacedPodBinding({ name: 'a', namespace: 'bind', body: { metadata: { name: 'a' }, target: { kind: 'Node', name: 'node-2' } } }).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: 409 });
    expect(String((again as { body?: unknown }).body)).toContain('pod a is already assigned to node \\"node-1\\"');
  });
});

describe('@kubernetes/client-node 1.4 over msw: makeInformer', () => {
  it('lists, then watches: store writes by anyone arrive as add/update/delete', async () => {
    store.create('user', { kind: 'ConfigMap', metadata: { name: 'pre', namespace: 'inf' } });
    const informer = makeInformer<CM>(kc, '/api/v1/namespaces/inf/configmaps', () => objects.list<CM>('v1', 'ConfigMap', 'inf'));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name} ${JSON.stringify(o.data)}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await until(() => api.openWatches() === 1, 'the watch to open');
    store.create('user', { kind: 'ConfigMap', metadata: { name: 'new', namespace: 'inf' } });
    store.patch('user', 'ConfigMap', { namespace: 'inf', name: 'pre' }, { data: { v: '1' } });
    store.delete('user', 'ConfigMap', { namespace: 'inf', name: 'new' });
    await until(() => seen.length === 4, 'four events');
    expect(seen).toEqual(['add pre', 'add new', 'update pre {"v":"1"}', 'delete new']);
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['pre']);
    expect(errors).toEqual([]);
    await informer.stop();
    await until(() => api.openWatches() === 0, 'the aborted watch to end on the server');
  });

  it('relists by itself after a 410 Expired, but stops for good on a cut watch (the known client-node behaviour)', async () => {
    const informer = makeInformer<CM>(kc, '/api/v1/namespaces/relist/configmaps', () => objects.list<CM>('v1', 'ConfigMap', 'relist'));
    let connects = 0;
    const errors: unknown[] = [];
    informer.on('connect', () => connects++);
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await until(() => api.openWatches() === 1, 'the watch to open');
    api.endWatches('expire');
    await until(() => connects === 2 && api.openWatches() === 1, 'the relist and a new watch');
    expect(errors).toEqual([]);
    api.endWatches('cut');
    await until(() => errors.length === 1, 'the informer error');
    await new Promise((r) => setTimeout(r, 50));
    expect(api.openWatches()).toBe(0);
    expect(connects).toBe(2);
    store.create('user', { kind: 'ConfigMap', metadata: { name: 'unseen', namespace: 'relist' } });
    await new Promise((r) => setTimeout(r, 50));
    expect(informer.list()).toEqual([]);
    await informer.stop();
  });
});
