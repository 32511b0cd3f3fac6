import { describe, expect, it } from 'vitest';
import type { FaultPlan, Scenario, WorkloadAction } from '../../src/index.js';
import { huntTargets, propertiesFor, type Target } from '../../bench/hunt-targets.js';
import { judgeAll, type Side } from '../helpers/property-laws.js';

/**
 * The failures `bench/hunt-false-positives.ts` found in controllers the project called correct
 * (shrunk scenarios, replayed with every built-in property and the target's own), after the
 * controllers were fixed. Each failed before its fix (three guard first, incomplete fixes of the
 * bucket controller); the test name says what the bug was.
 */
function target(name: string): Target {
  const t = huntTargets.find((x) => x.name === name);
  if (!t) throw new Error(`no hunt target ${name}`);
  return t;
}

function sideOf(t: Target): Side {
  const env = (t.options.environment ?? []).map((e) => ('actor' in e ? e.actor : e));
  const downstream = t.options.downstream;
  return { controllers: [...t.controllers], options: { ...(downstream ? { downstream } : {}), ...(env.length ? { environment: env } : {}) } };
}

function scenario(t: Target, seed: number, workload: WorkloadAction[], faults: FaultPlan = { events: [], background: [] }): Scenario {
  return { seed, controllers: t.controllers.map((c) => ({ name: c.name })), ...(t.options.environment ? { environment: t.options.environment.map((e) => ('actor' in e ? { name: e.actor.name, ...(e.params ? { params: e.params } : {}) } : { name: e.name })) } : {}), initialObjects: [], workload, faults };
}

const create = (at: number, kind: string, name: string, spec: Record<string, unknown>, labels?: Record<string, string>): WorkloadAction => ({ at, type: 'create', object: { kind, metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) }, spec: spec as never } });
const update = (at: number, kind: string, name: string, spec: Record<string, unknown>): WorkloadAction => ({ at, type: 'update', kind, key: `default/${name}`, spec: spec as never });
const patch = (at: number, kind: string, name: string, spec: Record<string, unknown>): WorkloadAction => ({ at, type: 'patch', kind, key: `default/${name}`, patch: { spec: spec as never } });

interface Case {
  target: string;
  bug: string;
  scenario: (t: Target) => Scenario;
}

