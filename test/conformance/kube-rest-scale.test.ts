import { AppsV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/sim/clock.js';
import { ObjectStore, type WriteRecord } from '../../src/store/store.js';
import { createKubeApi } from '../../src/kube-rest/kube-api.js';
import { kubeconfigFor } from '../../src/kube-rest/kubeconfig.js';
import { KUBE_BASE_URL, kubeRestHandlers } from '../../src/kube-rest/msw.js';
import { apiFixture } from './kube-helpers.js';

/**
 * `{deployments,replicasets,statefulsets}/{name}/scale` and a CRD's scale subresource, as
 * kube-apiserver's ScaleREST serves them (red team round 10 S-1: they were 404, so an autoscaler
 * scaling through them did nothing), and `@kubernetes/client-node` 1.4's typed scale calls.
 */
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const deployment = (name: string, replicas = 2) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'app:1' }] } } },
});
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('createKubeApi: the scale subresource (red team round 10 S-1)', () => {
  it('GET is the Deployment as an autoscaling/v1 Scale; PUT and PATCH (merge, JSON, strategic) change only spec.replicas, as the caller\'s writes of the Deployment', async () => {
    const f = apiFixture();
    const created = (await f.req('POST', DEPLOYS, deployment('web'))).json;
    const got = await f.req('GET', `${DEPLOYS}/web/scale`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'default', uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion, creationTimestamp: created.metadata.creationTimestamp },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=web' },
    });
    f.writes.length = 0;
    const put = await f.req('PUT', `${DEPLOYS}/web/scale`, { ...got.json, spec: { replicas: 3 } });
    expect(put.status).toBe(200);
    expect(put.json.spec).toEqual({ replicas: 3 });
    expect(Number(put.json.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    expect((await f.req('PATCH', `${DEPLOYS}/web/scale`, { spec: { replicas: 4 } }, MERGE)).json.spec).toEqual({ replicas: 4 });
    expect((await f.req('PATCH', `${DEPLOYS}/web/scale`, [{ op: 'replace', path: '/spec/replicas', value: 5 }], { 'content-type': 'application/json-patch+json' })).json.spec).toEqual({ replicas: 5 });
    expect((await f.req('PATCH', `${DEPLOYS}/web/scale`, { spec: { replicas: 6 } }, { 'content-type': 'application/strategic-merge-patch+json' })).json.spec).toEqual({ replicas: 6 });
    const d = (await f.req('GET', `${DEPLOYS}/web`)).json;
    expect(d.spec.replicas).toBe(6);
    expect(d.metadata.generation).toBe(5);
    expect(f.writes.map((w) => `${w.actor} ${w.verb} ${w.kind} ${w.changed.join(',')}`)).toEqual(['user update Deployment spec.replicas', ...Array(3).fill('user patch Deployment spec.replicas')]);
  });

  it('409 for a stale resourceVersion, 422 naming the Scale for negative replicas, 400 for a wrong name or replicas of the wrong type, 404 for a missing Deployment, 405 for DELETE', async () => {
    const f = apiFixture();
    const rv = (await f.req('POST', DEPLOYS, deployment('web'))).json.metadata.resourceVersion;
    await f.req('PATCH', `${DEPLOYS}/web`, { metadata: { labels: { x: 'y' } } }, MERGE);
    const stale = await f.req('PUT', `${DEPLOYS}/web/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default', resourceVersion: rv }, spec: { replicas: 0 } });
    expect(stale.json).toMatchObject({ reason: 'Conflict', code: 409, message: 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again' });
    const negative = await f.req('PATCH', `${DEPLOYS}/web/scale`, { spec: { replicas: -1 } }, MERGE);
    expect(negative.json).toMatchObject({
      reason: 'Invalid',
      code: 422,
      message: 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      details: { name: 'web', group: 'autoscaling', kind: 'Scale', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' }] },
    });
    expect((await f.req('PUT', `${DEPLOYS}/web/scale`, { metadata: { name: 'other' }, spec: { replicas: 1 } })).json).toMatchObject({ code: 400, message: 'the name of the object (other) does not match the name on the URL (web)' });
    expect((await f.req('PATCH', `${DEPLOYS}/web/scale`, { spec: { replicas: '3' } }, MERGE)).status).toBe(400);
    expect((await f.req('GET', `${DEPLOYS}/nope/scale`)).json).toMatchObject({ code: 404, message: 'deployments.apps "nope" not found' });
    expect((await f.req('DELETE', `${DEPLOYS}/web/scale`)).status).toBe(405);
    expect((await f.req('GET', '/api/v1/namespaces/default/configmaps/x/scale')).status).toBe(404);
    expect(f.store.peek('Deployment', 'default/web')!.spec['replicas']).toBe(2);
  });

  it('the HTTP fault seams see a Scale write as a write of the Deployment: a conflict decision makes a real concurrent write first, so a conditional PUT of the Scale answers 409', async () => {
    const seen: string[] = [];
    let conflict = false;
    const f = apiFixture({ hooks: { onRequest: (i) => (seen.push(`${i.verb} ${i.kind} ${i.subresource ?? ''}`), conflict ? { type: 'conflict' } : undefined) } });
    await f.req('POST', DEPLOYS, deployment('web'));
    const scale = (await f.req('GET', `${DEPLOYS}/web/scale`)).json;
    conflict = true;
    expect((await f.req('PUT', `${DEPLOYS}/web/scale`, { ...scale, spec: { replicas: 3 } })).status).toBe(409);
    expect(seen).toEqual(['create Deployment ', 'get Deployment scale', 'update Deployment scale']);
    expect(f.writes.slice(-2).map((w) => `${w.actor} ${w.kind} ${w.error ?? w.changed.join(',')}`)).toEqual(['fault:api-conflict Deployment metadata.annotations.steadystate.dev/concurrent-writes', 'user Deployment Conflict']);
  });

  it('a Scale write of an applied Deployment takes spec.replicas from its applier, as an Update entry with subresource scale: a re-apply of other replicas conflicts with it', async () => {
    const f = apiFixture();
    const apply = { 'content-type': 'application/apply-patch+yaml' };
    expect((await f.req('PATCH', `${DEPLOYS}/web?fieldManager=deployer`, deployment('web', 2), apply)).status).toBe(201);
    expect((await f.req('PATCH', `${DEPLOYS}/web/scale?fieldManager=keda`, { spec: { replicas: 5 } }, MERGE)).status).toBe(200);
    const d = (await f.req('GET', `${DEPLOYS}/web`)).json;
    expect(d.metadata.managedFields.find((e: { manager: string }) => e.manager === 'keda')).toMatchObject({ operation: 'Update', apiVersion: 'apps/v1', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    const conflict = await f.req('PATCH', `${DEPLOYS}/web?fieldManager=deployer`, deployment('web', 2), apply);
    expect(conflict.json).toMatchObject({ code: 409, message: expect.stringMatching(/^Apply failed with 1 conflict: conflict with "keda" with subresource "scale" using apps\/v1 at .*: \.spec\.replicas$/) });
  });

  it('discovery lists the scale subresources as kube does; a CRD with subresources.scale is served at its paths', async () => {
    const f = apiFixture();
    const apps = (await f.req('GET', '/apis/apps/v1')).json.resources as { name: string }[];
    for (const plural of ['deployments', 'replicasets', 'statefulsets']) {
      expect(apps.find((r) => r.name === `${plural}/scale`)).toEqual({ name: `${plural}/scale`, singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    }
    await f.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'workers.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Worker', plural: 'workers' }, versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.ready' } } }] },
    });
    const crd = (await f.req('GET', '/apis/example.com/v1')).json.resources as { name: string }[];
    expect(crd.map((r) => r.name)).toEqual(['workers', 'workers/status', 'workers/scale']);
    await f.req('POST', '/apis/example.com/v1/namespaces/default/workers', { apiVersion: 'example.com/v1', kind: 'Worker', metadata: { name: 'w' }, spec: { size: 1 } });
    expect((await f.req('PATCH', '/apis/example.com/v1/namespaces/default/workers/w/scale', { spec: { replicas: 7 } }, MERGE)).json.spec).toEqual({ replicas: 7 });
    expect(f.store.peek('Worker', 'default/w')!.spec).toEqual({ size: 7 });
  });
});

describe('@kubernetes/client-node 1.4 over msw: AppsV1Api scale calls', () => {
  const store = new ObjectStore({ clock: new VirtualClock(), onWrite: (w) => writes.push(w) });
  const writes: WriteRecord[] = [];
  const api = createKubeApi({ store });
  const server = setupServer(...kubeRestHandlers(api));
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigFor({ server: KUBE_BASE_URL, token: api.issueToken('controller:autoscaler/0') }));
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it('readNamespacedDeploymentScale, replaceNamespacedDeploymentScale (409 when stale) and patchNamespacedDeploymentScale (JSON and merge patches)', async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: 'default', body: deployment('web') });
    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: 'default' });
    expect(scale.spec?.replicas).toBe(2);
    expect(scale.status?.selector).toBe('app=web');
    const replaced = await apps.replaceNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { ...scale, spec: { replicas: 3 } } });
    expect(replaced.spec?.replicas).toBe(3);
    expect(await apps.replaceNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { ...scale, spec: { replicas: 9 } } }).catch((e: unknown) => e)).toMatchObject({ code: 409 });
    const jsonPatched = await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: [{ op: 'replace', path: '/spec/replicas', value: 4 }] });
    expect(jsonPatched.spec?.replicas).toBe(4);
    const merged = await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { spec: { replicas: 1 } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    expect(merged.spec?.replicas).toBe(1);
    expect(store.peek('Deployment', 'default/web')!.spec['replicas']).toBe(1);
    expect(writes.filter((w) => w.kind === 'Deployment' && w.verb !== 'create').map((w) => `${w.actor} ${w.verb} ${w.error ?? w.changed.join(',')}`)).toEqual([
      'controller:autoscaler/0 update spec.replicas',
      'controller:autoscaler/0 update Conflict',
      'controller:autoscaler/0 patch spec.replicas',
      'controller:autoscaler/0 patch spec.replicas',
    ]);
  });
});
