import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { simulate } from '../../src/simulate.js';
import { recordTimelines, replay } from '../../src/replay.js';
import { checkSystematic } from '../../src/harness/systematic.js';
import { defineController } from '../../src/runtime/define-controller.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { eventLoss } from '../../faults/index.js';
import { convergence } from '../../properties/convergence.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { virtualTimestamp, type JsonObject } from '../../src/store/object.js';

/**
 * Failures in seconds (issue 15): the kernel gives the host event loop a turn during long runs
 * (so test timeouts, progress and Ctrl-C work), wall-clock budgets cut the search and the shrink
 * short and say so, and a run whose verdict is certain (a hot loop) stops there.
 */

/** Stamps status on every reconcile: each write's event brings the next reconcile, 1 per ms. */
const stamper = defineController({
  name: 'stamper',
  for: 'Site',
  async reconcile(ctx) {
    const site = await ctx.client.tryGet<{ v: number }, { observedGeneration?: number; lastSyncTime?: string }>('Site', ctx.key);
    if (!site) return;
    await ctx.client.updateStatus({ ...site, status: { observedGeneration: site.metadata.generation, lastSyncTime: virtualTimestamp(ctx.clock.now()) } });
  },
});

/** Counts status.count up to spec.count one write at a time (each write's event brings the next step): converging, not looping. */
const counter = defineController({
  name: 'counter',
  for: 'Counter',
  async reconcile(ctx) {
    const c = await ctx.client.tryGet<{ count: number }, { count?: number; observedGeneration?: number }>('Counter', ctx.key);
    if (!c) return;
    const now = c.status.count ?? 0;
    if (now >= c.spec.count && c.status.observedGeneration === c.metadata.generation) return;
    await ctx.client.updateStatus({ ...c, status: { count: Math.min(c.spec.count, now + 1), observedGeneration: c.metadata.generation } });
  },
});

/**
 * Processes spec.items one per reconcile, reporting status.processed (a name the spec does not
 * have, so the world looks converged throughout): 1,500 writes in a row, then it stops well
 * before the quiet tail. A chatty controller, but not a hot loop: the tail is quiet.
 */
const migrator = defineController({
  name: 'migrator',
  for: 'Migration',
  async reconcile(ctx) {
    const m = await ctx.client.tryGet<{ items: number }, { processed?: number; observedGeneration?: number }>('Migration', ctx.key);
    if (!m) return;
    const done = m.status.processed ?? 0;
    if (done >= m.spec.items) return;
    await ctx.client.updateStatus({ ...m, status: { processed: done + 1, observedGeneration: m.metadata.generation } });
  },
});

function oneObject(kind: string, controller: string, spec: JsonObject): Scenario {
  return { seed: 1, controllers: [{ name: controller }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind, metadata: { name: 'a', namespace: 'default' }, spec } }], faults: { events: [], background: [] }, options: { faultWindowMs: 2_000, settleMs: 3_000 } };
}

describe('the kernel yields to the host event loop', () => {
  it('lets a real timer fire in the middle of a long run (test timeouts, progress and Ctrl-C work)', async () => {
    let fired = false;
    const timer = setTimeout(() => (fired = true), 1);
    const seen: boolean[] = [];
    try {
      // no monitors: the loop runs its whole 10 s of virtual time (~10,000 writes)
      await simulate({ ...oneObject('Site', 'stamper', { v: 1 }), options: { faultWindowMs: 1_000, settleMs: 1_000 } }, {
        controllers: [stamper],
        tailMs: 8_000,
        probes: [{ name: 'host-timer', everyMs: 100, phases: ['faults', 'settle', 'tail'], fn: () => (seen.push(fired), true) }],
      });
    } finally {
      clearTimeout(timer);
    }
    expect(seen[0]).toBe(false);
    expect(seen.at(-1)).toBe(true);
  });

  it('ends a run when asked at a yield, and marks it interrupted', async () => {
    let t = 0;
    const { run } = await simulate(oneObject('Site', 'stamper', { v: 1 }), { controllers: [stamper], wallClock: () => (t += 5), onYield: () => true });
    expect(run.timing.interrupted).toBe(true);
    expect(run.trace.at(-2)?.type).toBe('run:interrupted');
    expect(run.timing.end).toBeLessThan(15_000);
  });
});

describe('wall-clock budgets', () => {
  const objects = { kind: 'ReplicaSet', spec: [{ replicas: 3 }], status: { replicas: 0 } };

  it('timeLimitMs stops the search, passes on the runs made, and says so', async () => {
    let t = 0;
    const r = await check(levelTriggered, { objects, runs: 500, seed: 3, faults: [eventLoss], properties: [convergence()], timeLimitMs: 200, wallClock: () => (t += 1) });
    expect(r.ok).toBe(true);
    expect(r.cutShort).toMatchObject({ phase: 'runs', limitMs: 200 });
    expect(r.runs).toBeGreaterThan(0);
    expect(r.runs).toBeLessThan(500);
    expect(r.cutShort!.done).toBe(`${r.runs} of 500 runs made`);
  });

  it('shrinkTimeLimitMs stops shrinking and reports the smallest failing scenario so far', async () => {
    let t = 0;
    const clock = () => (t += 1);
    const full = await check(edgeTriggered, { objects, runs: 100, seed: 5, faults: [eventLoss], properties: [convergence()], wallClock: clock });
    const cut = await check(edgeTriggered, { objects, runs: 100, seed: 5, faults: [eventLoss], properties: [convergence()], shrinkTimeLimitMs: 1, wallClock: clock });
    expect(full.ok || cut.ok).toBe(false);
    if (full.ok || cut.ok) return;
    expect(full.cutShort).toBeUndefined();
    expect(cut.cutShort).toMatchObject({ phase: 'shrinking', limitMs: 1 });
    expect(cut.property).toBe('convergence');
    expect(cut.shrinks).toBeLessThan(full.shrinks);
  });

  it('are validated with the option named', async () => {
    await expect(check(levelTriggered, { timeLimitMs: -1 })).rejects.toThrow(/options\.timeLimitMs must be a positive number of wall-clock milliseconds/);
    await expect(check(levelTriggered, { shrinkTimeLimitMs: Number.NaN })).rejects.toThrow(/options\.shrinkTimeLimitMs/);
  });
});

