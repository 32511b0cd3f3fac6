import { describe, expect, it } from 'vitest';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { podsCorrect, podsGeneratedNamesBuggy, replicaSet } from '../../examples/property-targets/pods.js';
import { widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { aliasUids, uidAliases } from '../../properties/_internals/normalize.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { auditCorrect } from '../../examples/fault-targets/duplication/correct.js';
import { migrationController, SCHEMA_MIGRATION } from '../../examples/false-positives/migration-runner.js';
import { labelFanoutController, SHARD_SET } from '../../examples/false-positives/label-fanout.js';
import { defineController, deployment, job, podLifecycle } from '../../src/index.js';
import type { ControllerDefinition, RunRecord, Scenario } from '../../src/index.js';
import { TENANT, tenantControllerCachedRead } from '../../examples/false-positives/namespace-provisioner.js';
import { WORKER_POOL, workerPool } from '../../examples/false-positives/worker-pool.js';
import { bucketLocation } from '../../examples/false-positives/bucket-location.js';
import { replacements, transientContents } from '../../properties/_internals/replacements.js';
import { readFileSync } from 'node:fs';
import { check } from '../../src/index.js';
import { orphanSweeper } from '../../examples/false-positives/orphan-sweeper.js';
import { ScenarioRunner } from '../../src/harness/scenario-runner.js';
import { allFaults } from '../../faults/index.js';
import { CLUSTER, MEMBER, clusterScenario, ordinalOf, type ClusterSpec } from '../../examples/fault-targets/list-order/cluster.js';
import { clusterBuggy } from '../../examples/fault-targets/list-order/buggy.js';
import { clusterCorrect } from '../../examples/fault-targets/list-order/correct.js';

/**
 * A Cluster whose members are interchangeable: scaling down removes whichever come first in the
 * list (any member will do), scaling up names the lowest free ordinal. Reads live, so it never
 * acts twice on one shortfall. A permuted list changes which member goes, never how many.
 */
const interchangeablePool = defineController({
  name: 'pool',
  for: CLUSTER,
  owns: [MEMBER],
  async reconcile(ctx) {
    const c = await ctx.client.tryGet<ClusterSpec>(CLUSTER, ctx.key, { live: true });
    if (!c || c.metadata.deletionTimestamp !== undefined) return;
    const members = await ctx.client.list(MEMBER, { namespace: c.metadata.namespace!, labelSelector: { matchLabels: { cluster: c.metadata.name } }, live: true });
    const used = new Set(members.map((m) => ordinalOf(m.metadata.name)));
    for (let n = members.length, i = 0; n < c.spec.members; i++) {
      if (used.has(i)) continue;
      await ctx.client.create({ kind: MEMBER, metadata: { name: `${c.metadata.name}-${i}`, namespace: c.metadata.namespace, labels: { cluster: c.metadata.name }, ownerReferences: [{ kind: CLUSTER, name: c.metadata.name, uid: c.metadata.uid, controller: true }] }, spec: { ordinal: i } });
      n++;
    }
    for (const m of members.slice(c.spec.members)) await ctx.client.delete(MEMBER, { namespace: m.metadata.namespace, name: m.metadata.name });
  },
});

// the second watch delivery of the run is the new Pod's ADDED event: the cache misses the Pod until the settle relist
const dropPodAdded = { events: [{ kind: 'watch-event-loss', nth: 1 }], background: [] };
const scenario = widgetScenario(['replicaset'], [{ at: 0, type: 'create', object: replicaSet('web', 1) }], { faults: dropPodAdded });

propertyLaws({
  property: noExtraDestructiveActions(),
  buggy: { controllers: [podsGeneratedNamesBuggy], scenario },
  correct: {
    controllers: [podsCorrect],
    scenarios: [
      { name: 'a dropped Pod watch event', scenario },
      { name: 'a dropped Pod watch event (test fault)', scenario: { ...scenario, faults: { events: [{ kind: 'test-watch-drop', nth: 0, target: 'Pod' }], background: [] } } },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: [/the ADDED watch event of Pod default\/web-\w{5} to replicaset at t=0\.\d+ s was lost on its way to the informer \(watch-event-loss\)/, 'made 2 creates and 1 delete of Pod default/web-*', 'against 1 create and 0 deletes in the fault-free run', 'a destructive action was taken on a wrong view of the world', /the extra delete came from the reconcile of default\/web/],
});

describe('noExtraDestructiveActions', () => {
  it('allows slack', async () => {
    const { verdict } = await judgeScenario(noExtraDestructiveActions({ slack: 1 }), scenario, { controllers: [podsGeneratedNamesBuggy] });
    expect(verdict.ok).toBe(true);
  });
  it('gives per-object counts as evidence', async () => {
    const v = expectFailure((await judgeScenario(noExtraDestructiveActions(), scenario, { controllers: [podsGeneratedNamesBuggy] })).verdict);
    expect(v.evidence).toMatchObject({ object: 'Pod default/web-*', creates: 2, deletes: 1, twinCreates: 1, twinDeletes: 0 });
  });
});

describe('noExtraDestructiveActions false positives (regressions, found by bench/hunt-false-positives.ts)', () => {
  const side = (c: ControllerDefinition) => ({ controllers: [c] });

  it('a child created for an owner already deleted, and collected at once, is not an extra create', async () => {
    // the App's DELETED event comes 300 ms late: until then the cached App makes the controller
    // recreate the Pod the garbage collector just removed (a loop of create + collect)
    const s: Scenario = {
      seed: 0,
      controllers: [{ name: 'single-child-correct' }],
      initialObjects: [],
      workload: [
        { at: 0, type: 'create', object: { kind: 'App', metadata: { name: 'web-0', namespace: 'default' }, spec: { image: 'nginx:1' } } },
        { at: 17_100, type: 'delete', kind: 'App', key: 'default/web-0' },
      ],
      faults: { events: [{ kind: 'delay', nth: 3, params: { ms: 300 } }], background: [] },
      options: { faultWindowMs: 30_000, settleMs: 30_000 },
    };
    const { verdict, run } = await judgeScenario(noExtraDestructiveActions(), s, side(singleChildCorrect));
    const creates = run.writes.filter((w) => w.verb === 'create' && w.kind === 'Pod' && w.error === undefined);
    expect(creates.length).toBeGreaterThan(2);
    expect(run.writes.filter((w) => w.actor === 'environment:garbage-collector' && w.removed).length).toBe(creates.length);
    expect(verdict.ok).toBe(true);
  });

  it('a child created in a Namespace made for an owner already deleted, removed with that Namespace, is not an extra create', async () => {
    // first found on the corpus's namespace-provisioner: the Tenant watch lags 300 ms behind the
    // deletion, so the cache still shows the Tenant while the garbage collector removes its
    // Namespace; every removal event makes the controller create the Namespace and the Role in it
    // again (removed with the Namespace by the namespace controller), until the cache catches up
    const s: Scenario = {
      seed: 12,
      controllers: [{ name: tenantControllerCachedRead.name }],
      initialObjects: [],
      workload: [
        { at: 1000, type: 'create', object: { kind: TENANT, metadata: { name: 'team-0' }, spec: { admins: ['alice'], maxPods: 10 } } },
        { at: 6000, type: 'delete', kind: TENANT, key: 'team-0' },
      ],
      faults: { events: [{ kind: 'stale-snapshot', nth: 6, target: 'tenant', params: { lagMs: 300, forMs: 5000 } }], background: [] },
      options: { faultWindowMs: 30_000, settleMs: 30_000 },
    };
    const { verdict, run } = await judgeScenario(noExtraDestructiveActions({ learn: false }), s, side(tenantControllerCachedRead));
    expect(run.writes.filter((w) => w.actor === 'environment:namespace-controller' && w.kind === 'Role' && w.removed).length).toBeGreaterThan(10);
    expect(run.writes.filter((w) => w.verb === 'create' && w.kind === 'Role' && w.error === undefined).length).toBeGreaterThan(10);
    expect(verdict.ok).toBe(true);
  });

  it('an object of another legal path, made and removed on views read live, is not extra (two spec changes seen as one)', async () => {
    // found by the corpus gate on migration-runner: the SchemaMigration's ADDED event is folded
    // into its next version, so the controller first sees v1 (not v3, then v1) and runs the Job
    // v0→v1 the fault-free run never needed, then deletes it once done: every read of those
    // reconciles went to the API server, so no action was taken on a wrong view
    const s: Scenario = {
      seed: 1852718091,
      controllers: [{ name: 'schema-migration' }],
      environment: [{ name: 'job' }, { name: 'pod-lifecycle' }],
      initialObjects: [],
      workload: [
        { at: 1800, type: 'create', object: { kind: SCHEMA_MIGRATION, metadata: { name: 'orders-0', namespace: 'default' }, spec: { version: 3, image: 'migrate:1' } } },
        { at: 2100, kind: SCHEMA_MIGRATION, key: 'default/orders-0', type: 'patch', patch: { spec: { version: 1, image: 'migrate:1' } } },
      ],
      faults: { events: [], background: [{ kind: 'coalescing', rate: 0.04, params: { ms: 300 } }] },
    };
    const { verdict, run, twin } = await judgeScenario(noExtraDestructiveActions(), s, { controllers: [migrationController], options: { environment: [job, podLifecycle] } });
    const v1 = (r: RunRecord) => r.writes.filter((w) => w.kind === 'Job' && w.key === 'default/orders-0-v0-to-v1' && w.error === undefined && (w.verb === 'create' || w.verb === 'delete')).length;
    expect(v1(run)).toBe(2);
    expect(v1(twin!)).toBe(0);
    expect(verdict.ok).toBe(true);
    // the same actions decided on cached reads count: the property's laws above (a cached list after a lost event) still fail
  });

  it('a surplus Pod the API server made for a create whose answer was lost, trimmed later, is not extra (found by the worker-pool corpus controller)', async () => {
    // the first Pod create times out but was applied; the Pod stream stalls 3 s, so the retry makes
    // another Pod (a generated name cannot be created idempotently) and the surplus is deleted once
    // seen. The corpus controller now lists its Pods live before it creates (cc4fb82) and makes no
    // surplus; its buggy twin, which trusts its cache the way kube's controller does, still does
    // (the first create's answer lost, where the corpus controller's first live list once was)
    const controllers = [...workerPool.buggy!.controllers];
    const s: Scenario = {
      seed: 1,
      controllers: [{ name: 'worker-pool' }],
      initialObjects: [],
      workload: [{ at: 0, type: 'create', object: { kind: WORKER_POOL, metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 2, image: 'worker:1' } } }],
      faults: { events: [{ kind: 'api-error', nth: 0, params: { status: 504, applied: true } }, { kind: 'delay', nth: 1, params: { ms: 3000 } }], background: [] },
      options: { faultWindowMs: 10_000, settleMs: 20_000 },
    };
    const { verdict, run } = await judgeScenario(noExtraDestructiveActions(), s, { controllers, options: { environment: [podLifecycle] } });
    const acts = run.trace.filter((e) => e.type === 'store:write' && e['kind'] === 'Pod' && String(e['actor']).startsWith('controller:') && (e['verb'] === 'create' || e['verb'] === 'delete') && e['error'] === undefined).map((e) => e['verb']);
    expect(acts).toEqual(['create', 'create', 'create', 'delete']);
    expect(verdict.ok).toBe(true);
    // the same run with the create answered (not applied): nothing to excuse, and nothing extra happens
    const answered = { ...s, faults: { ...s.faults, events: [{ kind: 'api-error', nth: 0, params: { status: 504, applied: false } }, s.faults.events[1]!] } };
    expect((await judgeScenario(noExtraDestructiveActions(), answered, { controllers, options: { environment: [podLifecycle] } })).verdict.ok).toBe(true);
  });

  it('a repeated create for a live owner still counts, also when the owner is deleted later', async () => {
    const later = { ...scenario, workload: [...scenario.workload, { at: 8000, type: 'delete' as const, kind: 'ReplicaSet', key: 'default/web' }] };
    const v = expectFailure((await judgeScenario(noExtraDestructiveActions(), later, { controllers: [podsGeneratedNamesBuggy] })).verdict);
    expect(v.evidence).toMatchObject({ object: 'Pod default/web-*', creates: 2 });
  });

  it('names holding a uid compare by whose uid it is', async () => {
    // a lost notification delays the first Config's audit entry, so the objects are created in
    // another order than in the fault-free run: uids follow each object's identity, not the order
    // of creation, so the entries' names (which hold their Config's uid) are the same
    const s: Scenario = {
      seed: 0,
      controllers: [{ name: 'audit-correct' }],
      initialObjects: [],
      workload: [
        { at: 10_200, type: 'create', object: { kind: 'Config', metadata: { name: 'app-config-0', namespace: 'default' }, spec: { data: 'v1' } } },
        { at: 10_500, type: 'create', object: { kind: 'Config', metadata: { name: 'app-config-1', namespace: 'default' }, spec: { data: 'v1' } } },
      ],
      faults: { events: [{ kind: 'event-loss', nth: 0 }], background: [] },
      options: { faultWindowMs: 30_000, settleMs: 30_000 },
    };
    const { verdict, run, twin } = await judgeScenario(noExtraDestructiveActions(), s, side(auditCorrect));
    const names = (r: RunRecord | undefined) => (r?.settledObjects ?? []).filter((o) => o.kind === 'AuditEntry').map((o) => o.metadata.name).sort();
    expect(names(run)).toEqual(names(twin));
    expect(run?.trace.filter((e) => e.type === 'store:write' && e['verb'] === 'create').map((e) => e['key'])).not.toEqual(twin?.trace.filter((e) => e.type === 'store:write' && e['verb'] === 'create').map((e) => e['key']));
    expect(verdict.ok).toBe(true);
    const same = await judgeScenario(sameEndState(), s, side(auditCorrect));
    expect(same.verdict.ok).toBe(true);
  });

  it('aliasUids replaces whole uids only', () => {
    const aliases = uidAliases([{ verb: 'create', kind: 'Config', key: 'default/a', uid: 'uid-2' }]);
    expect(aliasUids('a-uid-2-g1', aliases)).toBe('a-<uid of Config default/a>-g1');
    expect(aliasUids('a-uid-23-g1', aliases)).toBe('a-uid-23-g1');
  });
});

describe('noExtraDestructiveActions on external resources (a resource destroyed and made again)', () => {
  const cloud = { downstream: bucketLocation.options.downstream! };
  // the first status write gets 409: the bucket is made, its location not recorded yet
  const conflict: Scenario = {
    seed: 0,
    controllers: [{ name: 'bucket-location' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: 'Bucket', metadata: { name: 'data-0', namespace: 'default' }, spec: { location: 'eu' } } }],
    faults: { events: [{ kind: 'api-conflict', nth: 0 }], background: [] },
    options: { faultWindowMs: 30_000, settleMs: 30_000 },
  };

  it('fails a controller that replaces a bucket on a remembered view, and names the replacement', async () => {
    const { verdict, run } = await judgeScenario(noExtraDestructiveActions(), conflict, { controllers: [...bucketLocation.buggy!.controllers], options: cloud });
    const v = expectFailure(verdict);
    expect(v.summary).toBe('extra destructive actions on storage.example/buckets: a resource destroyed and made again 1 time under faults, 0 without');
    expect(v.explanation).toContain('controller bucket-location/0 deleted storage.example/buckets/1 at t=0.083 s, the only resource there with its content ({"location":"eu","owner":"<uid of Bucket default/data-0>"}), and controller bucket-location/0 created an alike one (storage.example/buckets/2)');
    expect(v.explanation).toContain('Decide a replacement on live state');
    expect(v.evidence).toMatchObject({ object: 'storage.example/buckets/1', replacements: 1, twinReplacements: 0 });
    // the end state is one bucket, as without faults: only the history shows what was lost
    expect(run.trace.filter((e) => e.type === 'downstream:request' && e['method'] === 'DELETE').length).toBe(1);
  });

  it('passes the controller that decides on what the provider holds, under the same fault and across a location change', async () => {
    expect((await judgeScenario(noExtraDestructiveActions(), conflict, { controllers: [...bucketLocation.controllers], options: cloud })).verdict.ok).toBe(true);
    const moved: Scenario = { ...conflict, workload: [...conflict.workload, { at: 5_000, type: 'update', kind: 'Bucket', key: 'default/data-0', spec: { location: 'us' } }] };
    const { verdict, run } = await judgeScenario(noExtraDestructiveActions(), moved, { controllers: [...bucketLocation.controllers], options: cloud });
    expect(run.trace.filter((e) => e.type === 'downstream:request' && e['method'] === 'DELETE').length).toBe(1);
    expect(verdict.ok).toBe(true);
  });

  it('masks name the collection or one resource', async () => {
    const judge = async (masks: string[]) => (await judgeScenario(noExtraDestructiveActions({ masks }), conflict, { controllers: [...bucketLocation.buggy!.controllers], options: cloud })).verdict.ok;
    expect(await judge(['storage.example/buckets/*'])).toBe(true);
    expect(await judge(['storage.example/buckets/1'])).toBe(true);
    expect(await judge(['storage.example/queues/*', 'Bucket default/*'])).toBe(false);
  });

  describe('what counts as a replacement', () => {
    type Change = { op: 'create' | 'delete' | 'remove'; id: string; collection: string; body: Record<string, unknown>; pass?: number; by?: string };
    const bucket = (id: string, location: string, owner = 'uid-a') => ({ id, collection: 'buckets', body: { id, owner, location, 'idempotency-key': `k-${id}` } });
    const base = 'https://storage.example/v1';
    // each change made by a request of reconcile pass `pass` (1 unless given); removals are out of band
    const runOf = (history: Change[]) => {
      const trace: Record<string, unknown>[] = [];
      let pass = 0;
      let by = 'c';
      history.forEach((c, i) => {
        if (c.op === 'remove') return;
        const p = c.pass ?? 1;
        if (p !== pass || (c.by ?? 'c') !== by) {
          if (pass > 0) trace.push({ t: i, type: 'reconcile:end', controller: by, replica: 0, key: 'default/a', n: pass, result: 'done' });
          by = c.by ?? 'c';
          trace.push({ t: i, type: 'reconcile:start', controller: by, replica: 0, key: 'default/a', n: (pass = p) });
        }
        const url = c.op === 'create' ? `${base}/${c.collection}` : `${base}/${c.collection}/${c.id}`;
        trace.push({ t: i, start: i, type: 'downstream:request', seq: i, actor: `controller:${by}/0`, method: c.op === 'create' ? 'POST' : 'DELETE', url, endpoint: url, status: c.op === 'create' ? 201 : 204, outcome: 'ok', mutating: true, applied: true, responseHeaders: c.op === 'create' ? { location: `${base}/${c.collection}/${c.id}` } : {} });
      });
      const services = [{ name: 'storage.example', baseUrl: base, createdCount: 0, resources: [], byOwner: [], history: history.map(({ pass: _p, ...c }) => c) }];
      return { trace, writes: [{ verb: 'create', kind: 'Bucket', key: 'default/a', uid: 'uid-a' }], downstream: { services } } as unknown as RunRecord;
    };
    const counted = (history: Change[]) => {
      const run = runOf(history);
      return [...replacements(run, uidAliases(run.writes)).values()].flat().map((r) => `${r.deleted}->${r.recreated}`);
    };

    it('the only copy deleted and one alike created by the same reconcile (idempotency key and id aside)', () => {
      expect(counted([{ op: 'create', ...bucket('1', 'eu') }, { op: 'delete', ...bucket('1', 'eu'), pass: 2 }, { op: 'create', ...bucket('2', 'eu'), pass: 2 }])).toEqual(['1->2']);
    });
    it('not a task redone: its record removed when it was done, and published again by a later pass', () => {
      expect(counted([{ op: 'create', ...bucket('1', 'eu') }, { op: 'delete', ...bucket('1', 'eu'), pass: 2 }, { op: 'create', ...bucket('2', 'eu'), pass: 3 }])).toEqual([]);
    });
    it('not a duplicate cleaned up: another copy alike was still there', () => {
      expect(counted([{ op: 'create', ...bucket('1', 'eu') }, { op: 'create', ...bucket('2', 'eu') }, { op: 'delete', ...bucket('2', 'eu') }])).toEqual([]);
      expect(counted([{ op: 'create', ...bucket('1', 'eu') }, { op: 'create', ...bucket('2', 'eu') }, { op: 'delete', ...bucket('1', 'eu') }, { op: 'create', ...bucket('3', 'eu') }])).toEqual([]);
    });
    it('not a resource replaced by a different one, nor one removed out of band (drift) and made again', () => {
      expect(counted([{ op: 'create', ...bucket('1', 'eu') }, { op: 'delete', ...bucket('1', 'eu') }, { op: 'create', ...bucket('2', 'us') }])).toEqual([]);
      expect(counted([{ op: 'create', ...bucket('1', 'eu') }, { op: 'remove', ...bucket('1', 'eu') }, { op: 'create', ...bucket('2', 'eu') }])).toEqual([]);
    });
    it('not a resource the deleting reconcile had made itself (a lock taken and released per task, then taken again)', () => {
      const lock = (id: string) => ({ id, collection: 'locks', body: { id, owner: 'uid-a', name: 'schema' } });
      expect(counted([{ op: 'create', ...lock('1'), pass: 2 }, { op: 'delete', ...lock('1'), pass: 2 }, { op: 'create', ...lock('2'), pass: 2 }, { op: 'delete', ...lock('2'), pass: 2 }])).toEqual([]);
      // left behind by a crashed pass, taken over by the next: a replacement (judged against the fault-free run's transients, below)
      expect(counted([{ op: 'create', ...lock('1'), pass: 1 }, { op: 'delete', ...lock('1'), pass: 2 }, { op: 'create', ...lock('2'), pass: 2 }])).toEqual(['1->2']);
    });
    it('transient contents: every resource alike was deleted by the reconcile that made it', () => {
      const lock = (id: string) => ({ id, collection: 'locks', body: { id, owner: 'uid-a', name: 'schema' } });
      const run = runOf([{ op: 'create', ...lock('1'), pass: 1 }, { op: 'create', ...bucket('2', 'eu'), pass: 1 }, { op: 'delete', ...lock('1'), pass: 1 }, { op: 'create', ...lock('3'), pass: 2 }, { op: 'delete', ...lock('3'), pass: 2 }]);
      expect([...transientContents(run, uidAliases(run.writes))]).toEqual(['storage.example/locks {"name":"schema","owner":"<uid of Bucket default/a>"}']);
      const kept = runOf([{ op: 'create', ...lock('1'), pass: 1 }, { op: 'delete', ...lock('1'), pass: 1 }, { op: 'create', ...lock('3'), pass: 2 }]);
      expect([...transientContents(kept, uidAliases(kept.writes))]).toEqual([]);
    });
    it('one controller deleted it and another made one alike again: two controllers settling a disagreement by destroying it (orphan-sweeper\'s twin, stop 40); not one controller\'s later pass', () => {
      expect(counted([{ op: 'create', ...bucket('1', 'eu'), by: 'provisioner' }, { op: 'delete', ...bucket('1', 'eu'), pass: 2, by: 'sweeper' }, { op: 'create', ...bucket('2', 'eu'), pass: 3, by: 'provisioner' }])).toEqual(['1->2']);
      expect(counted([{ op: 'create', ...bucket('1', 'eu'), by: 'provisioner' }, { op: 'delete', ...bucket('1', 'eu'), pass: 2, by: 'provisioner' }, { op: 'create', ...bucket('2', 'eu'), pass: 3, by: 'provisioner' }])).toEqual([]);
    });
    it('not another owner’s resource alike apart from the owner', () => {
      expect(counted([{ op: 'create', ...bucket('1', 'eu') }, { op: 'delete', ...bucket('1', 'eu') }, { op: 'create', ...bucket('2', 'eu', 'uid-b') }])).toEqual([]);
    });
  });
});

describe('noExtraDestructiveActions: a user write the API server refused and the user retried', () => {
  // found stop 35 by a story probe of corpus graceful-scaledown: the scale-up got a 500 at 16.5 s and
  // was accepted at 17.5 s; the member's grace ended at 17.0 s, so the controller (reading the group
  // live) deleted it and made it again. The fault-free run accepted the patch at 16.5 s. No correct
  // controller can know of a write that failed and will be retried.
  const group = { kind: 'WorkerGroup', metadata: { name: 'consumers', namespace: 'default' }, spec: { replicas: 3, image: 'consumer:1' } };
  const scaled = (at: number, replicas: number) => ({ at, type: 'patch' as const, kind: 'WorkerGroup', key: 'default/consumers', patch: { spec: { replicas } } });
  const refused: Scenario = { seed: 0, controllers: [{ name: 'worker-group' }], initialObjects: [group], workload: [scaled(2000, 1), scaled(16_500, 3)], faults: { events: [{ kind: 'api-error', nth: 1, target: 'user', params: { status: 500 } }], background: [] } };

  it('the fault-free run is compared with the user acting when the run accepted the write: the drained member deleted before the retry is no extra delete', async () => {
    const { gracefulScaledown } = await import('../../examples/false-positives/graceful-scaledown.js');
    const { propertiesOf } = await import('../helpers/false-positives.js');
    const { check } = await import('../../src/index.js');
    const r = await check(gracefulScaledown.controllers, { ...gracefulScaledown.options, properties: propertiesOf(gracefulScaledown), runs: 1, seed: 1, corpus: { scenarios: [refused] } });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
  });

  it('userAcceptedLate moves the refused action, and the same object\'s later ones, to the accepted retry; others stay', async () => {
    const { userAcceptedLate } = await import('../../src/harness/twin.js');
    const other = { at: 16_600, type: 'patch' as const, kind: 'WorkerGroup', key: 'default/other', patch: { spec: { replicas: 2 } } };
    const s: Scenario = { ...refused, workload: [scaled(2000, 1), scaled(16_500, 3), other, scaled(17_000, 4)] };
    const trace = [
      { t: 2000, type: 'user:action', action: 'patch', kind: 'WorkerGroup', key: 'default/consumers' },
      { t: 16_500, type: 'user:action', action: 'patch', kind: 'WorkerGroup', key: 'default/consumers', attempt: 1, error: 'InternalError' },
      { t: 16_600, type: 'user:action', action: 'patch', kind: 'WorkerGroup', key: 'default/other' },
      { t: 17_500, type: 'user:action', action: 'patch', kind: 'WorkerGroup', key: 'default/consumers', attempt: 2 },
    ] as unknown as RunRecord['trace'];
    expect(userAcceptedLate({ trace }, s)?.workload.map((a) => [a.at, 'key' in a ? a.key : ''])).toEqual([
      [2000, 'default/consumers'],
      [16_600, 'default/other'],
      [17_500, 'default/consumers'],
      [17_500, 'default/consumers'],
    ]);
    // nothing refused: no variation
    expect(userAcceptedLate({ trace: trace.filter((e) => e['error'] === undefined) }, s)).toBeUndefined();
  });

  it('userAcceptedLate: a retry the API server refused for itself (NotFound: the object was gone by then) is where the action goes; a retry a fault refused is not', async () => {
    const { userAcceptedLate } = await import('../../src/harness/twin.js');
    const s: Scenario = { ...refused, workload: [scaled(16_500, 3)] };
    const attempt = (t: number, n: number, error?: string) => ({ t, type: 'user:action', action: 'patch', kind: 'WorkerGroup', key: 'default/consumers', attempt: n, ...(error ? { error } : {}) });
    const fault = (t: number, n: number) => ({ t, type: 'fault:inject', kind: 'api-error', actor: 'user', action: 'patch', key: 'default/consumers', attempt: n, status: 429 });
    const at = (trace: unknown[]) => userAcceptedLate({ trace: trace as RunRecord['trace'] }, s)?.workload.map((a) => a.at);
    // refused by a 429, retried 5 s later into a NotFound (ttl-after-finished: the Job deleted on time in between)
    expect(at([fault(16_500, 1), attempt(16_500, 1, 'TooManyRequests'), attempt(21_500, 2, 'NotFound')])).toEqual([21_500]);
    // the second attempt refused by a fault too: the third is where it went
    expect(at([fault(16_500, 1), attempt(16_500, 1, 'TooManyRequests'), fault(21_500, 2), attempt(21_500, 2, 'TooManyRequests'), attempt(26_500, 3)])).toEqual([26_500]);
    // never answered for itself: no variation
    expect(at([fault(16_500, 1), attempt(16_500, 1, 'TooManyRequests'), fault(21_500, 2), attempt(21_500, 2, 'TooManyRequests')])).toBeUndefined();
  });
});

describe('noExtraDestructiveActions: a controller that destroys what another keeps (stop 40)', () => {
  // the twin's shrunk catch: one Bucket, a 360 ms stale snapshot of the sweeper's cache
  const scenario = JSON.parse(readFileSync(new URL('./fixtures/orphan-sweeper-twin.json', import.meta.url), 'utf8')) as Scenario;
  const judged = (controllers: readonly ControllerDefinition[]) => check(controllers, { ...orphanSweeper.options, properties: [noExtraDestructiveActions()], runs: 1, seed: 1, corpus: { scenarios: [scenario] }, shrink: false });
  it("fails the sweeper that took a live owner's bucket for an orphan on a stale cache, the provisioner making it again (only the case's own oracle caught it before)", async () => {
    const r = await judged(orphanSweeper.buggy!.controllers);
    expect(r.ok ? 'passed' : r.summary).toBe('extra destructive actions on storage/buckets: a resource destroyed and made again 1 time under faults, 0 without');
  });
  it('passes the two-phase sweeper under the same fault', async () => {
    expect((await judged(orphanSweeper.controllers)).ok).toBe(true);
  });
});

describe('noExtraDestructiveActions: a workload restarted for nothing (its Pod template changed more often than without faults)', () => {
  // A small config reloader: it keeps the ConfigMap's `version` in the Deployment's pod template
  // (a change is a rollout), and waits until the ConfigMap has been quiet for a second before
  // restarting (a burst of edits is one restart). `onCache` decides the restart on its cached
  // ConfigMap, as config-reloader's buggy twin does: a cache that missed the burst's last edit
  // restarts every Pod onto a version already replaced, then again. The correct one reads the
  // ConfigMap live. The end state is the same either way.
  const HASH = 'example.com/config-version';
  const PENDING = 'example.com/pending';
  const SINCE = 'example.com/pending-since';
  const reloader = (name: string, onCache: boolean): ControllerDefinition =>
    defineController({
      name,
      for: 'Deployment',
      watches: [{ kind: 'ConfigMap', map: (o) => [`${o.metadata.namespace}/web`] }],
      async reconcile(ctx) {
        const d = await ctx.client.tryGet<{ template: { metadata?: { annotations?: Record<string, string> } } }>('Deployment', ctx.key);
        if (!d) return;
        const cm = await ctx.client.tryGet('ConfigMap', { namespace: d.metadata.namespace, name: 'settings' }, onCache ? {} : { live: true });
        const want = String((cm?.['data'] as Record<string, string> | undefined)?.['version'] ?? '');
        const have = d.spec.template.metadata?.annotations?.[HASH];
        const pending = d.metadata.annotations[PENDING];
        const since = Number(d.metadata.annotations[SINCE] ?? 'NaN');
        const rv = { resourceVersion: d.metadata.resourceVersion };
        const ref = { namespace: d.metadata.namespace, name: d.metadata.name };
        if (want === have) {
          if (pending !== undefined) await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [PENDING]: null, [SINCE]: null } } }, rv);
          return;
        }
        const now = ctx.clock.now();
        if (pending !== want || !Number.isFinite(since)) {
          await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [PENDING]: want, [SINCE]: String(now) } } }, rv);
          return { requeueAfter: 1000 };
        }
        if (now < since + 1000) return { requeueAfter: since + 1000 - now };
        await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [PENDING]: null, [SINCE]: null } }, spec: { template: { metadata: { annotations: { [HASH]: want } } } } }, rv);
        return;
      },
    });
  const cached = reloader('reloader-cached', true);
  const live = reloader('reloader-live', false);
  const settings = (version: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { version } });
  const web = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' }, annotations: { [HASH]: '1' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
  };
  // a burst of two edits; the controller's watch loses the second one (the cache shows version 2 until the settle relist)
  const burst = (name: string, faults: Scenario['faults']): Scenario => ({
    seed: 0,
    controllers: [{ name }],
    environment: [{ name: 'deployment' }, { name: 'pod-lifecycle' }],
    initialObjects: [settings('1'), web],
    workload: [
      { at: 2000, type: 'apply', object: settings('2') },
      { at: 2400, type: 'apply', object: settings('3') },
    ],
    faults,
    options: { faultWindowMs: 10_000, settleMs: 10_000 },
  });
  const lost = { events: [{ kind: 'test-watch-drop', nth: 1, target: 'ConfigMap' }], background: [] };
  const env = { options: { environment: [deployment, podLifecycle] } };
  const restarts = (r: RunRecord | undefined) => (r?.writes ?? []).filter((w) => w.kind === 'Deployment' && w.actor.startsWith('controller:') && !w.noop && w.error === undefined && w.changed.some((p) => p.startsWith('spec.template'))).length;

  propertyLaws({
    property: noExtraDestructiveActions(),
    buggy: { controllers: [cached], scenario: burst(cached.name, lost), ...env },
    correct: {
      controllers: [live],
      scenarios: [
        { name: "the burst's last edit lost on its way to the cache", scenario: burst(live.name, lost) },
        { name: 'event loss', scenario: { ...burst(live.name, { events: [{ kind: 'event-loss', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.3 }] }) } },
      ],
      ...env,
    },
    explains: [
      'a test-watch-drop fault at t=2.4 s (controller reloader-cached, key settings, event MODIFIED',
      'controller reloader-cached/0 changed the Pod template of Deployment default/web 2 times (at t=3.001 s, at t=11.0 s)',
      'against 1 time in the fault-free run',
      'makes the Deployment controller roll every Pod over to a new ReplicaSet',
      /the environment deleted \d+ Pods of it, against 2 in the fault-free run/,
      // the restart onto version 2, already replaced by 3 at the API server
      'the fault-free run made none like the change at t=3.001 s; the change at t=3.001 s (spec.template.metadata.annotations) came from the reconcile of default/web by reloader-cached/0 at t=3.001 s (done), which read Deployment default/web and ConfigMap default/settings from its informer cache',
      're-read live',
    ],
  });

  it('the buggy run restarts twice where the fault-free run restarts once, and ends the same', async () => {
    const { verdict, run, twin } = await judgeScenario(noExtraDestructiveActions(), burst(cached.name, lost), { controllers: [cached], ...env });
    expect([restarts(run), restarts(twin)]).toEqual([2, 1]);
    const template = (r: RunRecord | undefined) => JSON.stringify(r?.settledObjects.find((o) => o.kind === 'Deployment')?.spec['template']);
    expect(template(run)).toBe(template(twin));
    const v = expectFailure(verdict);
    expect(v.summary).toBe('extra destructive actions on Deployment default/web: its Pod template changed 2 times under faults (each replaces its Pods), 1 without');
    expect(v.evidence).toMatchObject({ object: 'Deployment default/web', templateChanges: 2, twinTemplateChanges: 1, twinPodsDeleted: 2 });
  });

  it('templateKinds: [] turns template counting off; masks, slack and a learned variation allow it', async () => {
    const judge = async (p: ReturnType<typeof noExtraDestructiveActions>, learned?: Record<string, string[]>) => {
      const { run, twin } = await judgeScenario(p, burst(cached.name, lost), { controllers: [cached], ...env });
      return p.judge(run, twin, {}, learned).ok;
    };
    expect(await judge(noExtraDestructiveActions({ templateKinds: [] }))).toBe(true);
    expect(await judge(noExtraDestructiveActions({ templateKinds: ['StatefulSet'] }))).toBe(true);
    expect(await judge(noExtraDestructiveActions({ masks: ['Deployment default/*'] }))).toBe(true);
    expect(await judge(noExtraDestructiveActions({ slack: 1 }))).toBe(true);
    expect(await judge(noExtraDestructiveActions(), { counts: ['Deployment default/web: up to 2 Pod-template changes'] })).toBe(true);
    expect(await judge(noExtraDestructiveActions(), { counts: ['Deployment default/web: up to 1 Pod-template changes'] })).toBe(false);
    expect(() => noExtraDestructiveActions({ templateKinds: [''] })).toThrow(/templateKinds/);
  });

  it('learns the Pod-template changes benign fault-free runs disagree on', () => {
    const p = noExtraDestructiveActions();
    const w = (t: number, changed: string[]) => ({ t, type: 'store:write', actor: 'controller:r/0', verb: 'patch', kind: 'Deployment', key: 'default/web', uid: 'u1', rv: t, changed, noop: false });
    const runOf = (entries: Record<string, unknown>[]) => ({ trace: entries, writes: [], finalObjects: [], primaryKinds: [], controllers: [], downstream: undefined }) as unknown as RunRecord;
    const once = runOf([w(1, ['spec.template.metadata.annotations'])]);
    const twice = runOf([w(1, ['spec.template.metadata.annotations']), w(2, ['spec.template.spec.containers'])]);
    // a metadata write is no restart
    const meta = runOf([w(1, ['spec.template.metadata.annotations']), w(2, ['metadata.annotations'])]);
    expect(p.learn!({ twin: [once, twice] } as never)).toEqual({ counts: ['Deployment default/web: up to 2 Pod-template changes'] });
    expect(p.learn!({ twin: [once, meta] } as never)).toEqual({ counts: [] });
  });

  it('a retried restart whose first answer was lost is not extra: the controller could not know it had been applied', async () => {
    // the restart's patch is applied but its answer lost; the controller (stamping the moment, as
    // `kubectl rollout restart` does, and recording what it restarted for once the restart is
    // answered) asks again and changes the template once more
    const stamper = (live: boolean) =>
      defineController({
      name: 'stamper',
      for: 'ConfigMap',
      async reconcile(ctx) {
        const cm = await ctx.client.tryGet('ConfigMap', ctx.key, live ? { live: true } : {});
        const d = await ctx.client.tryGet<{ template: { metadata?: { annotations?: Record<string, string> } } }>('Deployment', { namespace: 'default', name: 'web' }, { live: true });
        if (!cm || !d) return;
        const version = String((cm['data'] as Record<string, string>)['version']);
        if (d.metadata.annotations['example.com/restarted-for'] === version) return;
        await ctx.client.patch('Deployment', { namespace: 'default', name: 'web' }, { spec: { template: { metadata: { annotations: { 'example.com/restartedAt': String(ctx.clock.now()) } } } } });
        await ctx.client.patch('Deployment', { namespace: 'default', name: 'web' }, { metadata: { annotations: { 'example.com/restarted-for': version } } });
      },
    });
    const stamp = stamper(false);
    // (its ConfigMap read from the cache: a restart decided on reads that all went to the API server would not count anyway)
    // calls that reach the API server: the Deployment read at t=0 (0), then at 2 s the read (1) and the restart's patch (2)
    const base = burst('stamper', { events: [{ kind: 'api-error', nth: 2, params: { status: 504, applied: true } }], background: [] });
    const s: Scenario = { ...base, initialObjects: [settings('1'), { ...web, metadata: { ...web.metadata, annotations: { 'example.com/restarted-for': '1' } } }], workload: [{ at: 2000, type: 'apply', object: settings('2') }] };
    const { verdict, run, twin } = await judgeScenario(noExtraDestructiveActions(), s, { controllers: [stamp], ...env });
    expect([restarts(run), restarts(twin)]).toEqual([2, 1]);
    expect(verdict.ok).toBe(true);
    // answered (not applied): nothing to excuse, and nothing extra happens
    const answered = { ...s, faults: { events: [{ kind: 'api-error', nth: 2, params: { status: 504, applied: false } }], background: [] } };
    const again = await judgeScenario(noExtraDestructiveActions(), answered, { controllers: [stamp], ...env });
    expect([restarts(again.run), again.verdict.ok]).toEqual([1, true]);
    // with every read live (calls: 0-1 at t=0, reads 2-3 and the patch 4 at 2 s), the same two restarts are another legal path whatever the API server answered
    const livePlan = { ...s, faults: { events: [{ kind: 'api-error', nth: 4, params: { status: 504, applied: true } }], background: [] } };
    const onLive = await judgeScenario(noExtraDestructiveActions(), livePlan, { controllers: [stamper(true)], ...env });
    expect([restarts(onLive.run), restarts(onLive.twin)]).toEqual([2, 1]);
    expect(noExtraDestructiveActions().judge({ ...onLive.run, trace: onLive.run.trace.filter((e) => !(e.type === 'fault:inject' && e['applied'] === true)) }, onLive.twin).ok).toBe(true);
  });
});

