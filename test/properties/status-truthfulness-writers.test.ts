import { describe, expect, it } from 'vitest';
import { reloaderController } from '../../examples/false-positives/config-reloader.js';
import { defaultActual, statusTruthfulness } from '../../properties/status-truthfulness.js';
import { defineController } from '../../src/runtime/define-controller.js';
import type { Scenario } from '../../src/harness/scenario.js';
import type { WorldView } from '../../src/harness/world.js';
import type { JsonObject, StoredObject } from '../../src/store/object.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

/**
 * status-truthfulness judges the claims the controllers under test make, by what Kubernetes means
 * by them (issue: the corpus' config-reloader, a Reloader-like controller `for: 'Deployment'`,
 * failed it with no fault at all).
 *
 * 1. Writer: a Deployment's `Available` is the Deployment controller's report (actor
 *    `environment:deployment`), not the reloader's, which only changes the pod template; a
 *    controller `for: 'Deployment'` that does write a readiness claim into its status is still
 *    held to it.
 * 2. Meaning: a Deployment is available while its ReplicaSets, old and new, have at least
 *    `replicas − maxUnavailable` pods available (a surge rollout keeps it available while the
 *    old ReplicaSet serves), not only once every ReplicaSet it controls is fully ready.
 */

const NS = 'default';
const labels = { app: 'api' };
const deploymentOf = (annotations: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', namespace: NS, annotations },
  spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'api', image: 'api:1' }], volumes: [{ name: 'settings', configMap: { name: 'settings' } }] } } },
});

/** scratch/fpJ/config-reloader-status-truthfulness-shrunk.json: one ConfigMap edit at 36 s, no fault. */
const reloaded: Scenario = {
  seed: 1,
  controllers: [{ name: 'reloader' }],
  environment: [{ name: 'deployment' }, { name: 'pod-lifecycle' }],
  initialObjects: [deploymentOf({ 'reloader.example.com/auto': 'true' }) as never],
  workload: [{ at: 36_000, type: 'apply', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: NS }, data: { LOG_LEVEL: 'debug' } } }],
  faults: { events: [], background: [] },
};

/** One Deployment the user rolls out to a new image once faults stop (the surge rollout takes ~2.1 s). */
function rollout(controller: string): Scenario {
  return {
    seed: 3,
    controllers: [{ name: controller }],
    environment: [{ name: 'deployment' }, { name: 'pod-lifecycle' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: deploymentOf() as never },
      { at: 8000, type: 'patch', kind: 'Deployment', key: `${NS}/api`, patch: { spec: { template: { spec: { containers: [{ name: 'api', image: 'api:2' }] } } } } },
    ],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5000, settleMs: 20_000 },
  };
}

const isAvailable = (d: StoredObject) => Array.isArray(d.status['conditions']) && (d.status['conditions'] as JsonObject[]).some((c) => c['type'] === 'Available' && c['status'] === 'True');

/** A controller `for: 'Deployment'` that reports `status.ready` on the Deployment itself: a copy of its Available (correct), or true at once (buggy). */
function readyMarker(name: string, says: 'available' | 'at-once') {
  return defineController({
    name,
    for: 'Deployment',
    async reconcile(ctx) {
      const d = await ctx.client.tryGet('Deployment', ctx.key);
      if (!d || d.metadata.deletionTimestamp !== undefined) return;
      const ready = says === 'at-once' || isAvailable(d);
      if (d.status['ready'] !== ready) await ctx.client.patchStatus('Deployment', ctx.key, { status: { ready } });
    },
  });
}

