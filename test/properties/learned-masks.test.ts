import { describe, expect, it } from 'vitest';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { convergence } from '../../properties/convergence.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { ScenarioRunner } from '../../src/harness/scenario-runner.js';
import { scenarioShape } from '../../src/harness/twin.js';
import type { ControllerDefinition, FaultPlan, Property, Scenario, WorkloadAction } from '../../src/index.js';
import { allocator } from '../../examples/property-targets/allocator.js';
import { allFaults } from '../../faults/index.js';
import { generateNameApp } from '../e2e/crash-fixtures.js';

/**
 * Masks learned from benign fault-free runs (Sieve): path-dependent state that a correct
 * controller legitimately ends in differently (allocation order, time-valued annotations, a
 * per-generation Job skipped when two spec changes coalesce) no longer fails same-end-state and
 * no-extra-destructive-actions; a buggy twin still fails; masks are cached per scenario shape.
 */
const CLAIM = 'Claim';

const create = (at: number, name: string, size = 1): WorkloadAction => ({ at, type: 'create', object: { kind: CLAIM, metadata: { name, namespace: 'default' }, spec: { size } } });
const update = (at: number, name: string, size: number): WorkloadAction => ({ at, type: 'update', kind: CLAIM, key: `default/${name}`, spec: { size } });

function scenario(c: ControllerDefinition, workload: WorkloadAction[], faults: FaultPlan): Scenario {
  return { seed: 7, controllers: [{ name: c.name }], initialObjects: [], workload, faults, options: { faultWindowMs: 5_000, settleMs: 10_000 } };
}

function runnerFor(c: ControllerDefinition, properties: Property[]): ScenarioRunner {
  return new ScenarioRunner({ controllers: [c], faults: allFaults, tailMs: 2000 }, properties);
}

/** The first claim's ADDED notification is lost: it is reconciled at the next resync, after the second took slot 0. */
const lateSecond: FaultPlan = { events: [{ kind: 'event-loss', nth: 0 }], background: [] };

describe('learned masks', () => {
  it('allocation order and time-valued annotations: masked, because fault-free runs disagree on them', async () => {
    const c = allocator('allocator', { stamp: true });
    const s = scenario(c, [create(0, 'b'), create(0, 'a')], lateSecond);
    const plain = await runnerFor(c, [sameEndState({ learn: false })]).judge(s);
    // the old false alarm: the slots swap when an event comes late
    expect(plain.failure?.summary).toMatch(/end state differs from the fault-free run: Claim default\/\w: (status\.slot|metadata\.annotations\["example\.com\/synced-at-ms"\])/);
    const runner = runnerFor(c, [sameEndState()]);
    const learned = await runner.judge(s);
    expect(learned.failure).toBeUndefined();
    const masks = runner.learned.summary()[0]!.masks;
    expect(masks).toEqual(expect.arrayContaining(['Claim default/a: status.slot', 'Claim default/a: metadata.annotations["example.com/synced-at-ms"]']));
  });

  it('a buggy twin (edge-triggered: misses the spec change under a lost event) still fails, and the verdict lists the masks', async () => {
    const c = allocator('edge', { edge: true });
    const s = scenario(c, [create(0, 'b'), create(0, 'a'), update(1500, 'a', 2)], { events: [{ kind: 'delay', nth: 0, params: { ms: 2500 } }, { kind: 'event-loss', nth: 2 }], background: [] });
    const out = await runnerFor(c, [sameEndState()]).judge(s);
    expect(out.failure?.property).toBe('same-end-state');
    expect(out.failure?.summary).toMatch(/Claim default\/a: status\.size is \d, \d in the fault-free run/);
    expect(out.failure?.explanation).toContain('masked because fault-free runs disagree');
    expect(out.failure?.explanation).toMatch(/- the fault-free run\n\+ this run\n/);
  });

  it('caches per scenario shape: the same workload at other times needs no new benign runs', async () => {
    const c = allocator('allocator', { stamp: true });
    const runner = runnerFor(c, [sameEndState()]);
    await runner.judge(scenario(c, [create(0, 'b'), create(0, 'a')], lateSecond));
    const benign = runner.twins.benignSimulations;
    expect(benign).toBeGreaterThan(0);
    const later = scenario(c, [create(300, 'b'), create(300, 'a')], lateSecond);
    expect(scenarioShape(later)).toBe(scenarioShape(scenario(c, [create(0, 'b'), create(0, 'a')], lateSecond)));
    expect((await runner.judge(later)).failure).toBeUndefined();
    expect(runner.twins.benignSimulations).toBe(benign);
  });

  it('no-extra-destructive-actions allows what benign runs made (a per-generation Job skipped when two spec changes coalesce)', async () => {
    const c = allocator('allocator');
    // two spec changes at one instant: the fault-free twin sees only the last, so it never creates Job a-g2
    const work = [create(0, 'a'), update(300, 'a', 2), update(300, 'a', 3)];
    for (const nth of [2, 3, 4]) {
      const s = scenario(c, work, { events: [{ kind: 'delay', nth, params: { ms: 500 } }], background: [] });
      const plain = await runnerFor(c, [noExtraDestructiveActions({ learn: false })]).judge(s);
      if (!plain.failure) continue;
      // the old false alarm: a delay let the controller see generation 2 on its own
      expect(plain.failure.summary).toContain('extra destructive actions on Job default/a-g2: 1 create and 0 deletes under faults, 0 and 0 without');
      const runner = runnerFor(c, [noExtraDestructiveActions()]);
      expect((await runner.judge(s)).failure).toBeUndefined();
      expect(runner.learned.summary()[0]!.masks).toContain('Job default/a-g2: up to 1 creates and 0 deletes (counts)');
      return;
    }
    throw new Error('no delay made the controller see generation 2 on its own');
  });
});