describe('noExtraDestructiveActions: a canary promoted without its walk after a crash (found by Pod-template counting, stop 42)', () => {
  // story:canary-rollout, swarm seed 1: the controller crashed before its first status write (so
  // no stable image was recorded) and again as it restarted; by the time it reconciled, the user
  // had set web:2, which it took for the first image: the stable Deployment rolled to web:2 at
  // once, with no canary step, and back to web:1 after the user's revert. The fault-free run never
  // touched the stable Deployment. canary-rollout now takes the stable image from the stable
  // Deployment it already runs when status has none.
  it('the corpus canary keeps its stable Deployment through crashes before its first status write', async () => {
    const { canaryRollout, CANARY } = await import('../../examples/false-positives/canary-rollout.js');
    const canary = (image: string) => ({ apiVersion: 'example.com/v1', kind: CANARY, metadata: { name: 'web', namespace: 'default' }, spec: { image, replicas: 4, steps: [10, 50, 100], stepMs: 2000 } });
    const s: Scenario = {
      seed: 13,
      controllers: [{ name: 'canary' }],
      environment: [{ name: 'deployment' }, { name: 'pod-lifecycle' }],
      initialObjects: [canary('web:1')],
      workload: [
        { at: 2000, type: 'apply', object: canary('web:2') },
        { at: 5836, type: 'apply', object: canary('web:1') },
      ],
      // before the first status write (client call 7) and before the restarted process's first call
      faults: { events: [{ kind: 'crash-restart', nth: 7, params: { point: 'before-call' } }, { kind: 'crash-restart', nth: 8, params: { point: 'before-call' } }], background: [] },
    };
    const r = await check(canaryRollout.controllers, { ...canaryRollout.options, properties: [noExtraDestructiveActions()], runs: 1, seed: 1, corpus: { scenarios: [s] }, shrink: false });
    expect(r.ok ? 'passed' : r.summary).toBe('passed');
  });
});

