// rt (red team round 8): one test per hole. Each asserts what kube-apiserver does (or that a
// correct controller passes / a buggy twin is caught), and FAILS today. Run from the worktree root:
//   nice npx vitest run --config scratch/rt/vitest.config.ts --dir scratch/rt
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { check, defineController, defineProgram, defaultProperties, properties, simulate, isStoreError, type Scenario } from '../../src/index.js';
import { ObjectStore } from '../../src/store/store.js';
import { VirtualClock } from '../../src/sim/clock.js';
import { customServiceCase, externalEndpointsCase, migrationJobCase, nodePickerCase, nodeReportCase, nodeReportNoApiTwin, podAdopterCase, tenantQuotasCase } from './fixtures/controllers.js';

function world() {
  const clock = new VirtualClock();
  let deferred: (() => void)[] = [];
  const store = new ObjectStore({ clock, defer: (fn) => deferred.push(fn) });
  const drain = () => {
    for (let i = 0; i < 50 && deferred.length; i++) {
      const d = deferred;
      deferred = [];
      d.forEach((f) => f());
    }
  };
  return { store, drain };
}
const podSpec = { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] };
const outcome = (fn: () => unknown): string => {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    for (const r of ['Invalid', 'NotFound', 'Forbidden', 'Conflict', 'AlreadyExists'] as const) if (isStoreError(err, r)) return r;
    return `other: ${(err as Error).message}`;
  }
};
const verdict = (r: { ok: boolean; property?: string | null; summary?: string | null }) => (r.ok ? 'pass' : `${r.property}: ${r.summary}`);

describe('FA-A: built-in defaulting and validation are keyed by kind alone, so custom resources named like built-ins get them', () => {
  it('a custom Service (net.example.com/v1) keeps the spec it was created with (a CR has no server-side defaults)', () => {
    const { store } = world();
    const s = store.create('user', { apiVersion: 'net.example.com/v1', kind: 'Service', metadata: { name: 's', namespace: 'default' }, spec: { template: { spec: { containers: [{ image: 'web:1' }] } } } } as never);
    expect(s.spec).toEqual({ template: { spec: { containers: [{ image: 'web:1' }] } } });
  });
  it('a Volcano-style Job (batch.volcano.sh/v1alpha1) without a pod template is accepted', () => {
    const { store } = world();
    expect(outcome(() => store.create('user', { apiVersion: 'batch.volcano.sh/v1alpha1', kind: 'Job', metadata: { name: 'vj', namespace: 'default' }, spec: { minAvailable: 1, tasks: [{ replicas: 1, template: { spec: podSpec } }] } } as never))).toBe('accepted');
  });
  it('a homegrown Deployment (apps.example/v1) is accepted and not defaulted', () => {
    const { store } = world();
    const d = store.create('user', { apiVersion: 'apps.example/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { image: 'x:1' } } as never);
    expect(d.spec).toEqual({ image: 'x:1' });
  });
  it('custom-service (a controller that deep-compares its custom Service child, correct for a CR) passes', async () => {
    const r = await check(customServiceCase.controllers, { ...customServiceCase.options, runs: 20, seed: 1 });
    expect(verdict(r)).toBe('pass');
  });
});

describe('FA-B: field selectors read the label as a path and miss Go zero values', () => {
  it('spec.unschedulable=false matches a Node that was never cordoned (kube: fmt.Sprint(node.Spec.Unschedulable))', () => {
    const { store } = world();
    store.create('env', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: {} } as never);
    expect(store.list('Node', { fieldSelector: 'spec.unschedulable=false' }).items.map((n) => n.metadata.name)).toEqual(['n1']);
  });
  it('status.successful=1 matches a Job with status.succeeded 1 (kube: strconv.Itoa(job.Status.Succeeded))', () => {
    const { store } = world();
    const j = store.create('ctl', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' }, spec: { template: { spec: podSpec } } } as never);
    store.updateStatus('env', { ...j, status: { succeeded: 1 } } as never);
    expect(store.list('Job', { namespace: 'default', fieldSelector: 'status.successful=1' }).items.length).toBe(1);
  });
  it('status.replicas=0 matches a new ReplicaSet; spec.hostNetwork=false a Pod without it', () => {
    const { store } = world();
    store.create('ctl', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'default' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } } as never);
    store.create('ctl', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: podSpec } as never);
    expect([store.list('ReplicaSet', { namespace: 'default', fieldSelector: 'status.replicas=0' }).items.length, store.list('Pod', { namespace: 'default', fieldSelector: 'spec.hostNetwork=false' }).items.length]).toEqual([1, 1]);
  });
  it('Event source= and reportingComponent= match source.component and reportingController', () => {
    const { store } = world();
    store.create('ctl', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'm', type: 'Normal', source: { component: 'my-ctl' }, reportingController: 'example.com/ctl' } as never);
    expect([store.list('Event', { namespace: 'default', fieldSelector: 'source=my-ctl' }).items.length, store.list('Event', { namespace: 'default', fieldSelector: 'reportingComponent=example.com/ctl' }).items.length]).toEqual([1, 1]);
  });
  it('node-picker (lists schedulable Nodes with spec.unschedulable=false) passes', async () => {
    const r = await check(nodePickerCase.controllers, { ...nodePickerCase.options, runs: 20, seed: 1 });
    expect(verdict(r)).toBe('pass');
  });
});

