import { describe, expect, it } from 'vitest';
import { check, defineController, type ControllerDefinition, type Scenario, type WorkloadAction } from '../../src/index.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { referenceGrant, referenceGrantController } from '../../examples/false-positives/reference-grant.js';

/**
 * same-end-state compares the faulted world with the world the same user intent makes without
 * faults. When a fault refuses the user's own write, the intent that took effect is the one the
 * run's API server accepted: the retry, at its time and in the run's order at that instant
 * (src/harness/twin.ts `userAcceptedLate`), so that what the API server refused because of it is
 * refused there too. Found by the corpus (reference-grant, fpJ): a 500 refused the user's
 * re-create of namespace `payments` at 19 s, the retry was accepted at 20 s just after the user's
 * Service create of that instant, which got NotFound (never retried). The run ends without the
 * Service and the HTTPRoute that names it (by name, not by ownerReference) resolves to
 * BackendNotFound; the fault-free run made the Service. The correct controller is right in both.
 */
const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'payments', labels: { 'kubernetes.io/metadata.name': 'payments' } } };
const workload = (serviceAt: number): WorkloadAction[] => [
  { at: 13_000, type: 'delete', kind: 'Namespace', key: 'payments' },
  { at: 19_000, type: 'create', object: namespace },
  { at: serviceAt, type: 'create', object: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gateway', namespace: 'payments' }, spec: { selector: { app: 'gateway' }, ports: [{ name: 'http', port: 443 }] } } },
  { at: 21_000, type: 'create', object: { apiVersion: 'gateway.networking.k8s.io/v1beta1', kind: 'ReferenceGrant', metadata: { name: 'allow-apps', namespace: 'payments' }, spec: { from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'apps' }], to: [{ group: '', kind: 'Service', name: 'gateway' }] } } },
];
/** The user's re-create of the namespace refused (500), and maybe one controller call failing. */
const scenario = (serviceAt: number, controllerErrorNth?: number): Scenario => ({
  seed: 2,
  controllers: [{ name: 'gateway-routes' }],
  initialObjects: [namespace, { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'checkout', namespace: 'apps' }, spec: { path: '/checkout', backendRef: { name: 'gateway', namespace: 'payments', port: 443 } } }],
  workload: workload(serviceAt),
  faults: { events: [{ kind: 'api-error', nth: 1, target: 'user', params: { status: 500 } }, ...(controllerErrorNth !== undefined ? [{ kind: 'api-error', nth: controllerErrorNth, params: { status: 500 } }] : [])], background: [] },
});

/** The gateway that swallows API errors (no requeue) and has no resync: a write a fault failed is never made again. */
const g = referenceGrantController;
const swallowing: ControllerDefinition = defineController({
  name: g.name,
  for: g.for,
  owns: [...g.owns],
  watches: [...g.watches],
  resyncPeriodMs: 0,
  leaderElection: true,
  reconcile: async (ctx) => {
    try {
      await g.reconcile(ctx);
    } catch {
      // swallowed: the workqueue never retries
    }
  },
} as Parameters<typeof defineController>[0]);

const judge = async (controller: ControllerDefinition, s: Scenario) => {
  const r = await check([controller], { ...referenceGrant.options, properties: [sameEndState()], runs: 1, seed: 1, shrink: false, corpus: { scenarios: [s] } });
  return r.ok ? 'passed' : `${r.property}: ${r.summary}`;
};

describe('same-end-state: the user intent that took effect', () => {
  it("a Service create refused NotFound because a fault held back its namespace's create: the route that names the Service ends as the fault-free run of that intent does (passes)", { timeout: 60_000 }, async () => {
    expect(await judge(referenceGrantController, scenario(20_000))).toBe('passed');
  });

  it('still fails a controller that drops a write a fault failed, in the same run (the route ends as no fault-free run of either intent)', { timeout: 60_000 }, async () => {
    // the 5th controller call (status write after the grant at 21 s) fails: the route keeps RefNotPermitted
    expect(await judge(swallowing, scenario(20_000, 4))).toMatch(/^same-end-state: end state differs from the fault-free run: HTTPRoute apps\/checkout: status\.conditions\[0\]\.message is "no ReferenceGrant in payments admits/);
    expect(await judge(referenceGrantController, scenario(20_000, 4))).toBe('passed');
  });

  it('still fails it when the moved namespace create let the Service in (the fault-free run of that intent resolves the route)', { timeout: 60_000 }, async () => {
    expect(await judge(swallowing, scenario(20_500, 5))).toBe('same-end-state: end state differs from the fault-free run: ConfigMap apps/checkout-backend: data.upstream is "", "gateway.payments.svc.cluster.local:443" in the fault-free run');
    expect(await judge(referenceGrantController, scenario(20_500, 5))).toBe('passed');
  });
});
