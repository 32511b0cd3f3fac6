import { describe, expect, it } from 'vitest';
import { apiFixture, configMap, webAppResource } from './kube-helpers.js';
import { gadgetCrd } from '../helpers/gadget-crd.js';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('createKubeApi: create, get, list, update', () => {
  it('creates (201), reads back and lists in key order with the list resourceVersion', async () => {
    const f = apiFixture();
    const r = await f.req('POST', CMS, configMap('b', { x: '1' }, { metadata: { labels: { app: 'web' } } }));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { x: '1' }, metadata: { name: 'b', namespace: 'default', labels: { app: 'web' }, resourceVersion: '1' } });
    expect(r.json.metadata.uid).toMatch(/./);
    // a ConfigMap has no generation on a real server
    expect(r.json.metadata).not.toHaveProperty('generation');
    expect(r.json.metadata).not.toHaveProperty('finalizers');
    await f.req('POST', CMS, configMap('a'));
    const got = await f.req('GET', `${CMS}/b`);
    expect(got.json.data).toEqual({ x: '1' });
    const list = await f.req('GET', CMS);
    expect(list.json).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '2' } });
    expect(list.json.items.map((i: any) => i.metadata.name)).toEqual(['a', 'b']);
    expect(f.writes.map((w) => [w.actor, w.verb, w.key])).toEqual([
      ['user', 'create', 'default/b'],
      ['user', 'create', 'default/a'],
    ]);
  });

  it('answers kube-apiserver Status errors: AlreadyExists 409, NotFound 404, BadRequest 400, Invalid 422', async () => {
    const f = apiFixture();
    await f.req('POST', CMS, configMap('a'));
    const dup = await f.req('POST', CMS, configMap('a'));
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "a" already exists', reason: 'AlreadyExists', details: { name: 'a', kind: 'configmaps' }, code: 409 });
    const missing = await f.req('GET', '/apis/apps/v1/namespaces/default/deployments/nope');
    expect(missing.json).toMatchObject({ reason: 'NotFound', code: 404, message: 'deployments.apps "nope" not found', details: { name: 'nope', group: 'apps', kind: 'deployments' } });
    const wrongKind = await f.req('POST', CMS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    expect(wrongKind.json).toMatchObject({ reason: 'BadRequest', code: 400 });
    const wrongNs = await f.req('POST', CMS, configMap('c', {}, { metadata: { namespace: 'other' } }));
    expect(wrongNs.json).toMatchObject({ reason: 'BadRequest', message: 'the namespace of the provided object does not match the namespace sent on the request' });
    const notJson = await f.req('POST', CMS, '{not json');
    expect(notJson.json).toMatchObject({ reason: 'BadRequest', code: 400 });
    const badLabels = await f.req('POST', CMS, configMap('d', {}, { metadata: { labels: { a: 1 } } }));
    expect(badLabels.json).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    expect(badLabels.json.details.causes[0].field).toBe('metadata.labels');
    const method = await f.req('POST', `${CMS}/a`, configMap('a'));
    expect(method.json).toMatchObject({ reason: 'MethodNotAllowed', code: 405 });
  });

  it('generates names from generateName', async () => {
    const f = apiFixture();
    const r = await f.req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'job-' } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.name).toMatch(/^job-[a-z0-9]{5}$/);
  });

  it('PUT with a stale resourceVersion is 409 Conflict; without one it is unconditional', async () => {
    const f = apiFixture();
    const v1 = (await f.req('POST', CMS, configMap('a', { v: '1' }))).json;
    const v2 = await f.req('PUT', `${CMS}/a`, { ...v1, data: { v: '2' } });
    expect(v2.status).toBe(200);
    expect(v2.json.metadata.resourceVersion).toBe('2');
    const stale = await f.req('PUT', `${CMS}/a`, { ...v1, data: { v: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ reason: 'Conflict', message: 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again' });
    const blind = await f.req('PUT', `${CMS}/a`, { ...v1, metadata: { ...v1.metadata, resourceVersion: undefined }, data: { v: '4' } });
    expect(blind.json.data).toEqual({ v: '4' });
    const renamed = await f.req('PUT', `${CMS}/a`, { ...v1, metadata: { name: 'zzz' } });
    expect(renamed.json).toMatchObject({ reason: 'BadRequest', message: 'the name of the object (zzz) does not match the name on the URL (a)' });
    expect((await f.req('PUT', `${CMS}/missing`, configMap('missing'))).status).toBe(404);
  });

  it('a no-op PUT does not bump the resourceVersion but is recorded as a write', async () => {
    const f = apiFixture();
    const v1 = (await f.req('POST', CMS, configMap('a', { v: '1' }))).json;
    const same = await f.req('PUT', `${CMS}/a`, v1);
    expect(same.json.metadata.resourceVersion).toBe('1');
    expect(f.writes.at(-1)).toMatchObject({ verb: 'update', noop: true });
  });

  it('numeric-looking resourceVersions are compared as given; malformed ones are 400', async () => {
    const f = apiFixture();
    await f.req('POST', CMS, configMap('a'));
    expect((await f.req('GET', `${CMS}?resourceVersion=0`)).status).toBe(200);
    expect((await f.req('GET', `${CMS}?resourceVersion=1`)).status).toBe(200);
    expect((await f.req('GET', `${CMS}?resourceVersion=abc`)).json).toMatchObject({ reason: 'BadRequest', code: 400 });
  });

  it('status subresource: PUT/GET /status writes only status and never bumps generation; the main resource ignores status', async () => {
    const f = apiFixture({ resources: [webAppResource] });
    const base = '/apis/example.com/v1/namespaces/default/webapps';
    const created = (await f.req('POST', base, { apiVersion: 'example.com/v1', kind: 'WebApp', metadata: { name: 'w' }, spec: { replicas: 1 }, status: { ready: true } })).json;
    expect(created).not.toHaveProperty('status');
    const st = await f.req('PUT', `${base}/w/status`, { ...created, spec: { replicas: 99 }, status: { ready: true } });
    expect(st.json).toMatchObject({ spec: { replicas: 1 }, status: { ready: true }, metadata: { generation: 1 } });
    const main = await f.req('PUT', `${base}/w`, { ...st.json, spec: { replicas: 2 }, status: { ready: false } });
    expect(main.json).toMatchObject({ spec: { replicas: 2 }, status: { ready: true }, metadata: { generation: 2 } });
    expect((await f.req('GET', `${base}/w/status`)).json.status).toEqual({ ready: true });
    expect((await f.req('PUT', '/api/v1/namespaces/default/configmaps/x/status', configMap('x'))).status).toBe(404);
  });

  it('flat kinds keep their top-level fields; Secret stringData lands base64 in data', async () => {
    const f = apiFixture();
    const s = await f.req('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', stringData: { password: 'hunter2' } });
    expect(s.json).toMatchObject({ type: 'Opaque', data: { password: Buffer.from('hunter2').toString('base64') } });
    expect(s.json).not.toHaveProperty('stringData');
    expect(s.json).not.toHaveProperty('spec');
    expect(s.json).not.toHaveProperty('status');
  });

  it('cluster-scoped kinds: namespaces are served without a namespace and start Active', async () => {
    const f = apiFixture();
    const ns = await f.req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    expect(ns.json).toMatchObject({ metadata: { name: 'team-a' }, status: { phase: 'Active' } });
    expect(ns.json.metadata).not.toHaveProperty('namespace');
    expect((await f.req('GET', '/api/v1/namespaces/team-a')).json.metadata.name).toBe('team-a');
    expect((await f.req('GET', '/api/v1/namespaces')).json.items).toHaveLength(1);
  });

  it('bearer tokens name the actor; an unknown token is 401', async () => {
    const f = apiFixture();
    const token = f.api.issueToken('controller:web/0');
    await f.req('POST', CMS, configMap('a'), { authorization: `Bearer ${token}` });
    expect(f.writes.at(-1)!.actor).toBe('controller:web/0');
    const denied = await f.req('GET', CMS, undefined, { authorization: 'Bearer nope' });
    expect(denied.json).toMatchObject({ reason: 'Unauthorized', code: 401 });
    f.api.revokeToken(token);
    expect((await f.req('GET', CMS, undefined, { authorization: `Bearer ${token}` })).status).toBe(401);
  });
});

