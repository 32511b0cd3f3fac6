import { describe, expect, it } from 'vitest';
import { apiFixture, BASE, WatchReader } from './kube-helpers.js';

/**
 * One kind name defined by two groups (Cluster API's and CloudNativePG's `Cluster`, a Knative
 * `Service` beside the core Service). The store keys objects by kind, and the API used to serve
 * every object of the kind at either group, rewritten to the group asked for: a program listing
 * its Clusters saw the other group's as its own. Each group now sees only its own objects; a name
 * both would hold is refused with the reason.
 */
const A = { group: 'a.example.com', version: 'v1', kind: 'Cluster', plural: 'clusters' };
const B = { group: 'b.example.com', version: 'v1', kind: 'Cluster', plural: 'clusters' };
const AS = '/apis/a.example.com/v1/namespaces/default/clusters';
const BS = '/apis/b.example.com/v1/namespaces/default/clusters';
const cluster = (group: string, name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: `${group}/v1`, kind: 'Cluster', metadata: { name }, spec });
const MERGE = { 'content-type': 'application/merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

describe('createKubeApi: a kind two groups define', () => {
  it('lists, gets and writes each group only its own objects', async () => {
    const f = apiFixture({ resources: [A, B] });
    expect((await f.req('POST', AS, cluster(A.group, 'x', { size: 1 }))).status).toBe(201);
    expect((await f.req('POST', BS, cluster(B.group, 'y', { nodes: 3 }))).status).toBe(201);
    expect((await f.req('GET', AS)).json.items.map((i: any) => [i.apiVersion, i.metadata.name])).toEqual([['a.example.com/v1', 'x']]);
    expect((await f.req('GET', BS)).json.items.map((i: any) => [i.apiVersion, i.metadata.name])).toEqual([['b.example.com/v1', 'y']]);
    expect((await f.req('GET', `${AS}/y`)).json).toMatchObject({ code: 404, reason: 'NotFound', message: 'clusters.a.example.com "y" not found' });
    expect((await f.req('PUT', `${AS}/y`, cluster(A.group, 'y', { size: 9 }))).status).toBe(404);
    expect((await f.req('PATCH', `${AS}/y`, { spec: { size: 9 } }, MERGE)).status).toBe(404);
    expect((await f.req('DELETE', `${AS}/y`)).status).toBe(404);
    expect((await f.req('DELETE', AS)).json.items.map((i: any) => i.metadata.name)).toEqual(['x']);
    expect((await f.req('GET', `${BS}/y`)).json).toMatchObject({ apiVersion: 'b.example.com/v1', spec: { nodes: 3 } });
  });

  it('refuses a name the other group holds, saying why, instead of answering for its object', async () => {
    const f = apiFixture({ resources: [A, B] });
    await f.req('POST', BS, cluster(B.group, 'y'));
    for (const r of [await f.req('POST', AS, cluster(A.group, 'y')), await f.req('PATCH', `${AS}/y?fieldManager=m`, JSON.stringify(cluster(A.group, 'y')), APPLY)]) {
      expect(r.status).toBe(500);
      expect(r.json.message).toContain('clusters.a.example.com "y" cannot be stored: steadystate\'s API server keeps objects by kind and name, and the Cluster "default/y" of b.example.com/v1 holds that name');
    }
    expect(f.writes.filter((w) => w.error === undefined)).toHaveLength(1);
  });

  it("a watch of one group sees none of the other group's events", async () => {
    const f = apiFixture({ resources: [A, B] });
    await f.req('POST', BS, cluster(B.group, 'old'));
    const res = await f.api.handle(new Request(`${BASE}${AS}?watch=true`));
    const w = new WatchReader(res);
    await f.req('POST', BS, cluster(B.group, 'other'));
    await f.req('POST', AS, cluster(A.group, 'mine'));
    await f.req('DELETE', `${BS}/other`);
    expect((await w.take(1)).map((e) => [e.type, e.object.apiVersion, e.object.metadata.name])).toEqual([['ADDED', 'a.example.com/v1', 'mine']]);
    await w.cancel();
  });

  it("the core Service and a Knative-style Service: /api/v1/services lists only the core group's", async () => {
    const ksvc = { group: 'serving.knative.dev', version: 'v1', kind: 'Service', plural: 'services' };
    const f = apiFixture({ resources: [ksvc] });
    await f.req('POST', '/apis/serving.knative.dev/v1/namespaces/default/services', { apiVersion: 'serving.knative.dev/v1', kind: 'Service', metadata: { name: 'hello' }, spec: { template: {} } });
    await f.req('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hello-private' }, spec: { ports: [{ port: 80 }] } });
    expect((await f.req('GET', '/api/v1/namespaces/default/services')).json.items.map((i: any) => i.metadata.name)).toEqual(['hello-private']);
    expect((await f.req('GET', '/apis/serving.knative.dev/v1/namespaces/default/services')).json.items.map((i: any) => i.metadata.name)).toEqual(['hello']);
    expect((await f.req('GET', '/api/v1/namespaces/default/services/hello')).status).toBe(404);
  });

  it('core/v1 and events.k8s.io/v1 Events stay one set of objects', async () => {
    const f = apiFixture();
    const r = await f.req('POST', '/api/v1/namespaces/default/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', message: 'started' });
    expect(r.status).toBe(201);
    expect((await f.req('GET', '/apis/events.k8s.io/v1/namespaces/default/events')).json.items.map((i: any) => i.metadata.name)).toEqual(['e1']);
    expect((await f.req('GET', '/apis/events.k8s.io/v1/namespaces/default/events/e1')).status).toBe(200);
  });
});