describe('deletes the cascade was making anyway (rt45 FA-1)', () => {
  // label-fanout scaled from 4 shards to 3 and deleted at one instant; the delete's event 1 ms late (delay at rate 0.05):
  // the controller trims shard 3 after its owner is gone, which the collector removes 5 ms later in the fault-free run
  const scenario = (propagationPolicy?: 'Orphan'): Scenario => ({
    seed: 1228341921,
    controllers: [{ name: 'label-fanout' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: { kind: SHARD_SET, metadata: { name: 'web-0', namespace: 'default' }, spec: { count: 4, payload: 'a' } } },
      { at: 16200, kind: SHARD_SET, key: 'default/web-0', type: 'update', spec: { count: 3, payload: 'a' } },
      { at: 16200, kind: SHARD_SET, key: 'default/web-0', type: 'delete', ...(propagationPolicy ? { propagationPolicy } : {}) },
    ],
    faults: { events: [], background: [{ kind: 'delay', rate: 0.05, params: { ms: 1 } }] },
  });
  it('a child trimmed after its owner was deleted, which the collector removes in the fault-free run, is no extra delete', async () => {
    const { verdict, run } = await judgeScenario(noExtraDestructiveActions(), scenario(), { controllers: [labelFanoutController] });
    expect(run.writes.some((w) => w.actor.startsWith('controller:') && w.verb === 'delete' && w.key === 'default/web-0-3')).toBe(true);
    expect(verdict.ok).toBe(true);
  });
  it('under an orphaning delete the collector keeps the children: the same trim still counts', async () => {
    const v = expectFailure((await judgeScenario(noExtraDestructiveActions(), scenario('Orphan'), { controllers: [labelFanoutController] })).verdict);
    expect(v.summary).toMatch(/ConfigMap default\/web-0-3: 1 create and 1 delete under faults, 1 and 0 without/);
  });
});

