import { describe, expect, it } from 'vitest';
import { InvalidError, NotFoundError } from '../../../src/store/errors.js';
import { makeStore, thrown } from './helpers.js';

/*
 * Realism holes found by red team round 8 (scratch/rt/REPORT.md), each as kube-apiserver 1.32
 * serves it: the built-in rules key on (group, kind), not on the kind's name alone.
 */

const podSpec = { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] };

describe('FA-A: a custom resource named like a built-in (another group) gets none of the built-in rules', () => {
  it('a net.example.com/v1 Service is stored as sent: no Service defaults, no cluster IP, keys sorted as a custom resource', () => {
    const { store } = makeStore();
    const s = store.create('user', { apiVersion: 'net.example.com/v1', kind: 'Service', metadata: { name: 'My.Svc', namespace: 'default' }, spec: { zeta: 1, ports: [{ port: 80 }] } });
    expect(s.spec).toEqual({ ports: [{ port: 80 }], zeta: 1 });
    expect(Object.keys(s.spec)).toEqual(['ports', 'zeta']);
  });

  it('a batch.volcano.sh Job without a Pod template and an apps.example Deployment are accepted and not defaulted', () => {
    const { store } = makeStore();
    const j = store.create('user', { apiVersion: 'batch.volcano.sh/v1alpha1', kind: 'Job', metadata: { name: 'vj', namespace: 'default' }, spec: { minAvailable: 1, tasks: [{ replicas: 1, template: { spec: podSpec } }] } });
    expect(j.spec).toEqual({ minAvailable: 1, tasks: [{ replicas: 1, template: { spec: podSpec } }] });
    const d = store.create('user', { apiVersion: 'apps.example/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { image: 'x:1' } });
    expect(d.spec).toEqual({ image: 'x:1' });
  });

  it('an example.com Secret gets no type, an example.com Pod no Pod defaults', () => {
    const { store } = makeStore();
    const sec = store.create('user', { apiVersion: 'example.com/v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, spec: { vault: 'a' } });
    expect(sec['type']).toBeUndefined();
    const pod = store.create('user', { apiVersion: 'example.com/v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    expect(pod.spec).toEqual({ containers: [{ name: 'c', image: 'x' }] });
  });

  it('the core Service (apiVersion v1, or none in process) is still defaulted', () => {
    const { store } = makeStore();
    const a = store.create('user', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
    const b = store.create('user', { kind: 'Service', metadata: { name: 'b', namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
    expect([(a.spec as Record<string, unknown>)['type'], (b.spec as Record<string, unknown>)['type']]).toEqual(['ClusterIP', 'ClusterIP']);
  });
});

describe('M-D: a built-in created without apiVersion is stored with the built-in one (kube always has one)', () => {
  it('an in-process { kind: ConfigMap } is served as apiVersion v1, and a controller status write to it is 404', () => {
    const { store } = makeStore();
    const cm = store.create('controller:x/0', { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: {} });
    expect(cm.apiVersion).toBe('v1');
    expect(thrown(() => store.updateStatus('controller:x/0', { ...cm, status: { a: 1 } }))).toBeInstanceOf(NotFoundError);
    const lease = store.create('controller:x/0', { kind: 'Lease', metadata: { name: 'l', namespace: 'default' }, spec: {} });
    expect(lease.apiVersion).toBe('coordination.k8s.io/v1');
  });

  it('a custom kind without apiVersion keeps none', () => {
    const { store } = makeStore();
    expect(store.create('user', { kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: {} }).apiVersion).toBeUndefined();
  });
});


describe("FA-B: field labels are computed as kube's *ToSelectableFields (Go zero values, labels that are not paths)", () => {
  const names = (items: { metadata: { name: string } }[]) => items.map((o) => o.metadata.name);

  it('spec.unschedulable=false matches a Node never cordoned; =true only the cordoned one', () => {
    const { store } = makeStore();
    store.create('env', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'free' }, spec: {} });
    store.create('env', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cordoned' }, spec: { unschedulable: true } });
    expect(names(store.list('Node', { fieldSelector: 'spec.unschedulable=false' }).items)).toEqual(['free']);
    expect(names(store.list('Node', { fieldSelector: 'spec.unschedulable=true' }).items)).toEqual(['cordoned']);
  });

  it('a Job by status.successful (status.succeeded, "0" when absent); a ReplicaSet by status.replicas ("0" when absent)', () => {
    const { store } = makeStore();
    const job = store.create('env', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' }, spec: { template: { spec: podSpec } } });
    expect(names(store.list('Job', { fieldSelector: 'status.successful=0' }).items)).toEqual(['j']);
    store.updateStatus('env', { ...job, status: { succeeded: 1 } });
    expect(names(store.list('Job', { fieldSelector: 'status.successful=1' }).items)).toEqual(['j']);
    store.create('env', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'default' }, spec: { replicas: 0, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } });
    expect(names(store.list('ReplicaSet', { fieldSelector: 'status.replicas=0' }).items)).toEqual(['rs']);
  });

  it('a Pod without hostNetwork matches spec.hostNetwork=false', () => {
    const { store } = makeStore();
    store.create('env', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: podSpec });
    expect(names(store.list('Pod', { fieldSelector: 'spec.hostNetwork=false' }).items)).toEqual(['p']);
    expect(names(store.list('Pod', { fieldSelector: 'spec.hostNetwork!=true' }).items)).toEqual(['p']);
  });

  it("an Event's source is source.component, else its reporting controller; reportingComponent is the reporting controller", () => {
    const { store } = makeStore();
    const ev = { involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'm', type: 'Normal' };
    store.create('env', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'old', namespace: 'default' }, ...ev, source: { component: 'kubelet' } });
    store.create('env', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'new', namespace: 'default' }, ...ev, reportingComponent: 'my-ctl', reportingInstance: 'my-ctl-0' });
    expect(names(store.list('Event', { fieldSelector: 'source=kubelet' }).items)).toEqual(['old']);
    expect(names(store.list('Event', { fieldSelector: 'source=my-ctl' }).items)).toEqual(['new']);
    expect(names(store.list('Event', { fieldSelector: 'reportingComponent=my-ctl' }).items)).toEqual(['new']);
  });
});

describe('FA-C: a Namespace is Active from its create and Terminating once deleted; a new Pod is Pending', () => {
  it('a Namespace is created Active (its status as sent dropped), and Terminating with its deletionTimestamp', () => {
    const { store } = makeStore();
    const ns = store.create('user', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', finalizers: ['example.com/hold'] }, spec: {}, status: { phase: 'Terminating' } });
    expect(ns.status).toEqual({ phase: 'Active' });
    const deleting = store.delete('user', 'Namespace', { name: 'team' });
    expect([deleting.metadata.deletionTimestamp !== undefined, deleting.status]).toEqual([true, { phase: 'Terminating' }]);
    expect(store.list('Namespace', { fieldSelector: 'status.phase=Terminating' }).items.map((o) => o.metadata.name)).toEqual(['team']);
  });

  it('a custom Namespace kind (another group) gets no phase', () => {
    const { store } = makeStore();
    expect(store.create('user', { apiVersion: 'tenancy.example.com/v1', kind: 'Namespace', metadata: { name: 'x', namespace: 'default' }, spec: {} }).status).toEqual({});
  });

  it('a new Pod is Pending; one created with a phase (a harness actor standing for the kubelet) keeps it', () => {
    const { store } = makeStore();
    expect(store.create('ctl', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: podSpec }).status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(store.create('env', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q', namespace: 'default' }, spec: podSpec, status: { phase: 'Running' } }).status).toEqual({ phase: 'Running', qosClass: 'BestEffort' });
  });
});

describe("FA-E + M-F: a Service's type change drops what the new type does not use (dropTypeDependentFields); strategies as kube validates them", () => {
  type Spec = Record<string, unknown> & { ports: Record<string, unknown>[] };
  const svc = (spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default' }, spec });

  it('NodePort -> ClusterIP by read-modify-write drops the node port and externalTrafficPolicy; one the request changes is refused', () => {
    const { store } = makeStore();
    const s = store.create('ctl', svc({ type: 'NodePort', ports: [{ port: 80 }] }));
    const spec = s.spec as Spec;
    expect([typeof spec.ports[0]!['nodePort'], spec['externalTrafficPolicy']]).toEqual(['number', 'Cluster']);
    const u = store.update('ctl', { ...s, spec: { ...spec, type: 'ClusterIP' } });
    const us = u.spec as Spec;
    expect([us.ports[0]!['nodePort'], us['externalTrafficPolicy'], us['clusterIP']]).toEqual([undefined, undefined, spec['clusterIP']]);
    // a node port the request sets on a ClusterIP Service: kube's 422
    const err = thrown(() => store.update('ctl', { ...u, spec: { ...us, ports: [{ ...us.ports[0], nodePort: 30080 }] } }));
    expect(err).toBeInstanceOf(InvalidError);
    expect((err as Error).message).toContain("spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'");
  });

  it('LoadBalancer -> NodePort drops allocateLoadBalancerNodePorts and keeps the node ports; -> ExternalName drops the cluster IPs', () => {
    const { store } = makeStore();
    const s = store.create('ctl', svc({ type: 'LoadBalancer', ports: [{ port: 80 }] }));
    const spec = s.spec as Spec;
    const n = store.update('ctl', { ...s, spec: { ...spec, type: 'NodePort' } });
    const ns = n.spec as Spec;
    expect([ns['allocateLoadBalancerNodePorts'], ns.ports[0]!['nodePort']]).toEqual([undefined, spec.ports[0]!['nodePort']]);
    const e = store.update('ctl', { ...n, spec: { ...ns, type: 'ExternalName', externalName: 'db.example.com' } });
    const es = e.spec as Spec;
    expect([es['clusterIP'], es['clusterIPs'], es['ipFamilies'], es['ipFamilyPolicy'], es.ports[0]!['nodePort']]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('a Deployment switched to Recreate keeping the defaulted rollingUpdate is refused; without it, accepted', () => {
    const { store } = makeStore();
    const d = store.create('ctl', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } });
    const spec = d.spec as Record<string, unknown>;
    const err = thrown(() => store.update('ctl', { ...d, spec: { ...spec, strategy: { ...(spec['strategy'] as object), type: 'Recreate' } } }));
    expect((err as Error).message).toContain("spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'");
    expect((store.update('ctl', { ...d, spec: { ...spec, strategy: { type: 'Recreate' } } }).spec as Record<string, unknown>)['strategy']).toEqual({ type: 'Recreate' });
  });

  it('a StatefulSet with updateStrategy OnDelete and a rollingUpdate is refused', () => {
    const { store } = makeStore();
    const err = thrown(() => store.create('ctl', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', namespace: 'default' }, spec: { serviceName: 's', updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 0 } }, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } }));
    expect((err as Error).message).toContain("spec.updateStrategy.rollingUpdate: Invalid value: {\"partition\":0}: only allowed for updateStrategy 'RollingUpdate'");
  });
});

describe('M-C: a Job selector of the user\'s own needs manualSelector: true', () => {
  const job = (spec: Record<string, unknown>) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' }, spec: { template: { metadata: { labels: { a: 'b' } }, spec: podSpec }, ...spec } });

  it('a selector without manualSelector is refused: `selector` not auto-generated', () => {
    const { store } = makeStore();
    const err = thrown(() => store.create('ctl', job({ selector: { matchLabels: { a: 'b' } } })));
    expect(err).toBeInstanceOf(InvalidError);
    expect((err as Error).message).toContain('spec.selector: Invalid value: ');
    expect((err as Error).message).toContain('`selector` not auto-generated');
  });

  it('with manualSelector: true the selector is kept as given; without one it is generated from the uid', () => {
    const { store } = makeStore();
    const m = store.create('ctl', job({ manualSelector: true, selector: { matchLabels: { a: 'b' } } }));
    expect((m.spec as Record<string, unknown>)['selector']).toEqual({ matchLabels: { a: 'b' } });
    const g = store.create('ctl', { ...job({}), metadata: { name: 'g', namespace: 'default' } });
    expect((g.spec as Record<string, unknown>)['selector']).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': g.metadata.uid } });
  });
});

describe('M-E: a built-in kind refuses an unqualified finalizer name that is not a standard one', () => {
  it('a ConfigMap with "cleanup" is refused; "kubernetes", "orphan", "foregroundDeletion" and "example.com/cleanup" are taken', () => {
    const { store } = makeStore();
    const err = thrown(() => store.create('ctl', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', finalizers: ['cleanup'] }, data: {} }));
    expect((err as Error).message).toContain('metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified');
    const ok = store.create('ctl', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd', namespace: 'default', finalizers: ['kubernetes', 'orphan', 'foregroundDeletion', 'example.com/cleanup'] }, data: {} });
    expect(ok.metadata.finalizers).toHaveLength(4);
    // and on update
    expect(thrown(() => store.update('ctl', { ...ok, metadata: { ...ok.metadata, finalizers: ['protect'] } }))).toBeInstanceOf(InvalidError);
  });

  it('a custom resource keeps its unqualified finalizer (kube-apiserver only warns)', () => {
    const { store } = makeStore();
    expect(store.create('ctl', { apiVersion: 'example.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default', finalizers: ['cleanup'] }, spec: {} }).metadata.finalizers).toEqual(['cleanup']);
  });
});

describe('M-A: EndpointSlice and Endpoints ports are defaulted', () => {
  it('an EndpointSlice port {port} is served as {name: "", port, protocol: TCP}; an Endpoints port gets protocol TCP', () => {
    const { store } = makeStore();
    const es = store.create('ctl', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'es', namespace: 'default' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }, { name: 'https', port: 443, protocol: 'UDP' }] });
    expect(es['ports']).toEqual([{ name: '', port: 80, protocol: 'TCP' }, { name: 'https', port: 443, protocol: 'UDP' }]);
    const ep = store.create('ctl', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep', namespace: 'default' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] });
    expect(ep['subsets']).toEqual([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
  });
});

describe('R-F: a Service may not take a cluster IP another Service holds, or one outside the service CIDR', () => {
  const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }], ...spec } });

  it('refuses a held IP and one outside 10.96.0.0/12 (422 spec.clusterIPs); takes a free one of the range, and a freed one', () => {
    const { store } = makeStore();
    const a = store.create('ctl', svc('a', {}));
    const ip = (a.spec as Record<string, unknown>)['clusterIP'] as string;
    const held = thrown(() => store.create('ctl', svc('b', { clusterIP: ip })));
    expect((held as Error).message).toContain(`spec.clusterIPs: Invalid value: ["${ip}"]: failed to allocate IP ${ip}: provided IP is already allocated`);
    const out = thrown(() => store.create('ctl', svc('c', { clusterIP: '192.168.1.1' })));
    expect((out as Error).message).toContain('failed to allocate IP 192.168.1.1: the provided IP (192.168.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12');
    expect((store.create('ctl', svc('d', { clusterIP: '10.100.0.7' })).spec as Record<string, unknown>)['clusterIP']).toBe('10.100.0.7');
    expect((store.create('ctl', svc('e', { clusterIP: 'None' })).spec as Record<string, unknown>)['clusterIP']).toBe('None');
    store.delete('ctl', 'Service', { namespace: 'default', name: 'a' });
    expect((store.create('ctl', svc('b', { clusterIP: ip })).spec as Record<string, unknown>)['clusterIP']).toBe(ip);
  });
});