describe('createKubeApi: dryRun (red team rt48 D-1: a dry run must never change the world)', () => {
  it('answers a dry-run create, update and patch as the write would be, and stores, versions and records nothing', async () => {
    const f = apiFixture();
    await f.req('POST', CMS, configMap('a', { x: '1' }));
    const created = await f.req('POST', `${CMS}?dryRun=All`, configMap('b', { y: '1' }));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ kind: 'ConfigMap', data: { y: '1' }, metadata: { name: 'b', namespace: 'default' } });
    expect(created.json.metadata.uid).toMatch(/./);
    expect(created.json.metadata.resourceVersion ?? '').toBe('');
    const put = await f.req('PUT', `${CMS}/a?dryRun=All`, configMap('a', { x: '2' }));
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ data: { x: '2' }, metadata: { resourceVersion: '1' } });
    expect((await f.req('PATCH', `${CMS}/a?dryRun=All`, { data: { x: '3' } }, { 'content-type': 'application/merge-patch+json' })).json).toMatchObject({ data: { x: '3' }, metadata: { resourceVersion: '1' } });
    expect((await f.req('PATCH', `${CMS}/a?dryRun=All`, [{ op: 'replace', path: '/data/x', value: '4' }], { 'content-type': 'application/json-patch+json' })).json).toMatchObject({ data: { x: '4' } });
    expect((await f.req('GET', `${CMS}/b`)).status).toBe(404);
    expect((await f.req('GET', `${CMS}/a`)).json).toMatchObject({ data: { x: '1' }, metadata: { resourceVersion: '1' } });
    expect((await f.req('GET', CMS)).json.metadata.resourceVersion).toBe('1');
    expect(f.writes.map((w) => [w.verb, w.key])).toEqual([['create', 'default/a']]);
  });

  it('refuses a dry run as the write would be refused (409, 422), and any dryRun value but All (422, as ValidateDryRun)', async () => {
    const f = apiFixture();
    await f.req('POST', CMS, configMap('a', { x: '1' }));
    expect((await f.req('POST', `${CMS}?dryRun=All`, configMap('a'))).json).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    expect((await f.req('PUT', `${CMS}/a?dryRun=All`, configMap('a', { x: '2' }, { metadata: { resourceVersion: '99' } }))).json).toMatchObject({ code: 409, reason: 'Conflict' });
    expect((await f.req('POST', `${CMS}?dryRun=All`, configMap('Bad_Name'))).json).toMatchObject({ code: 422, reason: 'Invalid' });
    const wrong = await f.req('POST', `${CMS}?dryRun=Some`, configMap('c'));
    expect(wrong.json).toMatchObject({ code: 422, reason: 'Invalid', message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"', details: { group: 'meta.k8s.io', kind: 'CreateOptions' } });
    expect((await f.req('DELETE', `${CMS}/a`, { dryRun: ['all'] })).json).toMatchObject({ code: 422, details: { kind: 'DeleteOptions' } });
    expect((await f.req('GET', `${CMS}/c`)).status).toBe(404);
    expect(f.writes.filter((w) => w.error === undefined).map((w) => [w.verb, w.key])).toEqual([['create', 'default/a']]);
  });

  it('a dry-run generateName create hands out nothing: the next real create gets the name it would have had', async () => {
    const gen = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'job-' }, data: {} };
    const plain = apiFixture();
    const dry = apiFixture();
    const answered = await dry.req('POST', `${CMS}?dryRun=All`, gen);
    expect(answered.json.metadata.name).toMatch(/^job-[a-z0-9]{5}$/);
    const a = await plain.req('POST', CMS, gen);
    const b = await dry.req('POST', CMS, gen);
    expect(b.json.metadata.name).toBe(a.json.metadata.name);
    expect(b.json.metadata.uid).toBe(a.json.metadata.uid);
  });

  it('a dry-run delete answers the object as the delete would leave it (200 gone, 202 held by a finalizer) and deletes nothing', async () => {
    const f = apiFixture();
    await f.req('POST', CMS, configMap('plain'));
    await f.req('POST', CMS, configMap('held', {}, { metadata: { finalizers: ['example.com/keep'] } }));
    const gone = await f.req('DELETE', `${CMS}/plain?dryRun=All`);
    expect(gone.status).toBe(200);
    expect(gone.json.metadata.name).toBe('plain');
    const held = await f.req('DELETE', `${CMS}/held`, { dryRun: ['All'] });
    expect(held.status).toBe(202);
    expect(held.json.metadata.deletionTimestamp).toMatch(/Z$/);
    expect((await f.req('GET', `${CMS}/plain`)).status).toBe(200);
    expect((await f.req('GET', `${CMS}/held`)).json.metadata).not.toHaveProperty('deletionTimestamp');
    expect((await f.req('DELETE', `${CMS}?dryRun=All`)).json.items.map((i: any) => i.metadata.name)).toEqual(['held', 'plain']);
    expect((await f.req('GET', CMS)).json.items).toHaveLength(2);
    expect(f.writes.map((w) => w.verb)).toEqual(['create', 'create']);
  });
});

