import { describe, expect, it } from 'vitest';
import { apiFixture, configMap, webAppResource } from './kube-helpers.js';

/**
 * The REST API serves every top-level field as written (issue 11 item 6): ConfigMap `data`,
 * `binaryData`, `immutable`; Secret `type` and `data` with `stringData` merged in on write; RBAC
 * `rules`, `subjects`, `roleRef`. The native store and the API see the same objects.
 */
const CMS = '/api/v1/namespaces/default/configmaps';
const SECRETS = '/api/v1/namespaces/default/secrets';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

describe('kube-rest: every top-level field', () => {
  it('a ConfigMap keeps data, binaryData and immutable, stored at the top level and served without a spec', async () => {
    const f = apiFixture();
    const r = await f.req('POST', CMS, configMap('app', { 'app.conf': 'x=1' }, { binaryData: { logo: 'iVBORw==' }, immutable: false }));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ data: { 'app.conf': 'x=1' }, binaryData: { logo: 'iVBORw==' }, immutable: false });
    expect(r.json).not.toHaveProperty('spec');
    expect(f.store.peek('ConfigMap', 'default/app')!.data).toEqual({ 'app.conf': 'x=1' });
    const got = (await f.req('GET', `${CMS}/app`)).json;
    expect(got.binaryData).toEqual({ logo: 'iVBORw==' });
  });

  it('PUT replaces the data, merge and JSON patches change single entries', async () => {
    const f = apiFixture();
    const created = (await f.req('POST', CMS, configMap('app', { a: '1', b: '2' }))).json;
    const put = await f.req('PUT', `${CMS}/app`, { ...created, data: { a: '1', c: '3' } });
    expect(put.json.data).toEqual({ a: '1', c: '3' });
    const merge = await f.req('PATCH', `${CMS}/app`, { data: { a: null, d: '4' } }, { 'content-type': 'application/merge-patch+json' });
    expect(merge.json.data).toEqual({ c: '3', d: '4' });
    const json = await f.req('PATCH', `${CMS}/app`, [{ op: 'replace', path: '/data/c', value: '30' }], { 'content-type': 'application/json-patch+json' });
    expect(json.json.data).toEqual({ c: '30', d: '4' });
    const smp = await f.req('PATCH', `${CMS}/app`, { data: { e: '5' } }, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(f.store.peek('ConfigMap', 'default/app')!.data).toEqual({ c: '30', d: '4', e: '5' });
    expect(smp.status).toBe(200);
  });

  it('a Secret keeps its type; stringData lands base64-encoded in data and is never served', async () => {
    const f = apiFixture();
    const r = await f.req('POST', SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, type: 'kubernetes.io/basic-auth', stringData: { username: 'admin' } });
    expect(r.json).toMatchObject({ type: 'kubernetes.io/basic-auth', data: { username: 'YWRtaW4=' } });
    expect(r.json).not.toHaveProperty('stringData');
    const patched = await f.req('PATCH', `${SECRETS}/db`, { stringData: { password: 'pw' } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.json.data).toEqual({ username: 'YWRtaW4=', password: 'cHc=' });
    expect(f.store.peek('Secret', 'default/db')!.data).toEqual({ username: 'YWRtaW4=', password: 'cHc=' });
  });

  it('RBAC Role, RoleBinding, ClusterRole and ClusterRoleBinding keep rules, subjects and roleRef', async () => {
    const f = apiFixture();
    const rules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }];
    const role = await f.req('POST', `${RBAC}/namespaces/team-a/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'dev' }, rules });
    expect(role.status).toBe(201);
    expect(role.json.rules).toEqual(rules);
    const binding = { subjects: [{ kind: 'Group', name: 'team-a', apiGroup: 'rbac.authorization.k8s.io' }], roleRef: { kind: 'Role', name: 'dev', apiGroup: 'rbac.authorization.k8s.io' } };
    const rb = await f.req('POST', `${RBAC}/namespaces/team-a/rolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'dev' }, ...binding });
    expect(rb.json).toMatchObject(binding);
    const cr = await f.req('POST', `${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'viewer' }, rules });
    expect(cr.json.metadata).not.toHaveProperty('namespace');
    const crb = await f.req('POST', `${RBAC}/clusterrolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'viewers' }, ...binding });
    expect(crb.json.roleRef).toEqual(binding.roleRef);
    expect((await f.req('GET', `${RBAC}/namespaces/team-a/roles/dev`)).json.rules).toEqual(rules);
  });

  it('an object written by the native store is served with its top-level fields', async () => {
    const f = apiFixture();
    f.store.create('ctl', { kind: 'ConfigMap', metadata: { namespace: 'default', name: 'native' }, data: { k: 'v' }, immutable: true });
    const got = (await f.req('GET', `${CMS}/native`)).json;
    expect(got).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' }, immutable: true });
  });
});

