import { describe, expect, it } from 'vitest';
import { apiFixture, configMap } from './kube-helpers.js';

/*
 * The API server's answers where kube-apiserver's differ from a plain object store (red team
 * rt44): status of a custom resource without the status subresource, unconditional updates of
 * custom resources, ownerReferences without apiVersion, label values.
 */
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const widgetResource = { group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', statusSubresource: false };
const widget = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 1 }, ...extra });

describe('kube-rest: what kube-apiserver does that a plain store does not', () => {
  it('serves metadata.generation only for kinds whose strategy keeps one (workloads, custom resources), not a ConfigMap, Secret, Service or Pod (1.32)', async () => {
    const f = apiFixture({ resources: [widgetResource] });
    const ns = '/api/v1/namespaces/default';
    const none = [
      await f.req('POST', `${ns}/configmaps`, configMap('c')),
      await f.req('POST', `${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } }),
      await f.req('POST', `${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } }),
      await f.req('POST', `${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } }),
    ];
    for (const r of none) {
      expect(r.status).toBe(201);
      expect(r.json.metadata).not.toHaveProperty('generation');
    }
    // nor after an update, a list or a watch event
    const cm = await f.req('PUT', `${ns}/configmaps/c`, { ...none[0]!.json, data: { x: '2' } });
    expect(cm.json.metadata).not.toHaveProperty('generation');
    expect((await f.req('GET', `${ns}/configmaps`)).json.items[0].metadata).not.toHaveProperty('generation');
    const dep = await f.req('POST', '/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } } } });
    expect(dep.json.metadata.generation).toBe(1);
    expect((await f.req('POST', WIDGETS, widget('w'))).json.metadata.generation).toBe(1);
  });

  it('stores status sent through the main resource of a kind without /status (PUT, merge patch, apply), bumping generation', async () => {
    const f = apiFixture({ resources: [widgetResource] });
    const created = (await f.req('POST', WIDGETS, widget('w'))).json;
    const put = await f.req('PUT', `${WIDGETS}/w`, { ...created, status: { size: 1 } });
    expect(put.json.status).toEqual({ size: 1 });
    expect(put.json.metadata.generation).toBe(2);
    const patched = await f.req('PATCH', `${WIDGETS}/w`, { status: { observedGeneration: 2 } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.json.status).toEqual({ observedGeneration: 2, size: 1 });
    expect(patched.json.metadata.generation).toBe(3);
    const applied = await f.req('PATCH', `${WIDGETS}/w?fieldManager=m`, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, status: { ready: true } }, { 'content-type': 'application/apply-patch+yaml' });
    expect(applied.json.status).toMatchObject({ ready: true });
  });

  it('refuses an unconditional PUT of a custom resource (422), and takes it for a ConfigMap', async () => {
    const f = apiFixture({ resources: [widgetResource] });
    await f.req('POST', WIDGETS, widget('w'));
    const put = await f.req('PUT', `${WIDGETS}/w`, widget('w', { spec: { size: 2 } }));
    expect(put.json).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(put.json.message).toMatch(/metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
    await f.req('POST', '/api/v1/namespaces/default/configmaps', configMap('a'));
    expect((await f.req('PUT', '/api/v1/namespaces/default/configmaps/a', configMap('a', { v: '2' }))).status).toBe(200);
  });

  it("refuses an unconditional PUT of a custom resource's /status too (422; red team rt48 U-1)", async () => {
    const f = apiFixture({ resources: [{ ...widgetResource, statusSubresource: true }] });
    const made = (await f.req('POST', WIDGETS, widget('w'))).json;
    const put = await f.req('PUT', `${WIDGETS}/w/status`, widget('w', { status: { size: 1 } }));
    expect(put.json).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(put.json.message).toMatch(/metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
    const ok = await f.req('PUT', `${WIDGETS}/w/status`, { ...made, status: { size: 1 } });
    expect([ok.status, ok.json.status]).toEqual([200, { size: 1 }]);
  });

  it('refuses a new ownerReference without apiVersion, and a label value with "/" (422)', async () => {
    const f = apiFixture();
    const noVersion = await f.req('POST', '/api/v1/namespaces/default/configmaps', configMap('a', {}, { metadata: { ownerReferences: [{ kind: 'App', name: 'x', uid: 'u1' }] } }));
    expect(noVersion.json).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(noVersion.json.message).toMatch(/metadata\.ownerReferences\.apiVersion: Invalid value: "": version must not be empty/);
    const label = await f.req('POST', '/api/v1/namespaces/default/configmaps', configMap('b', {}, { metadata: { labels: { image: 'web:1.2/x' } } }));
    expect(label.json).toMatchObject({ reason: 'Invalid', code: 422 });
  });

  it('answers a create into a namespace nobody created as NamespaceLifecycle does: 404 naming the namespace', async () => {
    const f = apiFixture();
    f.store.seedNamespaces(['default']);
    const r = await f.req('POST', '/api/v1/namespaces/apps-web/configmaps', configMap('settings'));
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, message: 'namespaces "apps-web" not found', details: { name: 'apps-web', kind: 'namespaces' } });
    expect((await f.req('POST', '/api/v1/namespaces/default/configmaps', configMap('settings'))).status).toBe(201);
  });
});