describe('createKubeApi: a custom resource whose CRD is in the store', () => {
  it('is pruned, defaulted and validated over HTTP as the apiextensions server does: a 422 names the fields', async () => {
    const f = apiFixture();
    await f.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gadgetCrd({ type: 'object', properties: { spec: { type: 'object', required: ['size'], properties: { size: { type: 'integer', minimum: 1 }, mode: { type: 'string', enum: ['fast', 'safe'], default: 'safe' } } } } }));
    const G = '/apis/example.com/v1/namespaces/default/gadgets';
    const bad = await f.req('POST', G, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 0, mode: 'slow' } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes.map((c: { field: string }) => c.field).sort()).toEqual(['spec.mode', 'spec.size']);
    const ok = await f.req('POST', G, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 2, typo: true } });
    expect(ok.status).toBe(201);
    expect(ok.json.spec).toEqual({ mode: 'safe', size: 2 });
  });
});

describe('createKubeApi: delete', () => {
  it('removes an object without finalizers (200) and marks one with finalizers (202) until they are gone', async () => {
    const f = apiFixture();
    await f.req('POST', CMS, configMap('plain'));
    const del = await f.req('DELETE', `${CMS}/plain`);
    expect(del.status).toBe(200);
    expect(f.store.peek('ConfigMap', 'default/plain')).toBeUndefined();
    await f.req('POST', CMS, configMap('held', {}, { metadata: { finalizers: ['example.com/x'] } }));
    const marked = await f.req('DELETE', `${CMS}/held`);
    expect(marked.status).toBe(202);
    expect(marked.json.metadata.deletionTimestamp).toMatch(/Z$/);
    const patched = await f.req('PATCH', `${CMS}/held`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(f.store.peek('ConfigMap', 'default/held')).toBeUndefined();
    expect((await f.req('DELETE', `${CMS}/held`)).json).toMatchObject({ reason: 'NotFound', code: 404 });
  });

  it('honours preconditions (409) from the DeleteOptions body', async () => {
    const f = apiFixture();
    const a = (await f.req('POST', CMS, configMap('a'))).json;
    const wrongUid = await f.req('DELETE', `${CMS}/a`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'other' } });
    expect(wrongUid.json).toMatchObject({ reason: 'Conflict', code: 409 });
    const wrongRv = await f.req('DELETE', `${CMS}/a`, { preconditions: { resourceVersion: '999' } });
    expect(wrongRv.status).toBe(409);
    const ok = await f.req('DELETE', `${CMS}/a`, { preconditions: { uid: a.metadata.uid, resourceVersion: a.metadata.resourceVersion } });
    expect(ok.status).toBe(200);
  });

  it('propagationPolicy: Background collects dependents, Orphan keeps them (body or query)', async () => {
    for (const [how, kept] of [['body', false], ['orphan-body', true], ['orphan-query', true]] as const) {
      const f = apiFixture();
      const owner = (await f.req('POST', CMS, configMap('owner'))).json;
      await f.req('POST', CMS, configMap('dep', {}, { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] } }));
      if (how === 'body') await f.req('DELETE', `${CMS}/owner`, { propagationPolicy: 'Background' });
      if (how === 'orphan-body') await f.req('DELETE', `${CMS}/owner`, { propagationPolicy: 'Orphan' });
      if (how === 'orphan-query') await f.req('DELETE', `${CMS}/owner?propagationPolicy=Orphan`);
      const dep = f.store.peek('ConfigMap', 'default/dep');
      expect(dep !== undefined, how).toBe(kept);
      if (kept) expect(dep!.metadata.ownerReferences).toEqual([]);
    }
    const f = apiFixture();
    await f.req('POST', CMS, configMap('x'));
    expect((await f.req('DELETE', `${CMS}/x?propagationPolicy=Sideways`)).json).toMatchObject({ reason: 'BadRequest' });
  });

  it('deletes a collection by label selector', async () => {
    const f = apiFixture();
    await f.req('POST', CMS, configMap('a', {}, { metadata: { labels: { tier: 'web' } } }));
    await f.req('POST', CMS, configMap('b', {}, { metadata: { labels: { tier: 'db' } } }));
    const r = await f.req('DELETE', `${CMS}?labelSelector=tier%3Dweb`);
    expect(r.json.items.map((i: any) => i.metadata.name)).toEqual(['a']);
    expect(f.store.peekAll('ConfigMap').map((o) => o.metadata.name)).toEqual(['b']);
  });
});