describe('kube-rest: MicroTime fields are decoded as kube-apiserver decodes them', () => {
  const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
  const lease = (renewTime: unknown) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime } });

  it("a Lease's renewTime with six fractional digits (client-node's V1MicroTime) is accepted; a plain Date's three digits are refused with 400, as a real cluster refuses them", async () => {
    const f = apiFixture();
    const ok = await f.req('POST', LEASES, lease('2026-01-01T00:00:00.123000Z'));
    expect(ok.status).toBe(201);
    expect(ok.json.spec.renewTime).toBe('2026-01-01T00:00:00.123000Z');
    const bad = await f.req('POST', LEASES, { ...lease('2026-01-01T00:00:00.123Z'), metadata: { name: 'other' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(bad.json.message).toContain('Lease in version "v1" cannot be handled as a Lease: parsing time "2026-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"');
    expect(f.store.peek('Lease', 'default/other')).toBeUndefined();
    // an update and a patch are decoded the same way; null and a missing field are fine
    const put = await f.req('PUT', `${LEASES}/leader`, { ...ok.json, spec: { ...ok.json.spec, renewTime: '2026-01-01T00:00:02Z' } });
    expect(put.status).toBe(400);
    const patch = await f.req('PATCH', `${LEASES}/leader`, { spec: { acquireTime: '2026-01-01T00:00:02.5Z' } }, { 'content-type': 'application/merge-patch+json' });
    expect(patch.status).toBe(400);
    const cleared = await f.req('PATCH', `${LEASES}/leader`, { spec: { renewTime: null, acquireTime: '2026-01-01T00:00:02.500000+01:00' } }, { 'content-type': 'application/merge-patch+json' });
    expect(cleared.status).toBe(200);
  });

  it("a core Event's eventTime is a MicroTime too; its firstTimestamp (a metav1.Time) takes any RFC 3339 time", async () => {
    const f = apiFixture();
    const ev = (name: string, extra: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'ConfigMap', name: 'app', namespace: 'default' }, reason: 'Synced', message: 'ok', ...extra });
    expect((await f.req('POST', '/api/v1/namespaces/default/events', ev('a', { firstTimestamp: '2026-01-01T00:00:00.123Z' }))).status).toBe(201);
    expect((await f.req('POST', '/api/v1/namespaces/default/events', ev('b', { eventTime: '2026-01-01T00:00:00.123Z', reportingComponent: 'example.com/app', reportingInstance: 'app-0', action: 'Sync' }))).status).toBe(400);
    // an Event with eventTime names its reporter and action (legacyValidateEvent)
    expect((await f.req('POST', '/api/v1/namespaces/default/events', ev('c', { eventTime: '2026-01-01T00:00:00.123456Z', reportingComponent: 'example.com/app', reportingInstance: 'app-0', action: 'Sync' }))).status).toBe(201);
  });
});

/**
 * What kube-apiserver leaves out (rt45 R-1): a custom resource created without a status has none
 * until /status is written, and an empty ConfigMap or Secret map is omitted (Go's omitempty), so
 * a JSON patch adding under them is a 422 ("doc is missing path"), the first-deploy failure of
 * operators that patch status with `add /status/field`.
 */
describe('kube-rest: empty fields left out', () => {
  const JSONP = { 'content-type': 'application/json-patch+json' };
  const WEBAPPS = '/apis/example.com/v1/namespaces/default/webapps';
  it('a custom resource without a status has none on the wire; adding under /status is a 422, adding /status works', async () => {
    const f = apiFixture({ resources: [webAppResource] });
    const created = await f.req('POST', WEBAPPS, { apiVersion: 'example.com/v1', kind: 'WebApp', metadata: { name: 'w' }, spec: { replicas: 1 } });
    expect(created.json).not.toHaveProperty('status');
    expect((await f.req('PATCH', `${WEBAPPS}/w/status`, [{ op: 'add', path: '/status/observedGeneration', value: 1 }], JSONP)).status).toBe(422);
    const whole = await f.req('PATCH', `${WEBAPPS}/w/status`, [{ op: 'add', path: '/status', value: { observedGeneration: 1 } }], JSONP);
    expect(whole.status).toBe(200);
    expect(whole.json.status).toEqual({ observedGeneration: 1 });
  });
  it('an empty ConfigMap has no data on the wire; adding /data/k is a 422', async () => {
    const f = apiFixture();
    const created = await f.req('POST', CMS, configMap('e', {}));
    expect(created.json).not.toHaveProperty('data');
    expect((await f.req('PATCH', `${CMS}/e`, [{ op: 'add', path: '/data/k', value: 'v' }], JSONP)).status).toBe(422);
  });
});
