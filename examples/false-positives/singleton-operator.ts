import { defineController, deployment, podLifecycle, type JsonObject, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { deploymentAvailable, shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A cluster singleton with a management state, as OpenShift's cluster operators are configured:
 * a cluster-scoped `MonitoringStack` named `cluster` is THE configuration of the cluster's
 * monitoring (`config.openshift.io/v1` `Ingress`/`Image`/`...` named `cluster`, the image-registry
 * operator's `configs.imageregistry` `cluster`); objects of the kind under any other name are not
 * configurations the operator acts on, and say so in a `Degraded` condition (reason
 * `NotSingleton`) without touching anything. The singleton's operands live in a namespace the
 * operator does not own (`monitoring`, made by the installer): a ConfigMap `prometheus-config`
 * (the retention) and a Deployment `prometheus` (the replicas, the config's hash in the pod
 * template so a new retention rolls it), labelled `app.kubernetes.io/managed-by` and controlled by
 * the singleton (a namespaced dependent of a cluster-scoped owner, which Kubernetes allows: the
 * garbage collector takes them when the singleton goes).
 *
 * `spec.managementState` is the operator API's switch (operator.openshift.io): `Managed` keeps
 * the operands as the spec says (drift repaired), `Unmanaged` hands them to the admin (nothing is
 * written to them, drift stays: that is what an admin asks for while debugging the operand by
 * hand), `Removed` deletes them (found by label, uid precondition). The singleton is read LIVE (a
 * cached `Removed` the admin has since switched back would delete running operands); the operands
 * come from the cache (their events map back to the singleton by label: an owner reference cannot
 * name a namespace-less owner's key). Status: `Available` (the Deployment's Available for its
 * current generation while Managed or Unmanaged, False while Removed) and
 * `observedGeneration`.
 *
 * Its buggy twin does not enforce the singleton: it acts on every MonitoringStack, as an operator
 * whose CRD says "create one" but whose code never checks. A second instance (a staging copy applied
 * to the wrong cluster) then fights the singleton over the same operands: a Managed one finds them
 * controlled by `cluster` and fails every reconcile, a Removed one deletes them on every resync and
 * the singleton makes them again. (A first twin read the singleton from the informer cache instead
 * of live; no fault exposed it in 600 gate runs, and rightly: an informer's cache only moves forward,
 * so a cached `Removed` is seen only BEFORE the switch back to Managed, when there is nothing left to
 * delete; only a restart listing from a lagging replica, right after operands were made, could.)
 */
export const STACK = 'MonitoringStack';
const SINGLETON = 'cluster';
const NS = 'monitoring';
const MANAGED_BY = 'app.kubernetes.io/managed-by';
const OPERATOR = 'monitoring-operator';
const CONFIG_HASH = 'monitoring.example.com/config-hash';

type ManagementState = 'Managed' | 'Unmanaged' | 'Removed';
interface StackSpec {
  managementState: ManagementState;
  replicas: number;
  retention: string;
}
interface StackStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}
type Stack = StoredObject<StackSpec, StackStatus>;

const deleting = (o: StoredObject<unknown, unknown>) => o.metadata.deletionTimestamp !== undefined;
const configData = (s: Stack) => ({ retention: s.spec.retention });
const labels = { app: 'prometheus', [MANAGED_BY]: OPERATOR };

function define(mistake: 'none' | 'no-singleton-check') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const s = (await ctx.client.tryGet<StackSpec, StackStatus>(STACK, ctx.key, { live: true })) as Stack | undefined;
    if (!s || deleting(s)) return;
    const now = ctx.clock.now();
    const gen = s.metadata.generation;
    if (s.metadata.name !== SINGLETON && mistake === 'none') {
      const conditions = setCondition(s.status.conditions, { type: 'Degraded', status: 'True', reason: 'NotSingleton', message: `only ${STACK} "${SINGLETON}" configures the cluster's monitoring; this one is not acted on`, observedGeneration: gen }, now);
      await writeStatus(ctx, s, { observedGeneration: gen, conditions });
      return;
    }
    const mine = (o: StoredObject) => o.metadata.labels[MANAGED_BY] === OPERATOR;
    let available: Omit<Condition, 'lastTransitionTime'>;
    switch (s.spec.managementState) {
      case 'Removed': {
        for (const kind of ['Deployment', 'ConfigMap']) for (const o of (await ctx.client.list(kind, { namespace: NS })).filter(mine)) if (!deleting(o)) await deleteIfPresent(ctx, kind, { namespace: NS, name: o.metadata.name }, { uid: o.metadata.uid });
        available = { type: 'Available', status: 'False', reason: 'Removed', message: 'managementState Removed: the operands are deleted', observedGeneration: gen };
        break;
      }
      case 'Unmanaged': {
        // hands off the operands, still honest about them: what the cache shows of the Deployment, written nowhere else
        const dep = (await ctx.client.list('Deployment', { namespace: NS })).find((o) => o.metadata.name === 'prometheus' && mine(o));
        const ok = dep !== undefined && controlledBy(dep, s) && deploymentAvailable(dep);
        available = { type: 'Available', status: ok ? 'True' : 'False', reason: 'Unmanaged', message: `managementState Unmanaged: the operands are the admin's (prometheus ${ok ? 'is' : 'is not'} available)`, observedGeneration: gen };
        break;
      }
      default: {
        const owner = [controllerRef(s)];
        const data = configData(s);
        await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'prometheus-config', namespace: NS, labels, ownerReferences: owner }, data });
        const dep = await apply(ctx, {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'prometheus', namespace: NS, labels, ownerReferences: owner },
          spec: {
            replicas: s.spec.replicas,
            selector: { matchLabels: { app: 'prometheus' } },
            template: {
              metadata: { labels: { app: 'prometheus' }, annotations: { [CONFIG_HASH]: shortHash(JSON.stringify(data)) } },
              spec: { containers: [{ name: 'prometheus', image: 'prometheus:v2' }], volumes: [{ name: 'config', configMap: { name: 'prometheus-config' } }] },
            },
          },
        });
        const ok = controlledBy(dep, s) && deploymentAvailable(dep);
        available = { type: 'Available', status: ok ? 'True' : 'False', reason: ok ? 'AsExpected' : 'Deploying', message: ok ? 'prometheus is available' : 'prometheus is rolling out', observedGeneration: gen };
      }
    }
    await writeStatus(ctx, s, { observedGeneration: gen, conditions: setCondition(s.status.conditions, available, now) });
  }

  return defineController({
    name: 'monitoring-operator',
    for: STACK,
    watches: [
      // the operands, by label: their owner is cluster-scoped, the singleton's key is its name alone
      { kind: 'Deployment', map: (o) => (o.metadata.namespace === NS && o.metadata.labels[MANAGED_BY] === OPERATOR ? [SINGLETON] : []) },
      { kind: 'ConfigMap', map: (o) => (o.metadata.namespace === NS && o.metadata.labels[MANAGED_BY] === OPERATOR ? [SINGLETON] : []) },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const monitoringOperatorController = define('none');

/**
 * Converged: every MonitoringStack observed its generation; the others say NotSingleton; the
 * singleton's operands are as its management state says (Managed: as the spec says, controlled
 * by it; Removed: none; Unmanaged: not judged).
 */
export function managed(view: WorldView): true | string {
  const stacks = view.list(STACK) as unknown as Stack[];
  const operands = ['Deployment', 'ConfigMap'].flatMap((k) => view.list(k)).filter((o) => o.metadata.namespace === NS && o.metadata.labels[MANAGED_BY] === OPERATOR && !deleting(o));
  for (const s of stacks) {
    if (deleting(s)) continue;
    if (s.status.observedGeneration !== s.metadata.generation) return `${STACK} ${s.metadata.name} has not observed generation ${s.metadata.generation}`;
    if (s.metadata.name !== SINGLETON) {
      if (s.status.conditions?.find((c) => c.type === 'Degraded')?.reason !== 'NotSingleton') return `${STACK} ${s.metadata.name} is not the singleton and does not say so`;
      continue;
    }
    if (s.spec.managementState === 'Removed' && operands.length > 0) return `${STACK} cluster is Removed, ${operands.map((o) => `${o.kind} ${o.metadata.name}`).join(', ')} still there`;
    if (s.spec.managementState === 'Managed') {
      const cm = operands.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'prometheus-config');
      const dep = operands.find((o) => o.kind === 'Deployment' && o.metadata.name === 'prometheus');
      if (!cm || !controlledBy(cm, s) || (cm['data'] as Record<string, string> | undefined)?.['retention'] !== s.spec.retention) return `${STACK} cluster is Managed, its ConfigMap is missing or holds another retention`;
      if (!dep || !controlledBy(dep, s) || dep.spec['replicas'] !== s.spec.replicas) return `${STACK} cluster is Managed, its Deployment is missing or runs another replica count`;
    }
  }
  return true;
}

const stack = (name: string, spec: StackSpec) => ({ apiVersion: 'monitoring.example.com/v1', kind: STACK, metadata: { name }, spec: spec as unknown as JsonObject });
const state = (managementState: ManagementState) => ({ spec: { managementState } });

export const singletonOperator: FalsePositiveCase = {
  name: 'singleton-operator',
  description: 'OpenShift-style cluster singleton: only the cluster-scoped MonitoringStack named cluster configures the operands in a namespace the operator does not own; its managementState keeps them (Managed), hands them to the admin (Unmanaged) or deletes them (Removed); other instances are reported NotSingleton',
  controllers: [monitoringOperatorController],
  options: {
    // the singleton: retention changed at 4 s (a rollout), Unmanaged at 8 s (the replica change at 11 s
    // waits), Managed again at 14 s (applied), Removed at 18 s, Managed at 22 s (everything made again)
    story: {
      objects: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
        stack(SINGLETON, { managementState: 'Managed', replicas: 2, retention: '24h' }),
      ],
      actions: [
        { at: 4000, type: 'patch', kind: STACK, key: SINGLETON, patch: { spec: { retention: '7d' } } },
        { at: 8000, type: 'patch', kind: STACK, key: SINGLETON, patch: state('Unmanaged') },
        { at: 11_000, type: 'patch', kind: STACK, key: SINGLETON, patch: { spec: { replicas: 3 } } },
        { at: 14_000, type: 'patch', kind: STACK, key: SINGLETON, patch: state('Managed') },
        { at: 18_000, type: 'patch', kind: STACK, key: SINGLETON, patch: state('Removed') },
        { at: 22_000, type: 'patch', kind: STACK, key: SINGLETON, patch: state('Managed') },
      ],
      jitterMs: 500,
    },
    // generated: instances that are not the singleton (a staging copy someone applied to the wrong cluster)
    objects: [
      {
        kind: STACK,
        namespace: '',
        names: ['staging'],
        spec: [
          { managementState: 'Managed', replicas: 1, retention: '2h' },
          { managementState: 'Removed', replicas: 1, retention: '2h' },
        ],
      },
    ],
    environment: [deployment, podLifecycle],
    maxObjects: 2,
  },
  properties: [convergence({ converged: managed }), ...podEndStateProperties()],
  buggy: {
    controllers: [define('no-singleton-check')],
    caughtBy: ['convergence', 'no-hot-loop', 'no-fighting', 'idempotence', 'same-end-state', 'no-extra-destructive-actions'],
    why: 'it acts on every MonitoringStack, not only the one named cluster: a second instance fights the singleton over the same operands (a Managed one fails on operands another owner controls, a Removed one deletes them on every resync)',
  },
};