describe('FA-C: a Namespace has no status.phase (kube: Active from its create, Terminating once deleted)', () => {
  it('status.phase is Active after create', () => {
    const { store } = world();
    expect(store.create('user', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' }, spec: {} } as never).status).toMatchObject({ phase: 'Active' });
  });
  it('a controller that waits for its Namespace to be Active converges', async () => {
    const waiter = defineController({
      name: 'ns-waiter',
      for: 'Space',
      owns: ['Namespace', 'ConfigMap'],
      resyncPeriodMs: 10_000,
      async reconcile(ctx) {
        const s = await ctx.client.tryGet('Space', ctx.key, { live: true });
        if (!s || s.metadata.deletionTimestamp !== undefined) return;
        const name = `space-${s.metadata.name}`;
        const ns = (await ctx.client.tryGet('Namespace', name, { live: true })) ?? (await ctx.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as never));
        if (ns.status['phase'] !== 'Active') return { requeueAfter: 500 };
        if (!(await ctx.client.tryGet('ConfigMap', { namespace: name, name: 'ready' }, { live: true }))) await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ready', namespace: name }, data: {} } as never);
        return undefined;
      },
    });
    const r = await check(waiter, { objects: { kind: 'Space', spec: [{}] }, properties: [properties.convergence({ converged: (v) => v.list('Space').every((s) => s.metadata.deletionTimestamp !== undefined || v.get('ConfigMap', `space-${s.metadata.name}/ready`) !== undefined) || 'no ConfigMap in the Space' })], runs: 10, seed: 1 });
    expect(verdict(r)).toBe('pass');
  });
});

describe('FA-D: recovery cannot be told that Pods are interchangeable (same-end-state can)', () => {
  it('pod-adopter (ReplicaSet-style adoption; a scale-down removed the adopted stray Pod, the revert made a new one) passes seed 2', async () => {
    const r = await check(podAdopterCase.controllers, { ...podAdopterCase.options, runs: 200, seed: 2 });
    expect(verdict(r)).toBe('pass');
  });
});

describe('M-A: EndpointSlice and Endpoints ports are not defaulted (kube: name "" and protocol TCP)', () => {
  it('an EndpointSlice port {port} is served as {name: "", port, protocol: TCP}', () => {
    const { store } = world();
    const es = store.create('ctl', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'es', namespace: 'default' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] } as never) as unknown as { ports: unknown };
    expect(es.ports).toEqual([{ name: '', port: 80, protocol: 'TCP' }]);
  });
  it('the raw-ports twin of external-endpoints (an update on every reconcile on a real cluster) is caught', async () => {
    const r = await check(externalEndpointsCase.buggy!, { ...externalEndpointsCase.options, runs: 100, seed: 1 });
    expect(r.ok).toBe(false);
  });
});

