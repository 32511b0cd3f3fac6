import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import type { FaultPlan, RunRecord } from '../../src/index.js';
import type { ControllerDefinition } from '../../src/runtime/define-controller.js';
import { simulate } from '../../src/simulate.js';
import { crashRestart } from '../../faults/crash-restart.js';
import { delay } from '../../faults/delay.js';
import { staleSnapshot } from '../../faults/stale-snapshot.js';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildExpectations, singleChildWithExpectations } from '../../examples/fault-targets/in-memory-state/correct.js';
import { singleChildMemoryBuggy } from '../../examples/fault-targets/in-memory-state/buggy.js';

/**
 * Stop 43 (red team, H8): a controller's in-memory state (`ctx.state`) lives and dies with its
 * replica incarnation. An expectations cache kept there is correct (a crash loses it, and the
 * restarted replica's cache starts from a full list); "I already created the Pod" kept only there
 * is the bug a restart exposes, and the crash-restart fault finds it.
 */
const none: FaultPlan = { events: [], background: [] };
const crashAfterWrite = (nth: number): FaultPlan => ({ events: [{ kind: 'crash-restart', nth, params: { point: 'after-write' } }], background: [] });

async function runOf(def: ControllerDefinition, plan: FaultPlan): Promise<RunRecord> {
  const { run } = await simulate(singleChildScenario(def.name, plan), { tailMs: 0, controllers: [def], faults: [crashRestart, delay, staleSnapshot] });
  return run;
}

const podCreates = (run: RunRecord) => run.trace.filter((e) => e.type === 'store:write' && e['verb'] === 'create' && e['kind'] === 'Pod').length;

describe('an expectations cache in ctx.state', () => {
  it('keeps one Pod per App through crashes after each write and watch stalls', async () => {
    const plans: FaultPlan[] = [none];
    for (let k = 0; k < 5; k++) plans.push(crashAfterWrite(k), { events: [{ kind: 'crash-restart', nth: k, params: { point: 'before-call' } }], background: [] });
    for (let k = 0; k < 4; k++) plans.push({ events: [{ kind: 'delay', nth: k, params: { ms: 3_000 } }], background: [] });
    for (const plan of plans) {
      const run = await runOf(singleChildExpectations, plan);
      expect(judgeSingleChild(run), JSON.stringify(plan.events)).toBe(true);
      expect(podCreates(run), JSON.stringify(plan.events)).toBe(2);
    }
  });

  it('is what keeps it from creating again while its cache lags behind its own create', async () => {
    const stall: FaultPlan = { events: [{ kind: 'delay', nth: 1, params: { ms: 300 } }], background: [] };
    expect(podCreates(await runOf(singleChildExpectations, stall))).toBe(2);
    // the same controller without the cache: every pass during the stall creates (and later deletes) a Pod
    expect(podCreates(await runOf(singleChildWithExpectations('no-expectations', { expectations: false }), stall))).toBeGreaterThan(10);
  });

  it('is lost on a crash, so a new incarnation asks the server before its first create (its informers may list from a lagging replica)', async () => {
    // found by checkSystematic at depth 1: the restarted replica lists Pods from a replica 4 versions behind
    const plan: FaultPlan = { events: [{ kind: 'crash-restart', at: 150 }, { kind: 'stale-snapshot', nth: 1, params: { versionsBack: 4, list: true, catchUpMs: 3_000 } }], background: [] };
    const run = await runOf(singleChildExpectations, plan);
    expect(run.trace.filter((e) => e.type === 'informer:list' && e['kind'] === 'Pod' && e['lagging'] !== undefined)).toHaveLength(1);
    expect(judgeSingleChild(run)).toBe(true);
    expect(podCreates(run)).toBe(2);
    expect(podCreates(await runOf(singleChildWithExpectations('cache-only', { expectations: false }), plan))).toBeGreaterThan(2);
  });

  it('passes a check with the default faults', async () => {
    const r = await check(singleChildExpectations, { objects: { kind: 'App', spec: [{ image: 'nginx:1' }, { image: 'node:20' }] }, runs: 60, seed: 3 });
    expect(r.ok, r.ok ? '' : r.summary).toBe(true);
  });
});

describe('"I already created the Pod", remembered only in ctx.state', () => {
  it('holds while the replica lives: fault-free checks pass', async () => {
    expect(judgeSingleChild(await runOf(singleChildMemoryBuggy, none))).toBe(true);
    const r = await check(singleChildMemoryBuggy, { objects: { kind: 'App', spec: [{ image: 'nginx:1' }, { image: 'nginx:2' }] }, faults: [], runs: 20, seed: 1 });
    expect(r.ok, r.ok ? '' : r.summary).toBe(true);
  });

  it('breaks when a crash-restart loses it: the restarted replica creates a second Pod', async () => {
    for (const k of [0, 1]) {
      const run = await runOf(singleChildMemoryBuggy, crashAfterWrite(k));
      expect(judgeSingleChild(run)).toMatch(/^App web controls 2 Pods/);
    }
  });

  it('a check with the crash-restart fault finds it', async () => {
    const r = await check(singleChildMemoryBuggy, { objects: { kind: 'App', spec: [{ image: 'nginx:1' }] }, faults: [crashRestart], runs: 60, seed: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.scenario.faults.events.map((e) => e.kind)).toEqual(['crash-restart']);
  });
});