describe('list order: what a permuted list alone makes a fault-free run do is not learned as path-dependence (search46)', () => {
  // the same seams as check: the twin's benign variations shuffle every list; their key-order copies do not
  const runnerFor = (c: ControllerDefinition, learn = true) => new ScenarioRunner({ controllers: [c], faults: allFaults }, [noExtraDestructiveActions({ learn })]);
  // list 2 is the Member list of the scale-down pass (3 → 1): order 1 puts db-0 last, so list()[0] keeps db-1
  const permuted = (controller: string) => clusterScenario(controller, { events: [{ kind: 'list-order', nth: 2, params: { order: 1 } }], background: [] });

  it('fails the cluster that keeps list()[0] (deletes the seed member db-0 and makes it again) with masks learned, as without', async () => {
    const plain = await runnerFor(clusterBuggy, false).judge(permuted(clusterBuggy.name));
    expect(plain.failure?.summary).toBe('extra destructive actions on Member default/db-0: 2 creates and 1 delete under faults, 1 and 0 without');
    const runner = runnerFor(clusterBuggy);
    const out = await runner.judge(permuted(clusterBuggy.name));
    // the shuffled fault-free runs delete and make members again many times over: that taught "db-0: up to 11 creates and 10 deletes"
    expect(out.failure?.summary).toBe(plain.failure?.summary);
    expect(runner.learned.summary()).toEqual([]);
    expect((await runnerFor(clusterCorrect).judge(permuted(clusterCorrect.name))).failure).toBeUndefined();
  });

  it('passes a pool of interchangeable members that a permuted list makes remove another one (shuffled runs that remove as many teach which)', async () => {
    const runner = runnerFor(interchangeablePool);
    const s = { ...permuted(interchangeablePool.name), controllers: [{ name: interchangeablePool.name }] };
    const out = await runner.judge(s);
    // the faulty run removed db-0 where the fault-free run removed db-2: extra per object, not in all
    const deleted = out.run.writes.filter((w) => w.verb === 'delete' && w.kind === MEMBER).map((w) => w.key);
    expect(deleted).toContain('default/db-0');
    expect(out.failure).toBeUndefined();
    expect(runner.learned.summary()[0]?.masks).toContain('Member default/db-0: up to 1 creates and 1 deletes (counts)');
    expect((await runnerFor(interchangeablePool, false).judge(s)).failure?.summary).toMatch(/^extra destructive actions on Member default\/db-0: 1 create and 1 delete under faults, 1 and 0 without/);
  });
});