describe('M-B: quantities of built-in kinds are not served canonical (kube: "2000m" as "2", "2048Mi" as "2Gi")', () => {
  it('a ResourceQuota hard {cpu: 2000m, memory: 2048Mi} is served as {cpu: "2", memory: "2Gi"}', () => {
    const { store } = world();
    const q = store.create('c', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard: { cpu: '2000m', memory: '2048Mi' } } } as never);
    expect((q.spec as { hard: unknown }).hard).toEqual({ cpu: '2', memory: '2Gi' });
  });
  it('the raw-quantities twin of tenant-quotas is caught', async () => {
    const r = await check(tenantQuotasCase.buggy!, { ...tenantQuotasCase.options, runs: 100, seed: 1 });
    expect(r.ok).toBe(false);
  });
});

describe('M-C: a Job with a selector of its own and no manualSelector is accepted (kube: 422 `selector` not auto-generated)', () => {
  it('the store refuses it', () => {
    const { store } = world();
    expect(outcome(() => store.create('ctl', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'g1', namespace: 'default' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: podSpec } } } as never))).toBe('Invalid');
  });
  it('the own-selector twin of migration-job is caught', async () => {
    const r = await check(migrationJobCase.buggy!, { ...migrationJobCase.options, runs: 60, seed: 1 });
    expect(r.ok).toBe(false);
  });
});

describe('M-D: a status write to a ConfigMap created without apiVersion goes through (kube: 404, no status subresource)', () => {
  it('the store refuses a controller\u2019s updateStatus of such a ConfigMap', () => {
    const { store } = world();
    const cm = store.create('controller:x/0', { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: {} } as never);
    expect(outcome(() => store.updateStatus('controller:x/0', { ...cm, status: { a: 1 } } as never))).toBe('NotFound');
  });
  it('node-report\u2019s twin that keeps its counts in ConfigMap status (ConfigMap created as {kind} only) is caught', async () => {
    const props = [...defaultProperties().filter((p) => p.name !== 'same-end-state' && p.name !== 'recovery'), properties.sameEndState({ masks: ['spec.nodeName', 'status.hostIP', 'status.podIP', 'status.pods', 'status.running'] })];
    const r = await check([nodeReportNoApiTwin], { ...nodeReportCase.options, properties: props, runs: 30, seed: 1 });
    expect(r.ok).toBe(false);
  });
});

describe('M-E: finalizer names on built-in kinds (kube: a name without "/" must be a standard one)', () => {
  it('a ConfigMap with finalizer "cleanup" is refused', () => {
    const { store } = world();
    expect(outcome(() => store.create('ctl', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'default', finalizers: ['cleanup'] }, data: {} } as never))).toBe('Invalid');
  });
  it('a Pod with finalizer "protect" is refused', () => {
    const { store } = world();
    expect(outcome(() => store.create('ctl', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'c2', namespace: 'default', finalizers: ['protect'] }, spec: podSpec } as never))).toBe('Invalid');
  });
});

describe('R-F: Service IP allocation accepts what kube-apiserver refuses', () => {
  it('a clusterIP another Service holds is refused (422 provided IP is already allocated)', () => {
    const { store } = world();
    const a = store.create('ctl', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', namespace: 'default' }, spec: { ports: [{ port: 80 }] } } as never);
    const ip = (a.spec as { clusterIP: string }).clusterIP;
    expect(outcome(() => store.create('ctl', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'b', namespace: 'default' }, spec: { clusterIP: ip, ports: [{ port: 80 }] } } as never))).toBe('Invalid');
  });
  it('a clusterIP outside the service CIDR is refused', () => {
    const { store } = world();
    expect(outcome(() => store.create('ctl', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'c', namespace: 'default' }, spec: { clusterIP: '192.168.1.1', ports: [{ port: 80 }] } } as never))).toBe('Invalid');
  });
  it('NodePort -> ClusterIP drops the unchanged nodePort and externalTrafficPolicy (dropTypeDependentFields)', () => {
    const { store } = world();
    const s = store.create('ctl', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'n', namespace: 'default' }, spec: { ports: [{ port: 80 }], type: 'NodePort' } } as never);
    const u = store.update('ctl', { ...s, spec: { ...(s.spec as object), type: 'ClusterIP' } } as never);
    const spec = u.spec as { ports: { nodePort?: number }[]; externalTrafficPolicy?: string };
    expect([spec.ports[0]!.nodePort, spec.externalTrafficPolicy]).toEqual([undefined, undefined]);
  });
});

