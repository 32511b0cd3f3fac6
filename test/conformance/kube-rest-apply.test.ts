import { describe, expect, it } from 'vitest';
import { apiFixture, webAppResource } from './kube-helpers.js';
import { gadgetCrd } from '../helpers/gadget-crd.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

/** A Deployment created by POST (its fields belong to no manager). */
async function seedDeployment(f: ReturnType<typeof apiFixture>): Promise<void> {
  await f.req('POST', DEPLOY, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } } } });
}

function deploymentYaml(spec: string): string {
  return `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n${spec}`;
}

describe('createKubeApi: server-side apply', () => {
  it('creates the object when it does not exist (201) and records the manager in managedFields', async () => {
    const f = apiFixture();
    f.host.advance(5_500);
    const r = await f.req('PATCH', `${DEPLOY}/web?fieldManager=deployer`, deploymentYaml('spec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: app\n        image: app:1\n'), APPLY);
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ kind: 'Deployment', metadata: { name: 'web', namespace: 'default', generation: 1 }, spec: { replicas: 2, template: { spec: { containers: [{ name: 'app', image: 'app:1' }] } } } });
    expect(r.json.metadata.managedFields).toEqual([
      {
        manager: 'deployer',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2026-01-01T00:00:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:selector': { 'f:matchLabels': { 'f:app': {} } }, 'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } },
      },
    ]);
    // what GET and the store see
    expect((await f.req('GET', `${DEPLOY}/web`)).json.metadata.managedFields[0].manager).toBe('deployer');
    expect(f.store.peek('Deployment', 'default/web')!.metadata).not.toHaveProperty('managedFields');
  });

  it('accepts a JSON body too, and a re-apply of the same configuration changes nothing', async () => {
    const f = apiFixture();
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });
    expect((await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=m', body, APPLY)).status).toBe(201);
    const again = await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=m', body, APPLY);
    expect(again.status).toBe(200);
    expect(again.json.metadata.resourceVersion).toBe('1');
    expect(f.writes.map((w) => [w.verb, w.noop])).toEqual([['create', false], ['patch', true]]);
  });

  it('updates by apply, keeps fields other writers set, and removes the fields the manager no longer applies', async () => {
    const f = apiFixture();
    await seedDeployment(f);
    await f.req('PATCH', `${DEPLOY}/web?fieldManager=deployer`, deploymentYaml('  labels:\n    tier: web\n    old: x\nspec:\n  replicas: 2\n  paused: false\n'), APPLY);
    // another writer (not an apply) adds a label: it owns it now (operation Update)
    await f.req('PATCH', `${DEPLOY}/web?fieldManager=labeler`, { metadata: { labels: { team: 'a' } } }, MERGE);
    const r = await f.req('PATCH', `${DEPLOY}/web?fieldManager=deployer`, deploymentYaml('  labels:\n    tier: web\nspec:\n  replicas: 3\n'), APPLY);
    expect(r.status).toBe(200);
    expect(r.json.metadata.labels).toEqual({ tier: 'web', team: 'a' });
    expect(r.json.spec.replicas).toBe(3);
    expect(r.json.spec).not.toHaveProperty('paused');
    expect(r.json.metadata.generation).toBe(3);
    const managers = r.json.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`);
    expect(managers).toEqual(['deployer/Apply', 'labeler/Update']);
    expect(r.json.metadata.managedFields[1].fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:team': {} } } });
  });

  it('a field two managers applied with the same value stays until both leave it out', async () => {
    const f = apiFixture();
    const cm = (data: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n${data}`;
    await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=a', cm('  shared: "1"\n  a: "1"\n'), APPLY);
    expect((await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=b', cm('  shared: "1"\n'), APPLY)).status).toBe(200);
    const r = await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=a', cm('  a: "1"\n'), APPLY);
    expect(r.json.data).toEqual({ shared: '1', a: '1' });
    const gone = await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=b', cm('  b: "2"\n'), APPLY);
    expect(gone.json.data).toEqual({ a: '1', b: '2' });
  });

  it('answers 409 with kube-apiserver Status when another manager owns the field, and force=true takes it over', async () => {
    const f = apiFixture();
    await seedDeployment(f);
    await f.req('PATCH', `${DEPLOY}/web?fieldManager=deployer`, deploymentYaml('spec:\n  replicas: 2\n'), APPLY);
    const r = await f.req('PATCH', `${DEPLOY}/web?fieldManager=autoscaler`, deploymentYaml('spec:\n  replicas: 5\n'), APPLY);
    expect(r.status).toBe(409);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "deployer": .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "deployer"', field: '.spec.replicas' }] },
      code: 409,
    });
    expect(f.store.peek('Deployment', 'default/web')!.spec).toMatchObject({ replicas: 2 });
    // the same value is no conflict: both own it
    expect((await f.req('PATCH', `${DEPLOY}/web?fieldManager=autoscaler`, deploymentYaml('spec:\n  replicas: 2\n'), APPLY)).status).toBe(200);
    const forced = await f.req('PATCH', `${DEPLOY}/web?fieldManager=autoscaler&force=true`, deploymentYaml('spec:\n  replicas: 5\n'), APPLY);
    expect(forced.status).toBe(200);
    expect(forced.json.spec.replicas).toBe(5);
    expect(forced.json.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(['autoscaler']);
    // the former owner now conflicts with the new one
    const back = await f.req('PATCH', `${DEPLOY}/web?fieldManager=deployer`, deploymentYaml('spec:\n  replicas: 2\n'), APPLY);
    expect(back.json.message).toBe('Apply failed with 1 conflict: conflict with "autoscaler": .spec.replicas');
  });

  it('conflicts with an Update manager name it with its apiVersion and time, several conflicts in one message', async () => {
    const f = apiFixture();
    await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=a', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  x: "1"\n  y: "1"\n', APPLY);
    await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=editor', { data: { x: '2', y: '2' } }, MERGE);
    const r = await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=a', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  x: "1"\n  y: "1"\n', APPLY);
    expect(r.status).toBe(409);
    expect(r.json.message).toBe('Apply failed with 2 conflicts: conflicts with "editor" using v1 at 2026-01-01T00:00:00Z:\n- .data.x\n- .data.y');
    expect(r.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['.data.x', '.data.y']);
  });

  it('merges Deployment containers by name and ports by containerPort (listType=map); other lists are atomic', async () => {
    const f = apiFixture();
    await seedDeployment(f);
    const containers = (items: string): string => deploymentYaml(`spec:\n  template:\n    spec:\n      containers:\n${items}`);
    await f.req('PATCH', `${DEPLOY}/web?fieldManager=app`, containers('      - name: app\n        image: app:1\n        args: [a, b]\n        ports:\n        - containerPort: 80\n'), APPLY);
    const r = await f.req('PATCH', `${DEPLOY}/web?fieldManager=mesh`, containers('      - name: proxy\n        image: proxy:1\n'), APPLY);
    expect(r.json.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['app', 'proxy']);
    // the sidecar manager adds a port to the app container; the app manager keeps its own fields
    const p = await f.req('PATCH', `${DEPLOY}/web?fieldManager=mesh`, containers('      - name: proxy\n        image: proxy:1\n      - name: app\n        ports:\n        - containerPort: 15090\n'), APPLY);
    // toMatchObject: the container also carries the server's defaults (imagePullPolicy, port protocols, …), which no manager owns
    expect(p.json.spec.template.spec.containers[0]).toMatchObject({ name: 'app', image: 'app:1', args: ['a', 'b'], ports: [{ containerPort: 80 }, { containerPort: 15090 }] });
    // args is atomic: a different list is a conflict on the whole list
    const a = await f.req('PATCH', `${DEPLOY}/web?fieldManager=mesh`, containers('      - name: app\n        args: [c]\n'), APPLY);
    expect(a.json.message).toBe('Apply failed with 1 conflict: conflict with "app": .spec.template.spec.containers[name="app"].args');
    // the app manager leaves its port out: it goes, the sidecar's port stays
    const d = await f.req('PATCH', `${DEPLOY}/web?fieldManager=app`, containers('      - name: app\n        image: app:2\n        args: [a, b]\n'), APPLY);
    expect(d.json.spec.template.spec.containers[0]).toMatchObject({ name: 'app', image: 'app:2', args: ['a', 'b'], ports: [{ containerPort: 15090 }] });
    // the sidecar manager leaves its container out: it goes
    const m = await f.req('PATCH', `${DEPLOY}/web?fieldManager=mesh`, containers('      - name: app\n        ports:\n        - containerPort: 15090\n'), APPLY);
    expect(m.json.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['app']);
  });

  it('keys ports by port and protocol (TCP by default), as kube-apiserver keys them for apply', async () => {
    const f = apiFixture();
    const svc = (ports: string): string => `apiVersion: v1\nkind: Service\nmetadata:\n  name: dns\nspec:\n  ports:\n${ports}`;
    const r = await f.req('PATCH', '/api/v1/namespaces/default/services/dns?fieldManager=dns', svc('  - {name: dns, port: 53, protocol: UDP}\n  - {name: dns-tcp, port: 53}\n'), APPLY);
    expect(r.json.spec.ports).toEqual([{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }, { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 }]);
    expect(Object.keys(r.json.metadata.managedFields[0].fieldsV1['f:spec']['f:ports'])).toEqual(['k:{"port":53,"protocol":"TCP"}', 'k:{"port":53,"protocol":"UDP"}']);
    const c = await f.req('PATCH', '/api/v1/namespaces/default/services/dns?fieldManager=other', svc('  - {name: renamed, port: 53, protocol: TCP}\n'), APPLY);
    expect(c.json.message).toBe('Apply failed with 1 conflict: conflict with "dns": .spec.ports[port=53,protocol="TCP"].name');
    const gone = await f.req('PATCH', '/api/v1/namespaces/default/services/dns?fieldManager=dns', svc('  - {name: dns, port: 53, protocol: UDP}\n'), APPLY);
    expect(gone.json.spec.ports).toEqual([{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }]);
  });

  it('answers 422 without fieldManager, 400 for a body that is not one object or carries managedFields, and refuses force on other patches', async () => {
    const f = apiFixture();
    const no = await f.req('PATCH', `${DEPLOY}/web`, deploymentYaml('spec:\n  replicas: 1\n'), APPLY);
    expect(no.status).toBe(422);
    expect(no.json).toMatchObject({ reason: 'Invalid', message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', details: { causes: [{ reason: 'FieldValueRequired', field: 'fieldManager' }] } });
    expect((await f.req('PATCH', `${DEPLOY}/web?fieldManager=m`, 'spec:\n  replicas: 1\n', APPLY)).json).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect((await f.req('PATCH', `${DEPLOY}/web?fieldManager=m`, deploymentYaml('  managedFields: []\n'), APPLY)).json).toMatchObject({ code: 400, message: 'metadata.managedFields must be nil' });
    expect((await f.req('PATCH', `${DEPLOY}/other?fieldManager=m`, deploymentYaml(''), APPLY)).json).toMatchObject({ code: 400 });
    await seedDeployment(f);
    await f.req('PATCH', `${DEPLOY}/web?fieldManager=m`, deploymentYaml('spec:\n  replicas: 1\n'), APPLY);
    expect((await f.req('PATCH', `${DEPLOY}/web?force=true`, { spec: { replicas: 2 } }, MERGE)).json).toMatchObject({ code: 422, message: 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch' });
    expect(f.store.peek('Deployment', 'default/web')!.spec).toMatchObject({ replicas: 1 });
  });

  it('a dry-run apply answers with the merged object and its managers, and neither the object nor field ownership changes', async () => {
    const f = apiFixture();
    const created = await f.req('PATCH', `${DEPLOY}/web?fieldManager=m&dryRun=All`, deploymentYaml('spec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: app\n        image: app:1\n'), APPLY);
    expect(created.status).toBe(201);
    expect(created.json.metadata.managedFields.map((e: any) => e.manager)).toEqual(['m']);
    expect(f.store.peek('Deployment', 'default/web')).toBeUndefined();
    await seedDeployment(f);
    await f.req('PATCH', `${DEPLOY}/web?fieldManager=m`, deploymentYaml('spec:\n  replicas: 1\n'), APPLY);
    const before = (await f.req('GET', `${DEPLOY}/web`)).json;
    // another manager taking replicas by force, as a dry run: the answer shows it, the object keeps m's
    const taken = await f.req('PATCH', `${DEPLOY}/web?fieldManager=other&force=true&dryRun=All`, deploymentYaml('spec:\n  replicas: 4\n'), APPLY);
    expect(taken.json.spec.replicas).toBe(4);
    expect(taken.json.metadata.managedFields.map((e: any) => e.manager)).toContain('other');
    expect(taken.json.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect((await f.req('GET', `${DEPLOY}/web`)).json).toEqual(before);
    // so m's next apply still owns replicas: no conflict with a manager that only dry-ran
    expect((await f.req('PATCH', `${DEPLOY}/web?fieldManager=m`, deploymentYaml('spec:\n  replicas: 2\n'), APPLY)).status).toBe(200);
  });

  it("a custom kind's lists its CRD schema declares x-kubernetes-list-type map (or set) are merged item by item: two managers each own their condition", async () => {
    const f = apiFixture();
    const condition = { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } } };
    await f.req(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      gadgetCrd({
        type: 'object',
        properties: {
          spec: { type: 'object', properties: {
            listeners: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'], items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' }, name: { type: 'string' } } } },
            tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
            steps: { type: 'array', items: { type: 'string' } },
          } },
          status: { type: 'object', properties: { conditions: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], items: condition } } },
        },
      }),
    );
    const G = '/apis/example.com/v1/namespaces/default/gadgets';
    const gadget = (body: Record<string, unknown>) => JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, ...body });
    expect((await f.req('PATCH', `${G}/g?fieldManager=a`, gadget({ spec: { listeners: [{ port: 80, protocol: 'TCP', name: 'http' }], tags: ['a'], steps: ['one'] } }), APPLY)).status).toBe(201);
    // b adds its own listener (same port, another protocol) and tag: merged, no conflict
    const b = await f.req('PATCH', `${G}/g?fieldManager=b`, gadget({ spec: { listeners: [{ port: 80, protocol: 'UDP', name: 'dns' }], tags: ['b'] } }), APPLY);
    expect(b.status).toBe(200);
    expect(b.json.spec.listeners).toEqual([{ port: 80, protocol: 'TCP', name: 'http' }, { port: 80, protocol: 'UDP', name: 'dns' }]);
    expect(b.json.spec.tags).toEqual(['a', 'b']);
    // an atomic list (no list type) is one field: another manager's different value conflicts
    expect((await f.req('PATCH', `${G}/g?fieldManager=b`, gadget({ spec: { steps: ['two'] } }), APPLY)).status).toBe(409);
    // two controllers each applying their own condition through /status keep both
    expect((await f.req('PATCH', `${G}/g/status?fieldManager=ready`, gadget({ status: { conditions: [{ type: 'Ready', status: 'True' }] } }), APPLY)).status).toBe(200);
    const synced = await f.req('PATCH', `${G}/g/status?fieldManager=sync`, gadget({ status: { conditions: [{ type: 'Synced', status: 'False', reason: 'Pending' }] } }), APPLY);
    expect(synced.status).toBe(200);
    expect(synced.json.status.conditions).toEqual([{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False', reason: 'Pending' }]);
    const owned = synced.json.metadata.managedFields.find((e: any) => e.manager === 'sync');
    expect(owned.fieldsV1).toEqual({ 'f:status': { 'f:conditions': { 'k:{"type":"Synced"}': { '.': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } } } });
    // and a manager that stops applying its condition removes only it
    const dropped = await f.req('PATCH', `${G}/g/status?fieldManager=ready`, gadget({ status: { conditions: [] } }), APPLY);
    expect(dropped.json.status.conditions).toEqual([{ type: 'Synced', status: 'False', reason: 'Pending' }]);
  });

  it('applies status through /status only (a custom kind); the main resource ignores status', async () => {
    const f = apiFixture({ resources: [webAppResource] });
    const base = '/apis/example.com/v1/namespaces/default/webapps';
    const doc = (rest: string): string => `apiVersion: example.com/v1\nkind: WebApp\nmetadata:\n  name: w\n${rest}`;
    expect((await f.req('PATCH', `${base}/w/status?fieldManager=ctl`, doc('status:\n  ready: true\n'), APPLY)).status).toBe(404);
    const created = await f.req('PATCH', `${base}/w?fieldManager=user`, doc('spec:\n  replicas: 1\nstatus:\n  ready: true\n'), APPLY);
    expect(created.json).not.toHaveProperty('status');
    const s = await f.req('PATCH', `${base}/w/status?fieldManager=ctl`, doc('spec:\n  replicas: 9\nstatus:\n  ready: true\n  observedGeneration: 1\n'), APPLY);
    expect(s.json).toMatchObject({ spec: { replicas: 1 }, status: { ready: true, observedGeneration: 1 } });
    expect(s.json.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'ctl', operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:observedGeneration': {}, 'f:ready': {} } } }),
      expect.objectContaining({ manager: 'user', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }),
    ]);
    const again = await f.req('PATCH', `${base}/w/status?fieldManager=ctl`, doc('status:\n  ready: false\n'), APPLY);
    expect(again.json.status).toEqual({ ready: false });
  });

  it('an apply that would create a workload without its required fields is refused (422), as a real cluster refuses it', async () => {
    const f = apiFixture();
    const r = await f.req('PATCH', `${DEPLOY}/web?fieldManager=annotator`, deploymentYaml('  annotations:\n    example.com/hash: abc\n'), APPLY);
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', message: 'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.spec.containers: Required value]', details: { causes: [{ field: 'spec.selector' }, { field: 'spec.template.spec.containers' }] } });
    expect(f.store.peek('Deployment', 'default/web')).toBeUndefined();
    const pod = await f.req('PATCH', '/api/v1/namespaces/default/pods/p?fieldManager=m', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n', APPLY);
    expect(pod.json.message).toBe('Pod "p" is invalid: spec.containers[0].image: Required value');
    // a partial apply of an existing object is fine
    await f.req('POST', DEPLOY, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'a' }] } } } });
    expect((await f.req('PATCH', `${DEPLOY}/web?fieldManager=annotator`, deploymentYaml('  annotations:\n    example.com/hash: abc\n'), APPLY)).status).toBe(200);
  });

  it('a watch sees managedFields on the event of the apply that created the object', async () => {
    const f = apiFixture();
    const res = await f.api.handle(new Request('http://kube.test/api/v1/namespaces/default/configmaps?watch=true'));
    const reader = res.body!.getReader();
    await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=m', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n', APPLY);
    f.host.advance(1_000);
    const { value } = await reader.read();
    const event = JSON.parse(new TextDecoder().decode(value).split('\n')[0]!);
    expect(event).toMatchObject({ type: 'ADDED', object: { metadata: { managedFields: [{ manager: 'm', operation: 'Apply' }] } } });
    await reader.cancel();
  });

  it('an object deleted and created again (a new uid) starts with no managers', async () => {
    const f = apiFixture();
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n';
    await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=a', cm, APPLY);
    await f.req('DELETE', '/api/v1/namespaces/default/configmaps/c');
    await f.req('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '2' } });
    expect((await f.req('GET', '/api/v1/namespaces/default/configmaps/c')).json.metadata).not.toHaveProperty('managedFields');
    expect((await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=b', cm, APPLY)).status).toBe(200);
  });
});