describe('noExtraDestructiveActions.learn: runs with lists in another order teach which objects of a kind, not how many', () => {
  const p = noExtraDestructiveActions();
  let rv = 0;
  const w = (verb: 'create' | 'delete', id: string) => {
    const [kind, name] = id.split(' ');
    return { t: ++rv, type: 'store:write', actor: 'controller:r/0', verb, kind, key: `default/${name}`, uid: `u-${name}`, rv, changed: [], noop: false };
  };
  const runOf = (...entries: Record<string, unknown>[]) => ({ trace: entries, writes: [], finalObjects: [], primaryKinds: [], controllers: [], downstream: undefined }) as unknown as RunRecord;
  // three members made, one removed: the twin removes c
  const twin = runOf(w('create', 'Member a'), w('create', 'Member b'), w('create', 'Member c'), w('delete', 'Member c'));
  // a permuted list made it remove b instead (as many), or remove a and make it again (more)
  const moved = runOf(w('create', 'Member a'), w('create', 'Member b'), w('create', 'Member c'), w('delete', 'Member b'));
  const thrashed = runOf(w('create', 'Member a'), w('create', 'Member b'), w('create', 'Member c'), w('delete', 'Member a'), w('delete', 'Member c'), w('create', 'Member a'));

  it('learns a shuffled run that acted on other objects of a kind, as many times as a run in key order did', () => {
    expect(p.learn!({ twin: [twin, moved], keyOrder: [twin], extras: {} })).toEqual({ counts: ['Member default/b: up to 1 creates and 1 deletes', 'Member default/c: up to 1 creates and 1 deletes'] });
  });

  it('learns nothing of a kind from a shuffled run that made more of it than every run in key order', () => {
    expect(p.learn!({ twin: [twin, thrashed], keyOrder: [twin], extras: {} })).toEqual({ counts: [] });
    // the same run in key order (its timing) made as many: timing, not list order
    expect(p.learn!({ twin: [twin, thrashed], keyOrder: [thrashed], extras: {} })).toEqual({ counts: ['Member default/a: up to 2 creates and 1 deletes'] });
    // another kind's count in the shuffled run does not hold this one back
    const widgets = runOf(...moved.trace, w('create', 'Widget x'), w('delete', 'Widget x'));
    expect(p.learn!({ twin: [twin, widgets], keyOrder: [twin], extras: {} })).toEqual({ counts: ['Member default/b: up to 1 creates and 1 deletes', 'Member default/c: up to 1 creates and 1 deletes'] });
    // without key-order copies (a harness that gives none), every benign run teaches, as before
    expect(p.learn!({ twin: [twin, thrashed], extras: {} }).counts).toContain('Member default/a: up to 2 creates and 1 deletes');
  });
});
