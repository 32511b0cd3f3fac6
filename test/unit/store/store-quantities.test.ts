import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../../src/store/errors.js';
import { canonicalQuantity } from '../../../src/store/quantity.js';
import { apiFixture } from '../../conformance/kube-helpers.js';
import { makeStore, thrown } from './helpers.js';

/*
 * M-B (red team round 8): kube-apiserver decodes a built-in object into its Go struct, so each
 * resource.Quantity is parsed and served as apimachinery's Quantity marshals it: canonical form,
 * unless the string sent was canonical already. A controller comparing the strings it wrote
 * against what it reads writes for ever on a real cluster. Custom resources are stored as sent.
 */

const served = (raw: unknown): string => {
  const r = canonicalQuantity(raw);
  return 'value' in r ? r.value : `error: ${r.error}`;
};

describe('canonicalQuantity: apimachinery ParseQuantity + MarshalJSON', () => {
  it.each([
    ['2000m', '2'], ['2048Mi', '2Gi'], ['0.5', '500m'], ['0.5Gi', '512Mi'], ['1.5Gi', '1536Mi'], ['1.5', '1500m'],
    ['1000', '1k'], ['1000000', '1M'], ['1000k', '1M'], ['1024Ki', '1Mi'], ['0.001', '1m'], ['1.0', '1'], [' 2000m ', '2'],
    ['0.1n', '1n'], ['8Ei', '9223372036854775807'], ['0.5Ki', '512'], ['1000e3', '1e6'], ['1.5e3', '1500'], ['-2000m', '-2'],
    ['00', '0'], ['-0', '0'],
  ])('%j is served as %j', (sent, want) => {
    expect(served(sent)).toBe(want);
  });

  it.each([['100m'], ['1'], ['128Mi'], ['1500'], ['1e3'], ['12e6'], ['1Ki'], ['1025Mi'], ['+1'], ['01'], ['1.500'], ['0']])('%j, canonical already, is kept as sent', (sent) => {
    expect(served(sent)).toBe(sent);
  });

  it('JSON numbers are read as their text, null as zero', () => {
    expect([served(2), served(0.5), served(1024), served(null)]).toEqual(['2', '500m', '1024', '0']);
  });

  it("a malformed quantity is apimachinery's ErrFormatWrong, an unknown suffix its ErrSuffix", () => {
    expect(served('abc')).toBe("error: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(served('1 Gi')).toMatch(/^error: quantities must match/);
    expect(served(true)).toMatch(/^error: quantities must match/);
    expect(served('1K')).toBe("error: unable to parse quantity's suffix");
    expect(served('1Mi3')).toBe("error: unable to parse quantity's suffix");
  });
});

describe('M-B: the store serves the quantities of built-in kinds canonical', () => {
  it('a ResourceQuota hard {cpu: 2000m, memory: 2048Mi} is served as {cpu: "2", memory: "2Gi"}; its status hard and used too', () => {
    const { store } = makeStore();
    const q = store.create('c', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard: { cpu: '2000m', memory: '2048Mi', pods: '10' } } });
    expect(q.spec).toEqual({ hard: { cpu: '2', memory: '2Gi', pods: '10' } });
    const s = store.updateStatus('quota-controller', { ...q, status: { hard: { cpu: '2000m' }, used: { cpu: '0.5', memory: '0.5Gi' } } });
    expect(s.status).toEqual({ hard: { cpu: '2' }, used: { cpu: '500m', memory: '512Mi' } });
  });

  it('a Pod: container requests/limits, overhead, emptyDir sizeLimit, ephemeral claim template', () => {
    const { store } = makeStore();
    const p = store.create('c', {
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        containers: [{ name: 'a', image: 'x:1', resources: { requests: { cpu: '0.25', memory: '1024Mi' }, limits: { cpu: 1, memory: '1.5Gi' } } }],
        initContainers: [{ name: 'i', image: 'x:1', resources: { requests: { cpu: '1000m' } } }],
        overhead: { cpu: '0.1' },
        volumes: [
          { name: 'scratch', emptyDir: { sizeLimit: '2048Mi' } },
          { name: 'eph', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } } } } },
        ],
      },
    });
    const spec = p.spec as unknown as { containers: [{ resources: unknown }]; initContainers: [{ resources: unknown }]; overhead: unknown; volumes: [{ emptyDir: unknown }, { ephemeral: { volumeClaimTemplate: { spec: { resources: unknown } } } }] };
    expect(spec.containers[0].resources).toEqual({ requests: { cpu: '250m', memory: '1Gi' }, limits: { cpu: '1', memory: '1536Mi' } });
    expect(spec.initContainers[0].resources).toEqual({ requests: { cpu: '1' } });
    expect(spec.overhead).toEqual({ cpu: '100m' });
    expect(spec.volumes[0].emptyDir).toEqual({ sizeLimit: '2Gi' });
    expect(spec.volumes[1].ephemeral.volumeClaimTemplate.spec.resources).toEqual({ requests: { storage: '1Gi' } });
  });

  it("a Deployment's and a CronJob's Pod template, a StatefulSet's claim templates, a PVC, a Node, a LimitRange, a PV", () => {
    const { store } = makeStore();
    const tpl = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'a', image: 'x:1', resources: { requests: { cpu: '2000m' } } }] } };
    const cpuOf = (spec: unknown): unknown => (spec as { template: { spec: { containers: [{ resources: { requests: { cpu: unknown } } }] } } }).template.spec.containers[0].resources.requests.cpu;
    const d = store.create('c', { kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'a' } }, template: tpl } });
    expect(cpuOf(d.spec)).toBe('2');
    const cj = store.create('c', { kind: 'CronJob', metadata: { name: 'cj', namespace: 'default' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { ...tpl, spec: { ...tpl.spec, restartPolicy: 'Never' } } } } } });
    expect(cpuOf((cj.spec as { jobTemplate: { spec: unknown } }).jobTemplate.spec)).toBe('2');
    const ss = store.create('c', {
      kind: 'StatefulSet',
      metadata: { name: 'ss', namespace: 'default' },
      spec: { serviceName: 'ss', selector: { matchLabels: { app: 'a' } }, template: tpl, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10240Mi' } } } }] },
    });
    expect((ss.spec as unknown as { volumeClaimTemplates: [{ spec: { resources: unknown } }] }).volumeClaimTemplates[0].spec.resources).toEqual({ requests: { storage: '10Gi' } });
    const pvc = store.create('c', { kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '0.5Gi' } } } });
    expect(pvc.spec['resources']).toEqual({ requests: { storage: '512Mi' } });
    const bound = store.updateStatus('pv-controller', { ...pvc, status: { phase: 'Bound', capacity: { storage: '0.5Gi' }, allocatedResources: { storage: '536870912' } } });
    // a plain number is DecimalSI: no binary suffix
    expect(bound.status).toMatchObject({ capacity: { storage: '512Mi' }, allocatedResources: { storage: '536870912' } });
    const node = store.create('kubelet', { kind: 'Node', metadata: { name: 'n1' }, spec: {}, status: {} });
    const ns = store.updateStatus('kubelet', { ...node, status: { capacity: { cpu: '4000m', memory: '8388608Ki', pods: '110' }, allocatable: { cpu: '3.5' } } });
    expect(ns.status).toMatchObject({ capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '3500m' } });
    const lr = store.create('c', { kind: 'LimitRange', metadata: { name: 'lr', namespace: 'default' }, spec: { limits: [{ type: 'Container', default: { cpu: '0.5' }, defaultRequest: { memory: '2048Mi' }, max: { cpu: '2000m' } }] } });
    expect((lr.spec as { limits: unknown[] }).limits[0]).toEqual({ type: 'Container', default: { cpu: '500m' }, defaultRequest: { memory: '2Gi' }, max: { cpu: '2' } });
    const pv = store.create('c', { kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: { capacity: { storage: '1024Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' } } });
    expect(pv.spec['capacity']).toEqual({ storage: '1Ti' });
  });

  it('an update and a patch are served canonical too; rewriting the canonical form is a no-op', () => {
    const { store, take } = makeStore();
    const q = store.create('c', { kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard: { cpu: '1' } } });
    const u = store.update('c', { ...q, spec: { hard: { cpu: '3000m' } } });
    expect(u.spec).toEqual({ hard: { cpu: '3' } });
    const p = store.patch('c', 'ResourceQuota', { namespace: 'default', name: 'q' }, { spec: { hard: { cpu: '0.5' } } });
    expect(p.spec).toEqual({ hard: { cpu: '500m' } });
    take();
    store.update('c', { ...p, spec: { hard: { cpu: '0.5' } } });
    expect(take().map((w) => w.noop)).toEqual([true]);
  });

  it('a custom resource, and a custom kind named ResourceQuota, keep the strings sent', () => {
    const { store } = makeStore();
    const w = store.create('c', { apiVersion: 'example.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { resources: { requests: { cpu: '2000m' } } } });
    expect(w.spec).toEqual({ resources: { requests: { cpu: '2000m' } } });
    const q = store.create('c', { apiVersion: 'quota.example.com/v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard: { cpu: '2000m' } } });
    expect(q.spec).toEqual({ hard: { cpu: '2000m' } });
  });

  it('a quantity that does not parse fails decoding: refused with the API server\u2019s message, nothing stored', () => {
    const { store } = makeStore();
    const err = thrown(() => store.create('c', { kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard: { cpu: 'two' } } }));
    expect(err).toBeInstanceOf(InvalidError);
    expect((err as Error).message).toContain('ResourceQuota in version "v1" cannot be handled as a ResourceQuota: quantities must match the regular expression');
    expect(store.peek('ResourceQuota', 'default/q')).toBeUndefined();
  });
});

describe('M-B over the REST API', () => {
  const QUOTAS = '/api/v1/namespaces/default/resourcequotas';
  it('a created ResourceQuota is answered and served canonical; a malformed quantity is a 400 BadRequest', async () => {
    const f = apiFixture();
    const r = await f.req('POST', QUOTAS, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { 'requests.cpu': '2000m', 'requests.memory': '2048Mi', 'limits.cpu': 0.5 } } });
    expect(r.status).toBe(201);
    expect((r.json as { spec: unknown }).spec).toEqual({ hard: { 'requests.cpu': '2', 'requests.memory': '2Gi', 'limits.cpu': '500m' } });
    expect(((await f.req('GET', `${QUOTAS}/q`)).json as { spec: unknown }).spec).toEqual({ hard: { 'requests.cpu': '2', 'requests.memory': '2Gi', 'limits.cpu': '500m' } });
    const bad = await f.req('POST', QUOTAS, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'bad' }, spec: { hard: { cpu: '2 cores' } } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: "ResourceQuota in version \"v1\" cannot be handled as a ResourceQuota: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" });
  });
});