describe('a run stops once its verdict is certain', () => {
  it('a hot loop is found and shrunk on runs cut short where the loop became certain', async () => {
    const r = await check(stamper, { objects: { kind: 'Site', spec: [{ v: 1 }] }, runs: 20, seed: 1, properties: [noHotLoop(), convergence()] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('no-hot-loop');
    expect(r.run.timing.stoppedEarly).toMatchObject({ property: 'no-hot-loop' });
    expect(r.run.timing.end).toBeLessThan(2_000);
    // each write changed only the time stamp: the stamping loop, certain at its 1,000th write
    expect(r.summary).toMatch(/^hot loop: 1,000 writes in a row to Site default\/site-0 by controller:stamper\/0, each changing only the time stamp status\.lastSyncTime/);
    expect(r.explanation).toMatch(/the run was stopped there .*1,000 such writes in a row already decide the verdict/);
    // a certain stop is confirmed by a rerun to that point (prefix-closed), not past it (a growing loop's full run is quadratic: red team round 9 L-1)
    expect(r.explanation).toMatch(/Confirmed: the early stop was certain \(every run with that beginning fails\), and the same scenario run again to it fails no-hot-loop too \(hot loop: 1,000 writes in a row to Site default\/site-0/);
    expect(r.run.trace.some((e) => e.type === 'run:stopped')).toBe(true);
  });

  it('a controller taking many one-write steps toward its spec is converging, not looping: no early stop, no failure', async () => {
    const r = await check(counter, { objects: { kind: 'Counter', spec: [{ count: 1_500 }] }, runs: 3, seed: 1, properties: [noHotLoop(), convergence()], faults: [] });
    expect(r.ok).toBe(true);
  });

  it('a burst of 1,500 same-field writes that ends before the quiet tail is no hot loop: the early stop is confirmed by a full run before it is a verdict', async () => {
    const r = await check(migrator, { objects: { kind: 'Migration', spec: [{ items: 1_500 }] }, runs: 3, seed: 1, properties: [noHotLoop(), convergence()], faults: [] });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
  });

  it('systematic mode confirms an early stop the same way: the burst that ends before the quiet tail passes', async () => {
    const r = await checkSystematic(migrator, { objects: { kind: 'Migration', spec: [{ items: 1_500 }] }, faults: [eventLoss], properties: [noHotLoop(), convergence()], maxPlans: 2, depth: 1 });
    expect(r.ok ? 'passed' : `${r.property}: ${r.summary}`).toBe('passed');
  });

  it('a replay judges as check does: once the loop ends before the quiet tail, the reproduction passes', async () => {
    const s = oneObject('Site', 'stamper', { v: 1 });
    // the stamper, fixed to stop after 1,500 stamps (long past the early stop's 1,000, well before the tail)
    const bounded = defineController({
      name: 'stamper',
      for: 'Site',
      async reconcile(ctx) {
        const site = await ctx.client.tryGet<{ v: number }, { observedGeneration?: number; lastSyncTime?: string; stamps?: number }>('Site', ctx.key);
        if (!site || (site.status.stamps ?? 0) >= 1_500) return;
        await ctx.client.updateStatus({ ...site, status: { observedGeneration: site.metadata.generation, lastSyncTime: virtualTimestamp(ctx.clock.now()), stamps: (site.status.stamps ?? 0) + 1 } });
      },
    });
    expect((await replay(stamper, { scenario: s, property: noHotLoop() })).ok).toBe(false);
    const fixed = await replay(bounded, { scenario: s, property: noHotLoop() });
    expect(fixed.failure?.summary ?? 'passed').toBe('passed');
  });

  it("the report's timelines record the run the check reported, not the confirming run to the end", async () => {
    const r = await check(stamper, { objects: { kind: 'Site', spec: [{ v: 1 }] }, runs: 5, seed: 1, properties: [noHotLoop()] });
    if (r.ok) throw new Error('the stamper passed');
    // a probe on every write sees the times of every run the recording makes
    const seen: number[] = [];
    const probe = { name: 'times', everyMs: 'write' as const, phases: ['faults', 'settle', 'tail'] as ('faults' | 'settle' | 'tail')[], fn: (view: { now(): number }) => (seen.push(view.now()), true) };
    const t = await recordTimelines(stamper, r.scenario, { properties: [noHotLoop()], probes: [probe] }, r.property);
    expect(t.objects.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeLessThanOrEqual(r.run.timing.end);
  });

  it('replays stop at the same point: same trace hash', async () => {
    const s = oneObject('Site', 'stamper', { v: 1 });
    const a = await simulate(s, { controllers: [stamper], properties: [noHotLoop()], earlyStop: true });
    const b = await simulate(s, { controllers: [stamper], properties: [noHotLoop()], earlyStop: true });
    expect(a.run.timing.stoppedEarly).toBeDefined();
    expect(a.run.hash).toBe(b.run.hash);
  });
});