describe('createKubeApi: binding a Pod (red team rt46 R-6)', () => {
  const PODS = '/api/v1/namespaces/default/pods';
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'app:1' }] } });
  const binding = (name: string, node: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } });

  it('refuses a PUT or PATCH that sets spec.nodeName (422, ValidatePodUpdate)', async () => {
    const f = apiFixture();
    const created = (await f.req('POST', PODS, pod('web'))).json;
    const put = await f.req('PUT', `${PODS}/web`, { ...created, spec: { ...created.spec, nodeName: 'node-a' } });
    expect(put.status).toBe(422);
    expect(put.json).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { name: 'web', kind: 'Pod', causes: [{ reason: 'FieldValueForbidden', field: 'spec' }] } });
    expect(put.json.message).toMatch(/^Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
    expect((await f.req('PATCH', `${PODS}/web`, { spec: { nodeName: 'node-a' } }, { 'content-type': 'application/merge-patch+json' })).status).toBe(422);
    expect(f.store.peek('Pod', 'default/web')!.spec['nodeName']).toBeUndefined();
  });

  it('POST pods/{name}/binding binds (201, a success Status); again is 409 on pods/binding; a name other than the URL is 400; GET is 405', async () => {
    const f = apiFixture();
    await f.req('POST', PODS, pod('web'));
    const r = await f.req('POST', `${PODS}/web/binding`, binding('web', 'node-a'));
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const got = (await f.req('GET', `${PODS}/web`)).json;
    expect(got.spec.nodeName).toBe('node-a');
    expect(got.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
    const again = await f.req('POST', `${PODS}/web/binding`, binding('web', 'node-b'));
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-a"', reason: 'Conflict', details: { name: 'web', kind: 'pods/binding' }, code: 409 });
    await f.req('POST', PODS, pod('other'));
    const mismatch = await f.req('POST', `${PODS}/other/binding`, binding('web', 'node-b'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.message).toBe('name in URL does not match name in Binding object');
    expect((await f.req('POST', `${PODS}/missing/binding`, binding('missing', 'node-b'))).json).toMatchObject({ reason: 'NotFound', message: 'pods "missing" not found', code: 404 });
    expect((await f.req('GET', `${PODS}/other/binding`)).status).toBe(405);
    expect(f.store.peek('Pod', 'default/other')!.spec['nodeName']).toBeUndefined();
  });

  it('POST bindings (the legacy resource) binds the Pod the Binding names; discovery lists both', async () => {
    const f = apiFixture();
    await f.req('POST', PODS, pod('web'));
    expect((await f.req('POST', '/api/v1/namespaces/default/bindings', binding('web', 'node-a'))).status).toBe(201);
    expect(f.store.peek('Pod', 'default/web')!.spec['nodeName']).toBe('node-a');
    const resources = (await f.req('GET', '/api/v1')).json.resources as { name: string; kind: string; verbs: string[] }[];
    expect(resources.filter((r) => r.kind === 'Binding')).toEqual([expect.objectContaining({ name: 'pods/binding', verbs: ['create'] }), expect.objectContaining({ name: 'bindings', verbs: ['create'] })]);
  });
});