describe('status-truthfulness: whose claim, and what a Deployment claims', () => {
  it('a controller for Deployments that never writes their status is not held to the Deployment controller\'s Available (config-reloader, no fault)', async () => {
    const { verdict, run } = await judgeScenario(statusTruthfulness(), reloaded, { controllers: [reloaderController] });
    expectQuiet(verdict);
    // the reloader did restart the pods (a rollout), and only the Deployment controller wrote Available
    expect(run.writes.some((w) => w.actor.startsWith('controller:reloader') && w.t >= 36_000 && w.changed.includes('spec.template.metadata.annotations'))).toBe(true);
    expect(run.writes.filter((w) => w.kind === 'Deployment' && w.changed.includes('status.conditions')).every((w) => w.actor === 'environment:deployment')).toBe(true);
  });

  it('a controller that writes a false claim into a Deployment\'s status is still judged, and blamed', async () => {
    const marker = readyMarker('ready-marker', 'at-once');
    const v = expectFailure((await judgeScenario(statusTruthfulness(), rollout(marker.name), { controllers: [marker] })).verdict);
    expect(v.evidence).toMatchObject({ object: 'Deployment default/api', rule: 'claim', claimedBy: 'controller:ready-marker/0' });
    expect(v.summary).toMatch(/^Deployment default\/api reported Ready for .* while not actually ready \(Deployment default\/api: 0 pods available across its ReplicaSets, fewer than its minimum availability of 2 \(replicas 2 − maxUnavailable 0\)\)$/);
  });

  it('a controller that reports a Deployment ready while it has minimum availability passes through a surge rollout', async () => {
    const marker = readyMarker('available-marker', 'available');
    const { verdict, run } = await judgeScenario(statusTruthfulness(), rollout(marker.name), { controllers: [marker] });
    expectQuiet(verdict);
    // the claim is the controller's own, and stood through the rollout (a new ReplicaSet with nothing available yet)
    expect(run.writes.some((w) => w.actor === 'controller:available-marker/0' && w.changed.includes('status.ready'))).toBe(true);
    expect(run.writes.filter((w) => w.kind === 'ReplicaSet' && w.verb === 'create').length).toBe(2);
  });

  it('a Deployment is actually ready by minimum availability, counted over all its ReplicaSets', () => {
    const uid = 'd-1';
    const dep = (spec: JsonObject = {}): StoredObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('api', uid, []), spec: { replicas: 4, ...spec }, status: {} }) as unknown as StoredObject;
    const rs = (name: string, available: number): StoredObject => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta(name, `${name}-uid`, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid, controller: true }]), spec: { replicas: 4 }, status: { availableReplicas: available } }) as unknown as StoredObject;
    const judge = (d: StoredObject, sets: StoredObject[]) => defaultActual(d, viewOf([d, ...sets]));
    // mid-rollout: the new ReplicaSet has nothing yet, the old one serves all 4
    expect(judge(dep(), [rs('api-old', 4), rs('api-new', 0)])).toBe(true);
    // 25 % of 4 may be unavailable (rounded down): 3 of 4 is enough, 2 is not
    expect(judge(dep(), [rs('api-old', 2), rs('api-new', 1)])).toBe(true);
    expect(judge(dep(), [rs('api-old', 2), rs('api-new', 0)])).toBe('Deployment default/api: 2 pods available across its ReplicaSets, fewer than its minimum availability of 3 (replicas 4 − maxUnavailable 1)');
    // Recreate: all of them
    expect(judge(dep({ strategy: { type: 'Recreate' } }), [rs('api-new', 3)])).toMatch(/minimum availability of 4 \(replicas 4 − maxUnavailable 0\)/);
    // an explicit maxUnavailable, and both bounds 0 (Kubernetes then allows 1)
    expect(judge(dep({ strategy: { rollingUpdate: { maxUnavailable: 2 } } }), [rs('api-new', 2)])).toBe(true);
    expect(judge(dep({ strategy: { rollingUpdate: { maxUnavailable: '50%' } } }), [rs('api-new', 1)])).toMatch(/minimum availability of 2/);
    expect(judge(dep({ strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }), [rs('api-new', 3)])).toBe(true);
    // no ReplicaSet at all: nothing runs it, not judged
    expect(judge(dep(), [])).toBeUndefined();
  });
});

function meta(name: string, uid: string, ownerReferences: JsonObject[]) {
  return { name, namespace: NS, uid, resourceVersion: '1', generation: 1, creationTimestamp: '1970-01-01T00:00:00Z', labels: {}, annotations: {}, finalizers: [], ownerReferences };
}

function viewOf(objects: StoredObject[]): WorldView {
  const list = (kind: string) => objects.filter((o) => o.kind === kind);
  return {
    now: () => 0,
    get: (kind, key) => objects.find((o) => o.kind === kind && `${o.metadata.namespace}/${o.metadata.name}` === key),
    list,
    kinds: () => [...new Set(objects.map((o) => o.kind))],
    downstream: () => [],
    services: () => [],
    requests: () => [],
    apiRequests: () => [],
  };
}