describe('benign variations hold back inputs, not a controller\'s view of its own writes', () => {
  it('a duplicate create that a late view of its own status write causes is not learned as path-dependence', async () => {
    // generateName + status in a second write: seen late (700 ms jitter), its own write makes the
    // buggy controller create a second Pod fault-free too; learning that ("up to 3 creates") hid the crash bug
    const s: Scenario = {
      seed: 1,
      controllers: [{ name: generateNameApp.name }],
      initialObjects: [],
      workload: ['app-0', 'app-1'].map((name) => ({ at: 0, type: 'create' as const, object: { kind: 'App', metadata: { name, namespace: 'default' }, spec: { image: 'nginx:1' } } })),
      faults: { events: [{ kind: 'crash-restart', nth: 0, params: { point: 'after-write' } }], background: [] },
    };
    const runner = runnerFor(generateNameApp, [noExtraDestructiveActions()]);
    const out = await runner.judge(s);
    expect(out.failure?.summary).toMatch(/^extra destructive actions on Pod default\/app-0-\*: 2 creates/);
    expect(runner.learned.summary()).toEqual([]);
  });
});

describe('user masks', () => {
  it('enter arrays by index, by [*] and by [field=value], and quoted dotted keys', async () => {
    const { dropPattern, parsePattern, fmtPath } = await import('../../properties/_internals/paths.js');
    const v = { status: { conditions: [{ type: 'Ready', message: 'id 17', lastTransitionTime: 't1' }, { type: 'Synced', message: 'ok', lastTransitionTime: 't2' }] }, metadata: { annotations: { 'example.com/hash': 'x', keep: 'y' } } };
    const steps = (m: string) => parsePattern(m) as Exclude<ReturnType<typeof parsePattern>, string>;
    expect(dropPattern(v, steps('status.conditions[*].lastTransitionTime'))).toEqual({ ...v, status: { conditions: [{ type: 'Ready', message: 'id 17' }, { type: 'Synced', message: 'ok' }] } });
    expect(dropPattern(v, steps('status.conditions[type=Ready].message'))).toMatchObject({ status: { conditions: [{ type: 'Ready', lastTransitionTime: 't1' }, { type: 'Synced', message: 'ok' }] } });
    expect(dropPattern(v, steps('metadata.annotations["example.com/hash"]'))).toMatchObject({ metadata: { annotations: { keep: 'y' } } });
    expect(fmtPath(['metadata', 'annotations', 'example.com/hash'])).toBe('metadata.annotations["example.com/hash"]');
    expect(fmtPath(['status', 'conditions', 0, 'message'])).toBe('status.conditions[0].message');
    expect(parsePattern('status.conditions[type=Ready')).toMatch(/unclosed "\["/);
  });

  it('a mask that matches no path in any run makes check throw, naming the nearest path', async () => {
    const { check } = await import('../../src/harness/check.js');
    const c = allocator('allocator');
    const p = sameEndState({ masks: ['metadata.generation', 'status.slott'] });
    await expect(check(c, { properties: [p], faults: [], objects: { kind: CLAIM, spec: [{ size: 1 }] }, runs: 3, seed: 1, tailMs: 1000 })).rejects.toThrow(
      'steadystate.properties.sameEndState: mask "status.slott" matches no path in any of the 6 states compared; the nearest path is "status.slot". Fix the path or remove the mask.',
    );
    expect(() => sameEndState({ masks: ['status.conditions[type=Ready'] })).toThrow(/mask "status.conditions\[type=Ready": unclosed "\["/);
  });

  it('a failing check keeps its failure and names a mask that matched nothing as a warning (a right path may be absent from the few states an early failure compared)', async () => {
    const { check } = await import('../../src/harness/check.js');
    const c = allocator('edge', { edge: true });
    const p = sameEndState({ masks: ['status.slott'] });
    // the edge allocator never follows a spec change (in the fault-free run too: a convergence failure)
    const followed = convergence({ converged: (view) => view.list(CLAIM).every((o) => (o.status as { size?: number }).size === o.spec['size']) || 'a claim reports another size than its spec' });
    const r = await check(c, { properties: [p, followed], objects: { kind: CLAIM, spec: [{ size: 1 }, { size: 2 }] }, runs: 100, seed: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('convergence');
    expect(r.warnings).toContainEqual(expect.stringMatching(/^steadystate\.properties\.sameEndState: mask "status\.slott" matches no path in any of the \d+ states compared; the nearest path is "status\.slot"\. Fix the path or remove the mask\. \(It masked nothing in this check/));
  });

  it('masks the standard condition fields by default', () => {
    expect(sameEndState().options['masks']).toEqual(expect.arrayContaining(['status.conditions[*].lastTransitionTime', 'status.conditions[*].lastHeartbeatTime', 'status.conditions[*].observedGeneration']));
  });
});
