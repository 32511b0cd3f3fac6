import { describe, expect, it } from 'vitest';
import type { JsonObject, NewObject } from '../../../src/store/object.js';
import { makeStore, widget } from './helpers.js';

/*
 * kube-apiserver 1.32's defaulting of built-in kinds (pkg/apis/*\/v1/defaults.go, and what the
 * Service and Job registries allocate): on create and on every update and patch. Each expected
 * object is what a kind (v0.25) cluster answers for the same request.
 */

const labels = { app: 'web' };
const template = { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } };
/** The Pod template spec above, as the server stores it. */
const defaultedPodSpec = {
  containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }], imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
  dnsPolicy: 'ClusterFirst',
  restartPolicy: 'Always',
  securityContext: {},
  terminationGracePeriodSeconds: 30,
  schedulerName: 'default-scheduler',
};

function obj(kind: string, apiVersion: string, spec: JsonObject, name = 'web'): NewObject {
  return { apiVersion, kind, metadata: { name, namespace: 'default' }, spec };
}

describe('defaulting of built-in specs (kube-apiserver 1.32)', () => {
  it('a Deployment gets replicas, its rolling update strategy, history and deadline, and its Pod template the PodSpec defaults', () => {
    const { store } = makeStore();
    const d = store.create('user', obj('Deployment', 'apps/v1', { selector: { matchLabels: labels }, template }));
    expect(d.spec).toEqual({
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: defaultedPodSpec },
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    // a Recreate strategy gets no rollingUpdate; what is set is kept
    const r = store.create('user', obj('Deployment', 'apps/v1', { replicas: 0, strategy: { type: 'Recreate' }, revisionHistoryLimit: 2, selector: { matchLabels: labels }, template }, 'r'));
    expect(r.spec['strategy']).toEqual({ type: 'Recreate' });
    expect(r.spec['replicas']).toBe(0);
    expect(r.spec['revisionHistoryLimit']).toBe(2);
  });

  it('an update or a patch that leaves a defaulted field out finds it again: the same spec is a no-op', () => {
    const { store, take } = makeStore();
    const desired = { selector: { matchLabels: labels }, template };
    const d = store.create('user', obj('Deployment', 'apps/v1', desired));
    take();
    const again = store.update('user', { ...obj('Deployment', 'apps/v1', desired), metadata: { name: 'web', namespace: 'default', resourceVersion: d.metadata.resourceVersion } });
    expect(again.metadata.resourceVersion).toBe(d.metadata.resourceVersion);
    expect(take().map((w) => w.noop)).toEqual([true]);
    const patched = store.patch('user', 'Deployment', { namespace: 'default', name: 'web' }, { spec: { replicas: null, strategy: null } });
    expect(patched.spec['replicas']).toBe(1);
    expect(patched.spec['strategy']).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    expect(take().map((w) => w.noop)).toEqual([true]);
  });

  it('a Pod gets the PodSpec defaults and the Pod-only ones (service links, requests from limits)', () => {
    const { store } = makeStore();
    const p = store.create('user', obj('Pod', 'v1', { containers: [{ name: 'app', image: 'example/app', resources: { limits: { cpu: '1' } } }] }));
    expect(p.spec).toEqual({
      containers: [{ name: 'app', image: 'example/app', resources: { limits: { cpu: '1' }, requests: { cpu: '1' } }, imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
    });
  });

  it('imagePullPolicy: Always for :latest or no tag, IfNotPresent for a tag or a digest', () => {
    const { store } = makeStore();
    const images = ['nginx', 'nginx:latest', 'registry.local:5000/team/app', 'nginx:1.27', 'registry.local:5000/app:v2', 'nginx@sha256:' + 'a'.repeat(64)];
    const p = store.create('user', obj('Pod', 'v1', { containers: images.map((image, i) => ({ name: `c${i}`, image })) }));
    expect((p.spec['containers'] as JsonObject[]).map((c) => c['imagePullPolicy'])).toEqual(['Always', 'Always', 'Always', 'IfNotPresent', 'IfNotPresent', 'IfNotPresent']);
  });

  it('probes, volumes and downward API references get their defaults', () => {
    const { store } = makeStore();
    const p = store.create('user', obj('Pod', 'v1', {
      containers: [{ name: 'app', image: 'app:1', readinessProbe: { httpGet: { port: 8080 } }, env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] }],
      volumes: [{ name: 'scratch' }, { name: 'cfg', configMap: { name: 'cfg' } }, { name: 'tls', secret: { secretName: 'tls' } }, { name: 'host', hostPath: { path: '/var' } }],
    }));
    const c = (p.spec['containers'] as JsonObject[])[0]!;
    expect(c['readinessProbe']).toEqual({ httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    expect(c['env']).toEqual([{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName', apiVersion: 'v1' } } }]);
    expect(p.spec['volumes']).toEqual([
      { name: 'scratch', emptyDir: {} },
      { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } },
      { name: 'tls', secret: { secretName: 'tls', defaultMode: 420 } },
      { name: 'host', hostPath: { path: '/var', type: '' } },
    ]);
  });

  it('StatefulSet, DaemonSet and ReplicaSet defaults', () => {
    const { store } = makeStore();
    const sts = store.create('user', obj('StatefulSet', 'apps/v1', { serviceName: 'web', selector: { matchLabels: labels }, template, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }));
    expect(sts.spec).toMatchObject({
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      replicas: 1,
      revisionHistoryLimit: 10,
      template: { spec: defaultedPodSpec },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    });
    const ds = store.create('user', obj('DaemonSet', 'apps/v1', { selector: { matchLabels: labels }, template }));
    expect(ds.spec).toMatchObject({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 });
    expect(ds.spec).not.toHaveProperty('replicas');
    const rs = store.create('user', obj('ReplicaSet', 'apps/v1', { selector: { matchLabels: labels }, template }));
    expect(rs.spec).toEqual({ selector: { matchLabels: labels }, template: { metadata: { labels }, spec: defaultedPodSpec }, replicas: 1 });
  });

  it('a Job gets its counts, modes, its generated selector and Pod labels, and its own labels from the template; a CronJob its policies', () => {
    const { store } = makeStore();
    const jobTemplate = { metadata: { labels: { app: 'batch' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox:1.36' }] } };
    const j = store.create('user', obj('Job', 'batch/v1', { template: jobTemplate }, 'once'));
    const uid = j.metadata.uid;
    expect(j.metadata.labels).toEqual({ app: 'batch' });
    expect(j.spec).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed', selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } } });
    expect((j.spec['template'] as JsonObject)['metadata']).toEqual({ labels: { app: 'batch', 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'once', 'controller-uid': uid, 'job-name': 'once' } });
    // parallelism alone leaves completions unset
    const par = store.create('user', obj('Job', 'batch/v1', { parallelism: 3, template: jobTemplate }, 'par'));
    expect(par.spec).not.toHaveProperty('completions');
    const cj = store.create('user', obj('CronJob', 'batch/v1', { schedule: '*/5 * * * *', jobTemplate: { spec: { template: jobTemplate } } }, 'every5'));
    expect(cj.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    // the job template's JobSpec is not defaulted, its Pod template is
    const jobSpec = (cj.spec['jobTemplate'] as JsonObject)['spec'] as JsonObject;
    expect(jobSpec).not.toHaveProperty('backoffLimit');
    expect((jobSpec['template'] as JsonObject)['spec']).toMatchObject({ dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' });
  });

  it('a Service gets its type, affinity, port protocol and target port, a cluster IP it keeps across updates, and node ports', () => {
    const { store } = makeStore();
    const s = store.create('user', obj('Service', 'v1', { selector: labels, ports: [{ name: 'http', port: 80 }] }));
    const ip = s.spec['clusterIP'] as string;
    expect(ip).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(s.spec).toEqual({
      selector: labels,
      ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
      clusterIP: ip,
      clusterIPs: [ip],
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    });
    // a full update without the allocated fields keeps them (a no-op)
    const again = store.update('user', { ...obj('Service', 'v1', { selector: labels, ports: [{ name: 'http', port: 80 }] }), metadata: { name: 'web', namespace: 'default', resourceVersion: s.metadata.resourceVersion } });
    expect(again.metadata.resourceVersion).toBe(s.metadata.resourceVersion);
    // another Service gets another address; a headless one none
    const other = store.create('user', obj('Service', 'v1', { selector: labels, ports: [{ port: 81 }] }, 'other'));
    expect(other.spec['clusterIP']).not.toBe(ip);
    const headless = store.create('user', obj('Service', 'v1', { clusterIP: 'None', selector: labels, ports: [{ port: 5432 }] }, 'db'));
    expect(headless.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack' });
    const np = store.create('user', obj('Service', 'v1', { type: 'NodePort', selector: labels, ports: [{ port: 80 }, { port: 443 }] }, 'np'));
    const ports = (np.spec['ports'] as JsonObject[]).map((p) => p['nodePort'] as number);
    expect(ports.every((p) => p >= 30000 && p <= 32767)).toBe(true);
    expect(new Set(ports).size).toBe(2);
    expect(np.spec['externalTrafficPolicy']).toBe('Cluster');
    const npAgain = store.update('user', { ...obj('Service', 'v1', { type: 'NodePort', selector: labels, ports: [{ port: 80 }, { port: 443 }] }, 'np'), metadata: { name: 'np', namespace: 'default' } });
    expect((npAgain.spec['ports'] as JsonObject[]).map((p) => p['nodePort'])).toEqual(ports);
    const ext = store.create('user', obj('Service', 'v1', { type: 'ExternalName', externalName: 'db.example.com' }, 'ext'));
    expect(ext.spec).toEqual({ type: 'ExternalName', externalName: 'db.example.com', sessionAffinity: 'None' });
  });

  it('a Secret is Opaque, a binding names the RBAC group, a Namespace carries its name label, a NetworkPolicy its policy types', () => {
    const { store } = makeStore();
    const sec = store.create('user', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: {} });
    expect(sec['type']).toBe('Opaque');
    const rb = store.create('user', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb', namespace: 'default' }, roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'ann' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'default' }] });
    expect(rb['roleRef']).toEqual({ kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
    expect(rb['subjects']).toEqual([{ kind: 'User', name: 'ann', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'default' }]);
    const ns = store.create('user', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' }, spec: {} });
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
    const np = store.create('user', obj('NetworkPolicy', 'networking.k8s.io/v1', { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] }));
    expect(np.spec).toEqual({ podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }], policyTypes: ['Ingress', 'Egress'] });
  });

  it('custom resources and status writes are left alone', () => {
    const { store } = makeStore();
    const w = store.create('user', widget('a', { replicas: 1 }));
    expect(w.spec).toEqual({ replicas: 1 });
    // a reference-experiment ReplicaSet without a template only gets replicas
    const rs = store.create('user', obj('ReplicaSet', 'apps/v1', {}, 'bare'));
    expect(rs.spec).toEqual({ replicas: 1 });
  });
});