const cases: Case[] = [
  {
    target: 'prop:bucket',
    bug: 'a spec change to an existing bucket was never acknowledged (observedGeneration stuck)',
    scenario: (t) => scenario(t, 0, [create(0, 'Bucket', 'bucket-0', { region: 'eu' }), update(300, 'Bucket', 'bucket-0', { region: 'us' })]),
  },
  {
    target: 'prop:bucket',
    bug: 'a cache gone back in time made it PATCH the bucket to an old region (found against a first fix without live reads)',
    scenario: (t) =>
      scenario(t, 21, [create(0, 'Bucket', 'bucket-0', { region: 'us' }), patch(0, 'Bucket', 'bucket-0', { region: 'eu' })], {
        events: [
          { kind: 'reordering', nth: 0, params: { holdMs: 1801 } },
          { kind: 'reordering', nth: 2, params: { holdMs: 1 } },
        ],
        background: [],
      }),
  },
  {
    target: 'prop:bucket',
    bug: 'a retried create replayed the first answer, with the old region, and status claimed the new generation (found against a first fix)',
    scenario: (t) =>
      scenario(t, 123282535, [create(0, 'Bucket', 'bucket-0', { region: 'us' }), patch(600, 'Bucket', 'bucket-0', { region: 'eu' })], {
        events: [
          { kind: 'api-conflict', nth: 0 },
          { kind: 'watch-disconnect', nth: 1, params: { gone: false } },
        ],
        background: [],
      }),
  },
  {
    target: 'prop:bucket',
    bug: 'a bucket deleted out of band made every later PATCH fail with 404',
    scenario: (t) =>
      scenario(t, 0, [create(0, 'Bucket', 'bucket-0', { region: 'eu' }), patch(300, 'Bucket', 'bucket-0', { region: 'us' })], { events: [{ kind: 'drift', at: 2, params: { action: 'delete', pick: 0, external: true } }], background: [] }),
  },
  {
    target: 'prop:bucket',
    bug: 'a create replayed for a bucket deleted out of band, forever, because its id never reached status (found against a first fix)',
    scenario: (t) =>
      scenario(t, 1936501961, [create(1800, 'Bucket', 'bucket-0', { region: 'us' }), update(6600, 'Bucket', 'bucket-0', { region: 'eu' })], {
        events: [
          { kind: 'drift', at: 6601, params: { action: 'delete', pick: 0, external: true } },
          { kind: 'flaky-downstream', nth: 0, params: { fail: 'latency', ms: 4799 } },
          { kind: 'flaky-downstream', nth: 1, params: { fail: 'latency', ms: 4799 } },
        ],
        background: [],
      }),
  },
  {
    target: 'prop:dns',
    bug: 'two replicas (split brain) both found no record and both created one',
    scenario: (t) =>
      scenario(t, 1563589669, [create(19_500, 'Domain', 'shop-0', { host: 'www.shop.example.com' })], {
        events: [
          { kind: 'second-replica', at: 0, params: { leaderElection: true } },
          { kind: 'recreation', at: 20_460, params: { pick: 0, gapMs: 0 } },
          { kind: 'coalescing', nth: 0, params: { ms: 720 } },
          { kind: 'flaky-downstream', nth: 9, params: { fail: 'latency', ms: 0 } },
        ],
        background: [],
      }),
  },
  {
    target: 'fault:api-conflict',
    bug: 'no resync: a lost notification was never repaired',
    scenario: (t) => scenario(t, 13, [create(0, 'Widget', 'w-0', { size: 1 })], { events: [{ kind: 'event-loss', nth: 0 }], background: [] }),
  },
  {
    target: 'fault:api-conflict',
    bug: 'GenerationChanged filtered the recreated Widget (generation 1 again) seen as an update',
    scenario: (t) =>
      scenario(t, 2143027155, [create(0, 'Widget', 'w-0', { size: 1 })], {
        events: [
          { kind: 'recreation', at: 2, params: { pick: 0, gapMs: 0 } },
          { kind: 'coalescing', nth: 2, params: { ms: 1 } },
        ],
        background: [],
      }),
  },
  {
    target: 'fault:coalescing',
    bug: 'no resync: a stale list left status.succeeded short for good',
    scenario: (t) => scenario(t, 1187194683, [create(0, 'Batch', 'nightly-0', {}), create(300, 'Task', 'task-0', {}, { batch: 'nightly-0' })], { events: [{ kind: 'stale-snapshot', nth: 9, params: { versionsBack: 1 } }], background: [] }),
  },
  {
    target: 'fault:duplication',
    bug: 'every extra reconcile sent a create that failed with AlreadyExists (a write per resync)',
    scenario: (t) => scenario(t, 0, [create(0, 'Config', 'app-config-0', { data: 'v1' })]),
  },
  {
    target: 'fault:flaky-downstream',
    bug: 'no resync: a lost notification left the Order without a shop order',
    scenario: (t) => scenario(t, 13, [create(0, 'Order', 'order-0', { item: 'book' })], { events: [{ kind: 'event-loss', nth: 0 }], background: [] }),
  },
  {
    target: 'fault:list-order',
    bug: 'a stale cached Cluster after a scale-down, and no resync: three members stayed',
    scenario: (t) => scenario(t, 534381346, [create(0, 'Cluster', 'db-0', { members: 3 }), update(600, 'Cluster', 'db-0', { members: 1 })], { events: [{ kind: 'stale-snapshot', nth: 4, params: { versionsBack: 1 } }], background: [] }),
  },
  {
    target: 'fault:list-order',
    bug: 'a stale cached Cluster made it recreate the member a scale-down had just removed',
    scenario: (t) =>
      scenario(t, 1043677878, [create(0, 'Cluster', 'db-0', { members: 3 }), update(15_000, 'Cluster', 'db-0', { members: 2 })], {
        events: [
          { kind: 'coalescing', nth: 2, params: { ms: 637 } },
          { kind: 'stale-snapshot', nth: 24, params: { versionsBack: 1 } },
        ],
        background: [],
      }),
  },
  {
    target: 'fault:recreation',
    bug: 'no resync: after a stale read of the old generation nothing brought it back',
    scenario: (t) => scenario(t, 1724031886, [create(0, 'Database', 'orders-0', { version: '15' }), update(600, 'Database', 'orders-0', { version: '16' })], { events: [{ kind: 'stale-snapshot', nth: 2, params: { versionsBack: 1 } }], background: [] }),
  },
  {
    target: 'fault:reordering',
    bug: 'no resync: a lost notification left the Site unstamped',
    scenario: (t) => scenario(t, 13, [create(0, 'Site', 'shop-0', { replicas: 3 })], { events: [{ kind: 'event-loss', nth: 0 }], background: [] }),
  },
  {
    target: 'fault:single-child',
    bug: 'no resync: a lost notification left the App without its Pod',
    scenario: (t) => scenario(t, 13, [create(0, 'App', 'web-0', { image: 'nginx:1' })], { events: [{ kind: 'event-loss', nth: 0 }], background: [] }),
  },
  {
    target: 'corpus:worker-pool',
    bug: 'ours, not the controller\'s: a relist after 410 came from a replica behind what the informer had already observed (client-go relists "not older than" its last resourceVersion), hiding a Pod the controller had created and seen',
    scenario: (t) =>
      scenario(
        t,
        10,
        [
          update(1800, 'WorkerPool', 'workers-1', { replicas: 4, image: 'worker:2' }),
          { at: 1800, type: 'reapply', kind: 'WorkerPool', key: 'default/workers-1' },
          create(23_700, 'WorkerPool', 'workers-0', { replicas: 1, image: 'worker:1' }),
          create(23_700, 'WorkerPool', 'workers-1', { replicas: 1, image: 'worker:1' }),
        ],
        {"events": [{"kind": "reordering", "nth": 12, "params": {"holdMs": 1748}}, {"kind": "watch-disconnect", "nth": 3, "params": {"how": "cut"}}, {"kind": "stale-snapshot", "nth": 0, "params": {"list": true, "versionsBack": 8, "catchUpMs": 3833}}, {"kind": "api-error", "nth": 10, "params": {"status": 500}}], "background": [{"kind": "watch-event-loss", "rate": 0.42}, {"kind": "stale-snapshot", "rate": 0.04, "params": {"lagMs": 2461}}, {"kind": "api-error", "rate": 0.25, "params": {"status": 504, "applied": false}}, {"kind": "flaky-downstream", "rate": 0.24, "params": {"fail": "hang"}}, {"kind": "coalescing", "rate": 0.04, "params": {"ms": 5}}]},
      ),
  },
];

describe('controllers the false-positive hunt found buggy stay fixed', () => {
  for (const c of cases) {
    it(`${c.target}: ${c.bug}`, async () => {
      const t = target(c.target);
      const failures = await judgeAll(propertiesFor(t, []), c.scenario(t), sideOf(t));
      expect(failures.map((f) => `${f.property}: ${f.verdict.summary}`)).toEqual([]);
    });
  }
});