describe('FA-E: NodePort -> ClusterIP keeps the node port and external traffic policy (kube drops them: dropTypeDependentFields)', () => {
  it('the svc-ssa program (client-node, server-side apply of the Service) passes the saved type-change revert', async () => {
    const s = JSON.parse(readFileSync(new URL('./fa-svc-ssa-type-change.json', import.meta.url), 'utf8')) as Scenario;
    const program = defineProgram({ entry: 'scratch/rt/programs/svc-ssa/correct.ts', for: 'Exposure', name: 'exposure-operator', resources: [{ kind: 'Exposure', plural: 'exposures', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ app: 'web', port: 80, targetPort: 8080, type: 'ClusterIP' }, { app: 'web', port: 80, targetPort: 8080, type: 'NodePort' }] });
    const r = await check(program, { corpus: { scenarios: [s] }, runs: 1, seed: 1, shrink: false });
    expect(verdict(r)).toBe('pass');
  });
});

describe('M-F: a Deployment switched to Recreate keeps the defaulted rollingUpdate (kube: 422 Forbidden)', () => {
  it('a read-modify-write to strategy Recreate that keeps the defaulted rollingUpdate is refused', () => {
    const { store } = world();
    const d = store.create('c', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } } as never);
    const spec = d.spec as Record<string, unknown>;
    expect(outcome(() => store.update('c', { ...d, spec: { ...spec, strategy: { ...(spec['strategy'] as object), type: 'Recreate' } } } as never))).toBe('Invalid');
  });
  it('a Service switched to ExternalName drops its cluster IPs (dropTypeDependentFields)', () => {
    const { store } = world();
    const sv = store.create('c', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default' }, spec: { ports: [{ port: 80 }] } } as never);
    const u = store.update('c', { ...sv, spec: { ...(sv.spec as object), type: 'ExternalName', externalName: 'db.example.com' } } as never);
    expect((u.spec as { clusterIP?: string }).clusterIP).toBeUndefined();
  });
});

describe('R-H: events.k8s.io/v1 Events are not validated (kube: eventTime, reportingController, reportingInstance, action required; note at most 1 KiB)', () => {
  it('an Event without eventTime, reportingController, reportingInstance and action is refused', () => {
    const { store } = world();
    expect(outcome(() => store.create('controller:x/0', { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' }, regarding: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', note: 'n', type: 'Normal' } as never))).toBe('Invalid');
  });
  it('a 2,000-character note is refused', () => {
    const { store } = world();
    expect(outcome(() => store.create('controller:x/0', { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e3', namespace: 'default' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'example.com/c', reportingInstance: 'c-0', action: 'Sync', regarding: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', note: 'x'.repeat(2000), type: 'Normal' } as never))).toBe('Invalid');
  });
});

describe('R-G: CRD selectableFields (GA in 1.32) are refused', () => {
  it('a field selector on a selectable field of a custom kind is served', () => {
    const { store } = world();
    store.create('user', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets', singular: 'widget' }, versions: [{ name: 'v1', served: true, storage: true, selectableFields: [{ jsonPath: '.spec.color' }], subresources: { status: {} } }] } } as never);
    store.create('user', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { color: 'blue' } } as never);
    expect(outcome(() => store.list('Widget', { namespace: 'default', fieldSelector: 'spec.color=blue' }))).toBe('accepted');
  });
});

describe('H-1: the object a watch map is handed is the API server\u2019s own: mutating it changes stored state with no write', () => {
  it('a status forged in a map function does not reach the stored object', async () => {
    const forger = defineController({
      name: 'forger',
      for: 'Widget',
      watches: [{ kind: 'Gadget', map: (g) => ((g.status as Record<string, unknown>)['forged'] = true, []) }],
      resyncPeriodMs: 10_000,
      async reconcile(ctx) {
        const w = await ctx.client.tryGet('Widget', ctx.key);
        if (w && !(await ctx.client.tryGet('Gadget', { namespace: 'default', name: 'g' }))) await ctx.client.create({ kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: {} });
      },
    });
    const s: Scenario = { seed: 1, controllers: [{ name: 'forger' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: {} } }], faults: { events: [], background: [] }, options: { faultWindowMs: 2000, settleMs: 2000 } } as never;
    const { run } = await simulate(s, { controllers: [forger] });
    expect(run.finalObjects.find((o) => o.kind === 'Gadget')?.status).toEqual({});
  });
});
