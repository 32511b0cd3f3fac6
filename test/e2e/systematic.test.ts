import { describe, expect, it } from 'vitest';
import { checkSystematic } from '../../src/harness/systematic.js';
import { ALL_STRATEGIES, STRATEGY_FAULT } from '../../src/harness/systematic-plans.js';
import { leakedBucket } from '../../examples/multi-fault/index.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { allFaults } from '../../faults/index.js';
import { eventLoss } from '../../faults/event-loss.js';
import { convergence } from '../../properties/convergence.js';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { replicaObjects } from './check-fixtures.js';
import { appObjects, deterministicNameApp, generateNameApp } from './crash-fixtures.js';
import { auditCorrect } from '../../examples/fault-targets/duplication/correct.js';
import { CONFIG } from '../../examples/fault-targets/duplication/audit.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { orphanSweeper } from '../../examples/false-positives/orphan-sweeper.js';
import { serviceAccountTokens } from '../../examples/false-positives/service-account-tokens.js';
import { propertiesOf, systematicTwin } from '../helpers/false-positives.js';
import { machinePool } from '../../examples/false-positives/machine-pool.js';

const replicas = { objects: replicaObjects, faults: allFaults, properties: [convergence()] };

describe('checkSystematic', () => {
  it('runs every strategy on a correct controller and passes, every plan fired', async () => {
    const r = await checkSystematic(levelTriggered, { ...replicas, depth: 1 });
    expect(r.ok).toBe(true);
    expect(r.systematic.strategies.map((s) => s.strategy)).toEqual([...ALL_STRATEGIES]);
    for (const s of r.systematic.strategies) {
      expect(s.fired).toBe(s.plans);
      expect(s.failures).toBe(0);
      // derived = run + pruned by the strategy itself (plans left out as the same crash point count on top)
      expect(s.derived).toBeGreaterThanOrEqual(s.plans);
    }
    const ran = (name: string) => r.systematic.strategies.find((s) => s.strategy === name)!.plans;
    // one write per reconcile: no crash point has anything half-done
    expect(r.systematic.strategies.find((s) => s.strategy === 'crash-after-write')!.pruned).toEqual({ 'after the last step of a reconcile: nothing half-done': expect.any(Number) });
    for (const name of ['unobserved-state', 'unnotified-state', 'coalesced-state', 'delayed-event', 'duplicated-event', 'error-at-write', 'recreation']) expect(ran(name), name).toBeGreaterThan(0);
    // no downstream: nothing to fail or crash around
    expect(ran('request-failure')).toBe(0);
    expect(r.systematic.strategies.find((s) => s.strategy === 'request-failure')!.derived).toBe(0);
    // one fault-free reference run per base scenario (one object, and two)
    expect(r.runs).toBe(r.systematic.plans + 2);
    expect(r.coverage.map((c) => c.kind)).toEqual([...new Set(ALL_STRATEGIES.map((s) => STRATEGY_FAULT[s]))]);
  });

  it('at depth 2 finds a bug that needs two faults in order, names both, and passes its fix', async () => {
    const opts = { ...leakedBucket.options, faults: allFaults, properties: [leakedBucket.property()], strategies: ['crash-before-write', 'recreation'] as const };
    const { actions: _actions, ...o } = opts;
    const single = await checkSystematic(leakedBucket.buggy, { ...o, strategies: [...o.strategies], depth: 1 });
    expect(single.ok).toBe(true);
    const pair = await checkSystematic(leakedBucket.buggy, { ...o, strategies: [...o.strategies], stopOnFailure: true });
    expect(pair.ok).toBe(false);
    if (pair.ok) return;
    expect(pair.property).toBe('deletion-completes');
    expect(pair.systematic.failingPlan?.faults?.map((f) => f.strategy)).toEqual(['crash-before-write', 'recreation']);
    expect(pair.systematic.failingPlan?.faults?.[1]!.target).toMatch(/while bucket is down after its crash/);
    expect(pair.scenario.faults.events.map((e) => e.kind)).toEqual(['crash-restart', 'recreation']);
    expect(pair.systematic.extended.runs).toBeGreaterThan(0);
    expect(pair.determinism.ok).toBe(true);
    const fixed = await checkSystematic(leakedBucket.correct, { ...o, strategies: [...o.strategies] });
    expect(fixed.ok).toBe(true);
    const recreation = fixed.systematic.strategies.find((s) => s.strategy === 'recreation')!;
    expect(recreation.pairs.ran).toBeGreaterThan(0);
    expect(recreation.pairs.pruned['before the first fault']).toBeGreaterThan(0);
  });

  it('finds the edge-triggered bug with a single derived fault and says which plan it was', async () => {
    const r = await checkSystematic(edgeTriggered, { ...replicas, depth: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('convergence');
    expect(r.systematic.failingPlan).toBeDefined();
    expect(r.scenario.faults.background).toEqual([]);
    expect(new Set(r.scenario.faults.events.map((e) => e.kind)).size).toBe(1);
    expect(r.systematic.strategies.reduce((n, s) => n + s.failures, 0)).toBeGreaterThan(0);
    expect(r.path).toBe('');
    expect(r.determinism.ok).toBe(true);
  });

  it('finds the crash-consistency bug after the create, and passes its fix', async () => {
    const opts = { objects: appObjects, faults: allFaults, properties: [noExtraDestructiveActions()] };
    const buggy = await checkSystematic(generateNameApp, { ...opts, strategies: ['crash-after-write'] });
    expect(buggy.ok).toBe(false);
    if (buggy.ok) return;
    expect(buggy.systematic.failingPlan).toEqual({ strategy: 'crash-after-write', target: expect.stringMatching(/^after write #0 of generate-name-app: create Pod/) });
    expect(buggy.scenario.faults.events).toEqual([{ kind: 'crash-restart', nth: 0, target: 'generate-name-app', params: { point: 'after-write' } }]);
    const fixed = await checkSystematic(deterministicNameApp, opts);
    expect(fixed.ok).toBe(true);
  });

  it('takes only the user actions the check allows: no spec edits when nobody edits a spec', async () => {
    // an audit log with one entry per generation: an edit whose event a fault hides is never
    // audited, which is that controller's contract; its user only ever re-applies (found by
    // bench/hunt-systematic-fp.ts: the base scenarios edited the spec whatever `actions` said)
    const audit = { objects: { kind: CONFIG, name: 'app-config', spec: [{ data: 'v1' }, { data: 'v2' }] }, faults: allFaults, properties: [sameEndState()], depth: 1 as const };
    const reapplied = await checkSystematic(auditCorrect, { ...audit, actions: ['reapply'] });
    expect(reapplied.ok).toBe(true);
    const edited = await checkSystematic(auditCorrect, { ...audit, actions: ['update', 'reapply'] });
    expect(edited.ok).toBe(false);
    if (!edited.ok) expect(edited.summary).toMatch(/AuditEntry .*-g1 is missing/);
    // by merge patch when only patches are allowed
    const patched = await checkSystematic(auditCorrect, { ...audit, actions: ['patch'] });
    expect(patched.ok).toBe(false);
  });

  it('starts every base scenario from the story, the world its objects need (a sweeper for the buckets): ignored before, every orphan a recreation made was left', async () => {
    const { maxObjects: _m, ...options } = orphanSweeper.options;
    const r = await checkSystematic(orphanSweeper.controllers, { ...options, faults: allFaults, properties: propertiesOf(orphanSweeper), strategies: ['recreation'], depth: 1, maxPlans: 20, determinism: false, shrink: false });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
    expect(r.systematic.plans).toBeGreaterThan(0);
  });

  it("creates its base scenarios' objects with their template's apiVersion: a custom ServiceAccount is not the core one (whose status writes are 404s)", async () => {
    // bench/hunt-systematic-fp.ts: every reference run of service-account-tokens failed convergence (the swarm gate passed)
    const { maxObjects: _m, ...options } = serviceAccountTokens.options;
    const r = await checkSystematic(serviceAccountTokens.controllers, { ...options, faults: allFaults, properties: propertiesOf(serviceAccountTokens), strategies: ['crash-after-write'], depth: 1, maxPlans: 1, determinism: false, shrink: false });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
    expect(r.systematic.plans).toBeGreaterThan(0);
  });

  it("runs a base with every template's object and the primary deleted, and every base's single faults before any pair: a cleanup from a stale cache is found at once", async () => {
    // machine-pool's twin releases the pool's Machines from its cache on deletion: no per-template base deletes
    // anything or has a Machine naming a pool, and depth first, the pairs of four bases came first (run 733)
    const r = await systematicTwin(machinePool, 120);
    expect(r.ok ? 'passed' : r.property).toBe('same-end-state');
    if (r.ok) return;
    expect(r.systematic.failingPlan).toEqual({ strategy: 'stale-read-before-write', target: expect.stringMatching(/^cached list #\d+ of Machine by controller:machine-pool\/0/) });
    expect(r.scenario.workload.map((a) => `${a.type} ${'object' in a ? a.object.kind : (a as { kind: string }).kind}`)).toEqual(['create MachinePool', 'create Machine', 'delete MachinePool']);
    // the Machine names the pool made before it (a spec of its template that does)
    const [pool, machine] = r.scenario.workload;
    expect(machine!.type === 'create' && machine!.object.spec).toMatchObject({ pool: pool!.type === 'create' ? pool!.object.metadata.name : '' });
    expect(r.runs).toBeLessThanOrEqual(100);
  });

  it('skips a strategy whose fault kind is not given, and says why', async () => {
    const r = await checkSystematic(levelTriggered, { ...replicas, faults: [eventLoss] });
    const skipped = r.systematic.strategies.filter((s) => s.skipped);
    expect(skipped.map((s) => s.strategy)).toEqual(ALL_STRATEGIES.filter((s) => s !== 'unnotified-state'));
    expect(skipped[0]!.skipped).toMatch(/fault kind "crash-restart" is not among options\.faults/);
    // a strategy whose plans use two kinds names both
    expect(skipped.find((s) => s.strategy === 'restart-from-stale-replica')!.skipped).toBe('its fault kinds "stale-snapshot" and "crash-restart" are not all among options.faults');
    expect(r.systematic.strategies.find((s) => s.strategy === 'unnotified-state')!.plans).toBeGreaterThan(0);
  });

  it('derives plans from the scenarios you give, and stops at the first failure when asked', async () => {
    const scenario: Scenario = {
      seed: 3,
      controllers: [{ name: 'edge-triggered' }],
      initialObjects: [],
      workload: [{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 0 } } }],
      faults: { events: [], background: [] },
      options: { faultWindowMs: 5000, settleMs: 5000 },
    };
    const all = await checkSystematic(edgeTriggered, { ...replicas, scenarios: [scenario] });
    const first = await checkSystematic(edgeTriggered, { ...replicas, scenarios: scenario, stopOnFailure: true });
    expect(first.ok).toBe(false);
    expect(first.runs).toBeLessThan(all.runs);
    expect(!first.ok && first.scenario.workload[0]!.type === 'create' && first.scenario.workload[0]!.object.metadata.name).toBe('web');
  });

  it('rejects unknown strategies and foreign scenarios with the option named', async () => {
    await expect(checkSystematic(levelTriggered, { ...replicas, strategies: ['chaos' as never] })).rejects.toThrow(/^steadystate\.checkSystematic: options\.strategies contains "chaos"/);
    await expect(checkSystematic(levelTriggered, { ...replicas, maxPlans: 0 })).rejects.toThrow(/options\.maxPlans must be an integer ≥ 1/);
    await expect(checkSystematic(levelTriggered, { ...replicas, depth: 3 as never })).rejects.toThrow(/options\.depth must be 1 \(single faults\) or 2/);
    await expect(checkSystematic(levelTriggered, { ...replicas, maxRuns: 0 })).rejects.toThrow(/options\.maxRuns must be an integer ≥ 1/);
    const foreign: Scenario = { seed: 1, controllers: [{ name: 'someone-else' }], initialObjects: [], workload: [], faults: { events: [], background: [] } };
    await expect(checkSystematic(levelTriggered, { ...replicas, scenarios: foreign })).rejects.toThrow(/options\.scenarios\[0\] names controller "someone-else"/);
  });
});
