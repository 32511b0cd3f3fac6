import { describe, expect, it } from 'vitest';
import { apiFixture, webAppResource } from './kube-helpers.js';

describe('createKubeApi: discovery', () => {
  it('serves /api, /apis and the resource lists with status subresources', async () => {
    const f = apiFixture();
    expect((await f.req('GET', '/api')).json).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const groups = (await f.req('GET', '/apis')).json;
    expect(groups.kind).toBe('APIGroupList');
    expect(groups.groups.map((g: { name: string }) => g.name)).toEqual(expect.arrayContaining(['apps', 'coordination.k8s.io', 'apiextensions.k8s.io']));
    const core = (await f.req('GET', '/api/v1')).json;
    expect(core).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    const names = core.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual(expect.arrayContaining(['pods', 'pods/status', 'configmaps', 'secrets', 'services', 'namespaces', 'events']));
    expect(core.resources.find((r: { name: string }) => r.name === 'pods')).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'] });
    expect(core.resources.find((r: { name: string }) => r.name === 'namespaces')).toMatchObject({ namespaced: false });
    const apps = (await f.req('GET', '/apis/apps/v1')).json;
    expect(apps.resources.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['deployments', 'deployments/status', 'replicasets']));
    expect((await f.req('GET', '/apis/apps')).json).toMatchObject({ kind: 'APIGroup', name: 'apps', preferredVersion: { groupVersion: 'apps/v1' } });
    expect((await f.req('GET', '/apis/coordination.k8s.io/v1')).json.resources.map((r: { name: string }) => r.name)).toEqual(['leases']);
  });

  it('serves /version, /openapi/v2, /openapi/v3 and health checks', async () => {
    const f = apiFixture();
    expect((await f.req('GET', '/version')).json).toMatchObject({ major: '1', minor: '32' });
    expect((await f.req('GET', '/openapi/v2')).json).toMatchObject({ swagger: '2.0' });
    const root = (await f.req('GET', '/openapi/v3')).json;
    expect(root.paths['api/v1'].serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=/);
    const doc = (await f.req('GET', '/openapi/v3/apis/apps/v1')).json;
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(patch.parameters).toContainEqual(expect.objectContaining({ name: 'fieldValidation', in: 'query' }));
    expect((await f.req('GET', '/healthz')).json).toBe('ok');
  });

  it('answers unknown paths and resources with a NotFound Status', async () => {
    const f = apiFixture();
    for (const path of ['/nope', '/apis/nope.io/v1', '/api/v1/namespaces/default/widgets', '/api/v1/namespaces/default/pods/p/log']) {
      const r = await f.req('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
    }
  });

  it('serves custom kinds registered up front', async () => {
    const f = apiFixture({ resources: [webAppResource] });
    const list = (await f.req('GET', '/apis/example.com/v1')).json;
    expect(list.resources.map((r: { name: string }) => r.name)).toEqual(['webapps', 'webapps/status']);
    expect((await f.req('GET', '/apis/example.com/v1/namespaces/default/webapps')).json).toMatchObject({ kind: 'WebAppList', items: [] });
  });

  it('serves the kind of a CustomResourceDefinition once it is created, and marks it Established', async () => {
    const f = apiFixture();
    expect((await f.req('GET', '/apis/example.com/v1/namespaces/default/widgets')).status).toBe(404);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets', shortNames: ['wd'] }, versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} } }] },
    };
    const created = await f.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(created.status).toBe(201);
    expect(created.json.status.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    const disc = (await f.req('GET', '/apis/example.com/v1')).json;
    expect(disc.resources).toContainEqual(expect.objectContaining({ name: 'widgets', kind: 'Widget', shortNames: ['wd'] }));
    const w = await f.req('POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 2 } });
    expect(w.status).toBe(201);
    expect(w.json).toMatchObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 2 } });
    expect(f.store.peek('Widget', 'default/w1')).toBeDefined();
  });
});
