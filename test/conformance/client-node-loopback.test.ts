import { ApiException, KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/sim/clock.js';
import { ObjectStore } from '../../src/store/store.js';
import { createKubeApi, type KubeApi } from '../../src/kube-rest/kube-api.js';
import { startLoopback, type LoopbackServer } from '../../src/kube-rest/loopback.js';

/** The socket arm: client-node over a real loopback connection (what undici-based clients and other languages use). */
let store: ObjectStore;
let api: KubeApi;
let server: LoopbackServer;
let kc: KubeConfig;

beforeAll(async () => {
  store = new ObjectStore({ clock: new VirtualClock() });
  api = createKubeApi({ store });
  server = await startLoopback(api);
  kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig({ token: api.issueToken('controller:loopback/0') }));
});
afterAll(() => server.close());

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('startLoopback', () => {
  it('serves on 127.0.0.1 with a kubeconfig that names the actor', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-tcp', namespace: 'default' } });
    expect(store.peek('ConfigMap', 'default/over-tcp')).toBeDefined();
    const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps/missing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it('streams watches at once; a cut destroys the socket and the client-node informer reports an error', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const informer = makeInformer<KubernetesObject>(kc, '/api/v1/namespaces/lb/configmaps', () => objects.list('v1', 'ConfigMap', 'lb'));
    const added: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => added.push(o.metadata!.name!));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await until(() => api.openWatches() === 1, 'the watch to open');
    store.create('user', { kind: 'ConfigMap', metadata: { name: 'seen', namespace: 'lb' } });
    await until(() => added.includes('seen'), 'the ADDED event over the socket');
    api.endWatches('cut');
    await until(() => errors.length === 1, 'the informer to report the cut');
    expect(String(errors[0])).toMatch(/ECONNRESET|socket|premature|aborted|terminated/i);
    await informer.stop();
  });

  it('ends a watch promptly when the client aborts it', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const informer = makeInformer<KubernetesObject>(kc, '/api/v1/namespaces/abort/configmaps', () => objects.list('v1', 'ConfigMap', 'abort'));
    await informer.start();
    await until(() => api.openWatches() === 1, 'the watch to open');
    await informer.stop();
    await until(() => api.openWatches() === 0, 'the server to drop the aborted watch', 2000);
  });

  it('server-side apply through KubernetesObjectApi.patch(…, PatchStrategy.ServerSideApply): create, merge by container name, 409, force', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const deployment = (containers: { name: string; image: string }[], replicas?: number): V1Deployment & KubernetesObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'ssa', namespace: 'default' },
      spec: { ...(replicas !== undefined ? { replicas } : {}), selector: { matchLabels: { app: 'ssa' } }, template: { metadata: { labels: { app: 'ssa' } }, spec: { containers } } },
    });
    const created = await objects.patch(deployment([{ name: 'app', image: 'app:1' }], 2), undefined, undefined, 'deployer', undefined, PatchStrategy.ServerSideApply);
    expect(created.metadata?.managedFields?.map((e) => [e.manager, e.operation])).toEqual([['deployer', 'Apply']]);
    // a second manager adds its container; the first one's stays
    const sidecar = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ssa', namespace: 'default' }, spec: { template: { spec: { containers: [{ name: 'proxy', image: 'proxy:1' }] } } } } as V1Deployment & KubernetesObject;
    const merged = await objects.patch(sidecar, undefined, undefined, 'mesh', true, PatchStrategy.ServerSideApply);
    expect(merged.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['app', 'proxy']);
    const err = await objects.patch(deployment([{ name: 'app', image: 'app:1' }], 5), undefined, undefined, 'autoscaler', false, PatchStrategy.ServerSideApply).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<string>).code).toBe(409);
    expect(JSON.parse((err as ApiException<string>).body)).toMatchObject({ reason: 'Conflict', message: 'Apply failed with 1 conflict: conflict with "deployer": .spec.replicas' });
    const forced = await objects.patch(deployment([{ name: 'app', image: 'app:1' }], 5), undefined, undefined, 'autoscaler', true, PatchStrategy.ServerSideApply);
    expect(forced.spec?.replicas).toBe(5);
    expect(store.peek('Deployment', 'default/ssa')!.spec).toMatchObject({ replicas: 5 });
  });
});
