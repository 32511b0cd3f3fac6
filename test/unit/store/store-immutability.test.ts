import { describe, expect, it } from 'vitest';
import { invalid } from '../../helpers/store-errors.js';
import type { NewObject } from '../../../src/store/object.js';
import { apiFixture } from '../../conformance/kube-helpers.js';
import { makeStore } from './helpers.js';

/**
 * The store is no laxer than kube-apiserver for the built-in kinds (issue 11 item 5): their
 * immutable fields answer 422 Invalid with the field path and kube-apiserver's words, and
 * custom kinds get the immutable paths a user declares.
 */

const ns = { namespace: 'default' };

describe('immutable fields of built-in kinds', () => {
  it('Pod: only container images and tolerations additions may change; the binding subresource sets nodeName', () => {
    const { store } = makeStore();
    const pod: NewObject = { kind: 'Pod', metadata: { name: 'p', ...ns }, spec: { containers: [{ name: 'c', image: 'a:1' }], tolerations: [{ key: 'x' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'd' } }] } };
    store.create('user', pod);
    const ref = { ...ns, name: 'p' };
    expect(() => store.patch('ctl', 'Pod', ref, { spec: { containers: [{ name: 'c', image: 'a:2' }] } })).not.toThrow();
    expect(() => store.patch('ctl', 'Pod', ref, { spec: { tolerations: [{ key: 'x' }, { key: 'y' }] } })).not.toThrow();
    invalid(() => store.patch('scheduler', 'Pod', ref, { spec: { nodeName: 'node-1' } })); // a binding, not a patch
    expect(() => store.bind('scheduler', { metadata: { ...ref }, target: { kind: 'Node', name: 'node-1' } })).not.toThrow();
    const e = invalid(() => store.patch('ctl', 'Pod', ref, { spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'other' } }] } }));
    expect(e.causes).toEqual([{ field: 'spec', type: 'FieldValueForbidden', body: expect.stringMatching(/^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/) }]);
    expect(e.message).toMatch(/^Pod "default\/p": spec: Forbidden: pod updates may not change fields/);
    invalid(() => store.patch('ctl', 'Pod', ref, { spec: { tolerations: [{ key: 'y' }] } })); // a toleration removed
    invalid(() => store.patch('ctl', 'Pod', ref, { spec: { nodeName: 'node-2' } })); // bound once
    invalid(() => store.patch('ctl', 'Pod', ref, { spec: { containers: [{ name: 'c', image: 'a:2' }, { name: 'd', image: 'b' }] } }));
  });

  it('PersistentVolumeClaim: spec fixed, except a Bound claim growing its storage; the binder sets volumeName once', () => {
    const { store } = makeStore();
    store.create('user', { kind: 'PersistentVolumeClaim', metadata: { name: 'd', ...ns }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    const ref = { ...ns, name: 'd' };
    const grow = { spec: { resources: { requests: { storage: '2Gi' } } } };
    // not Bound yet: a resize is refused
    expect(invalid(() => store.patch('ctl', 'PersistentVolumeClaim', ref, grow)).causes[0]).toMatchObject({ field: 'spec', body: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' });
    store.patch('binder', 'PersistentVolumeClaim', ref, { spec: { volumeName: 'pv-1' } });
    store.patch('binder', 'PersistentVolumeClaim', ref, { status: { phase: 'Bound' } }, { subresource: 'status' });
    expect(() => store.patch('ctl', 'PersistentVolumeClaim', ref, grow)).not.toThrow();
    expect(invalid(() => store.patch('ctl', 'PersistentVolumeClaim', ref, { spec: { resources: { requests: { storage: '1Gi' } } } })).causes).toEqual([
      { field: 'spec.resources.requests.storage', type: 'FieldValueForbidden', body: 'Forbidden: field can not be less than previous value' },
    ]);
    invalid(() => store.patch('ctl', 'PersistentVolumeClaim', ref, { spec: { volumeName: 'pv-2' } }));
    invalid(() => store.patch('ctl', 'PersistentVolumeClaim', ref, { spec: { accessModes: ['ReadWriteMany'] } }));
  });

  it('Job template and selector, StatefulSet fields but replicas/template/…, Deployment selector, Service clusterIP', () => {
    const { store } = makeStore();
    const tpl = { spec: { containers: [{ name: 'c', image: 'a' }], restartPolicy: 'Never' } };
    // apps/v1 workloads: Pods that restart Always, labelled as the selector asks
    const appsTpl = { metadata: { labels: { a: '1' } }, spec: { containers: [{ name: 'c', image: 'a' }] } };
    store.create('user', { kind: 'Job', metadata: { name: 'j', ...ns }, spec: { template: tpl, backoffLimit: 1 } });
    expect(invalid(() => store.patch('ctl', 'Job', { ...ns, name: 'j' }, { spec: { template: { spec: { restartPolicy: 'OnFailure' } } } })).causes[0]).toMatchObject({ field: 'spec.template', type: 'FieldValueInvalid', body: expect.stringMatching(/: field is immutable$/) });
    expect(() => store.patch('ctl', 'Job', { ...ns, name: 'j' }, { spec: { backoffLimit: 3 } })).not.toThrow();

    store.create('user', { kind: 'StatefulSet', metadata: { name: 's', ...ns }, spec: { replicas: 1, serviceName: 's', selector: { matchLabels: { a: '1' } }, template: appsTpl, volumeClaimTemplates: [{ metadata: { name: 'd' }, spec: {} }] } });
    const sts = { ...ns, name: 's' };
    expect(() => store.patch('ctl', 'StatefulSet', sts, { spec: { replicas: 3, template: { metadata: { labels: { a: '1' } } } } })).not.toThrow();
    for (const p of [{ serviceName: 'other' }, { volumeClaimTemplates: [] }, { selector: { matchLabels: { a: '2' } } }]) {
      // a changed selector also no longer matches the template: kube-apiserver reports the spec's errors first
      expect(invalid(() => store.patch('ctl', 'StatefulSet', sts, { spec: p })).causes.find((c) => c.field === 'spec')).toMatchObject({ field: 'spec', body: expect.stringMatching(/^Forbidden: updates to statefulset spec for fields other than 'replicas'/) });
    }

    store.create('user', { kind: 'Deployment', metadata: { name: 'd', ...ns }, spec: { replicas: 1, selector: { matchLabels: { a: '1' } }, template: appsTpl } });
    expect(invalid(() => store.patch('ctl', 'Deployment', { ...ns, name: 'd' }, { spec: { selector: { matchLabels: { a: '2' } } } })).causes.map((c) => c.field)).toEqual(['spec.template.metadata.labels', 'spec.selector']);
    expect(() => store.patch('ctl', 'Deployment', { ...ns, name: 'd' }, { spec: { replicas: 5 } })).not.toThrow();

    store.create('user', { kind: 'Service', metadata: { name: 'svc', ...ns }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } });
    expect(invalid(() => store.patch('ctl', 'Service', { ...ns, name: 'svc' }, { spec: { clusterIP: '10.0.0.1' } })).causes[0]!.field).toBe('spec.clusterIP');
    expect(() => store.patch('ctl', 'Service', { ...ns, name: 'svc' }, { spec: { ports: [{ port: 8080 }] } })).not.toThrow();
  });

  it('ConfigMap/Secret with immutable: true keep their data and stay immutable; a Secret keeps its type; a RoleBinding its roleRef', () => {
    const { store } = makeStore();
    store.create('user', { kind: 'ConfigMap', metadata: { name: 'c', ...ns }, data: { a: '1' }, immutable: true });
    expect(invalid(() => store.patch('ctl', 'ConfigMap', { ...ns, name: 'c' }, { data: { a: '2' } })).causes).toEqual([{ field: 'data', type: 'FieldValueForbidden', body: 'Forbidden: field is immutable when `immutable` is set' }]);
    expect(invalid(() => store.patch('ctl', 'ConfigMap', { ...ns, name: 'c' }, { immutable: false })).causes[0]!.field).toBe('immutable');
    expect(() => store.patch('ctl', 'ConfigMap', { ...ns, name: 'c' }, { metadata: { labels: { x: '1' } } })).not.toThrow();
    store.create('user', { kind: 'Secret', metadata: { name: 's', ...ns }, type: 'Opaque', data: { a: btoa('1') } });
    expect(invalid(() => store.patch('ctl', 'Secret', { ...ns, name: 's' }, { type: 'kubernetes.io/tls' })).causes[0]!.field).toBe('type');
    store.create('user', { kind: 'RoleBinding', metadata: { name: 'rb', ...ns }, subjects: [], roleRef: { kind: 'Role', name: 'a', apiGroup: 'rbac.authorization.k8s.io' } });
    expect(invalid(() => store.patch('ctl', 'RoleBinding', { ...ns, name: 'rb' }, { roleRef: { name: 'b' } })).causes[0]).toMatchObject({ field: 'roleRef', body: expect.stringMatching(/cannot change roleRef$/) });
    expect(() => store.patch('ctl', 'RoleBinding', { ...ns, name: 'rb' }, { subjects: [{ kind: 'User', name: 'x' }] })).not.toThrow();
  });

  it('ConfigMap/Secret content: string values, base64 binary and Secret data, no key in both data and binaryData', () => {
    const { store } = makeStore();
    expect(invalid(() => store.create('user', { kind: 'Secret', metadata: { name: 's', ...ns }, data: { a: 'not base64!' } })).causes[0]).toMatchObject({ field: 'data[a]', body: expect.stringMatching(/illegal base64 data$/) });
    expect(invalid(() => store.create('user', { kind: 'ConfigMap', metadata: { name: 'c', ...ns }, data: { a: 1 as unknown as string } })).causes[0]!.field).toBe('data[a]');
    expect(invalid(() => store.create('user', { kind: 'ConfigMap', metadata: { name: 'c', ...ns }, data: { a: 'x' }, binaryData: { a: 'AA==' } })).causes[0]!.field).toBe('data[a]');
    expect(invalid(() => store.create('user', { kind: 'ConfigMap', metadata: { name: 'c', ...ns }, data: { 'bad key': 'x' } })).causes[0]!.field).toBe('data[bad key]');
  });
});

describe('immutable paths declared for custom kinds', () => {
  it('refuses to add, change or remove a declared path, and lets everything else change', () => {
    const { store } = makeStore({ validation: { immutable: { Database: ['spec.storageClass'] } } });
    store.create('user', { kind: 'Database', metadata: { name: 'db', ...ns }, spec: { storageClass: 'fast', size: 1 } });
    const ref = { ...ns, name: 'db' };
    expect(() => store.patch('user', 'Database', ref, { spec: { size: 2 } })).not.toThrow();
    expect(invalid(() => store.patch('user', 'Database', ref, { spec: { storageClass: 'slow' } })).causes).toEqual([{ field: 'spec.storageClass', type: 'FieldValueInvalid', body: 'Invalid value: "slow": field is immutable' }]);
    invalid(() => store.patch('user', 'Database', ref, { spec: { storageClass: null } }));
  });
});

describe('the 422 Status body over REST', () => {
  it('names the field, the reason and kube-apiserver\'s message', async () => {
    const f = apiFixture();
    await f.req('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, immutable: true });
    const r = await f.req('PATCH', '/api/v1/namespaces/default/configmaps/c', { data: { a: '2' } }, { 'content-type': 'application/merge-patch+json' });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'ConfigMap "c" is invalid: data: Forbidden: field is immutable when `immutable` is set',
      reason: 'Invalid',
      details: { name: 'c', kind: 'ConfigMap', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field: 'data' }] },
      code: 422,
    });
  });
});
