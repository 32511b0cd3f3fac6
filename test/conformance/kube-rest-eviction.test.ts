import { describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './kube-helpers.js';

/**
 * POST `pods/{name}/eviction` as kube-apiserver answers it (red team round 9 E-1: it was 404, so
 * every drain tool, cluster-autoscaler and descheduler met an error no cluster gives), and
 * PodDisruptionBudgets served at policy/v1.
 */
const PODS = '/api/v1/namespaces/default/pods';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'app:1' }] } });
const eviction = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, ...extra });

/** Ready Running Pods and a budget over them whose status allows `allowed` disruptions. */
async function world(f: ApiFixture, names: string[], allowed: number): Promise<void> {
  for (const n of names) {
    await f.req('POST', PODS, pod(n));
    f.store.patch('environment:pod-lifecycle', 'Pod', { namespace: 'default', name: n }, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
  }
  const created = await f.req('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: names.length - allowed, selector: { matchLabels: { app: 'web' } } } });
  expect(created.status).toBe(201);
  f.store.patch('environment:disruption', 'PodDisruptionBudget', { namespace: 'default', name: 'web' }, { status: { observedGeneration: 1, currentHealthy: names.length, desiredHealthy: names.length - allowed, expectedPods: names.length, disruptionsAllowed: allowed } }, { subresource: 'status' });
}

describe('createKubeApi: evicting a Pod (red team round 9 E-1)', () => {
  it('201 with a success Status and the Pod gone; the next eviction on the decremented budget is 429 with a DisruptionBudget cause', async () => {
    const f = apiFixture();
    await world(f, ['web-0', 'web-1', 'web-2'], 1);
    const r = await f.req('POST', `${PODS}/web-0/eviction`, eviction('web-0'));
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await f.req('GET', `${PODS}/web-0`)).status).toBe(404);
    const pdb = (await f.req('GET', `${PDBS}/web`)).json;
    expect(pdb.status).toMatchObject({ disruptionsAllowed: 0, disruptedPods: { 'web-0': expect.any(String) } });
    const refused = await f.req('POST', `${PODS}/web-1/eviction`, eviction('web-1'));
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 3 currently' }] },
      code: 429,
    });
    expect(refused.headers.get('retry-after')).toBeNull();
    expect((await f.req('GET', `${PODS}/web-1`)).status).toBe(200);
  });

  it('429 with Retry-After: 10 while the budget is being processed; 500 (a Status without reason) for two budgets; 404 for a missing Pod', async () => {
    const f = apiFixture();
    await world(f, ['web-0'], 1);
    await f.req('PATCH', `${PDBS}/web`, { spec: { minAvailable: 1 } }, { 'content-type': 'application/merge-patch+json' });
    const busy = await f.req('POST', `${PODS}/web-0/eviction`, eviction('web-0'));
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('10');
    expect(busy.json.details).toEqual({ causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }], retryAfterSeconds: 10 });
    await f.req('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'all' }, spec: { maxUnavailable: 1, selector: {} } });
    const two = await f.req('POST', `${PODS}/web-0/eviction`, eviction('web-0'));
    expect(two.status).toBe(500);
    expect(two.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
    const missing = await f.req('POST', `${PODS}/nope/eviction`, eviction('nope'));
    expect(missing.json).toMatchObject({ reason: 'NotFound', message: 'pods "nope" not found', code: 404 });
  });

  it('a dry-run eviction (deleteOptions.dryRun or ?dryRun=All) is checked against the budget and answered, and evicts nothing', async () => {
    const f = apiFixture();
    await world(f, ['web-0', 'web-1'], 1);
    const budget = (await f.req('GET', `${PDBS}/web`)).json;
    expect((await f.req('POST', `${PODS}/web-0/eviction`, eviction('web-0', { deleteOptions: { dryRun: ['All'] } }))).status).toBe(201);
    expect((await f.req('POST', `${PODS}/web-0/eviction?dryRun=All`, eviction('web-0'))).status).toBe(201);
    expect(f.store.peek('Pod', 'default/web-0')).toBeDefined();
    expect((await f.req('GET', `${PDBS}/web`)).json).toEqual(budget);
    // a real eviction takes the one disruption; a dry run after it is refused as the eviction would be
    expect((await f.req('POST', `${PODS}/web-0/eviction`, eviction('web-0'))).status).toBe(201);
    expect((await f.req('POST', `${PODS}/web-1/eviction?dryRun=All`, eviction('web-1'))).status).toBe(429);
    expect(f.store.peek('Pod', 'default/web-1')).toBeDefined();
  });

  it('400 for a name other than the URL\'s or another kind; 405 for GET; discovery lists pods/eviction and poddisruptionbudgets', async () => {
    const f = apiFixture();
    await f.req('POST', PODS, pod('web-0'));
    expect((await f.req('POST', `${PODS}/web-0/eviction`, eviction('other'))).json).toMatchObject({ code: 400, message: 'name in URL does not match name in Eviction object' });
    expect((await f.req('POST', `${PODS}/web-0/eviction`, { ...eviction('web-0'), kind: 'Binding' })).status).toBe(400);
    expect((await f.req('GET', `${PODS}/web-0/eviction`)).status).toBe(405);
    expect(f.store.peek('Pod', 'default/web-0')).toBeDefined();
    // a Pending Pod (no kubelet here) is evicted without a budget check; a v1beta1 Eviction is accepted
    expect((await f.req('POST', `${PODS}/web-0/eviction`, { ...eviction('web-0'), apiVersion: 'policy/v1beta1' })).status).toBe(201);
    const core = (await f.req('GET', '/api/v1')).json.resources as { name: string; kind: string; group?: string; version?: string; verbs: string[] }[];
    expect(core.find((r) => r.name === 'pods/eviction')).toEqual({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    const policy = (await f.req('GET', '/apis/policy/v1')).json.resources as { name: string }[];
    expect(policy.map((r) => r.name)).toEqual(['poddisruptionbudgets', 'poddisruptionbudgets/status']);
  });
});
