import { describe, expect, it } from 'vitest';
import { defineController, simulate, type RunRecord, type Scenario } from '../../src/index.js';
import { noFighting, FIGHT_GUESS_HANDOVERS } from '../../properties/no-fighting.js';
import { noHotLoop, FLIP_FLOP_GUESS } from '../../properties/no-hot-loop.js';
import { FightScan } from '../../properties/_internals/fight-scan.js';
import { fighterA, fighterB } from '../../examples/property-targets/widget-controllers.js';
import { createAll, WIDGET, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { fakeRun } from '../unit/harness/helpers.js';
import type { TraceEntry } from '../../src/sim/trace.js';

/**
 * A fight is stopped once its verdict is known (W-2, h50): a guess after FIGHT_GUESS_HANDOVERS
 * hand-overs in a row in the settle phase, confirmed by running on to the certain stop, the first
 * hand-over in the quiet tail once the field changed hands more than maxFlips times (the judge's
 * own rule, reached on a prefix). Before, every run of a fight wrote to the end of the tail.
 */
const scenario: Scenario = widgetScenario(['fighter-a', 'fighter-b'], createAll([widget('shared', 1)]), { options: { faultWindowMs: 200, settleMs: 2_000 } });
const fighters = [fighterA, fighterB];
const run = async (earlyStop: boolean | 'certain', controllers = fighters): Promise<RunRecord> => (await simulate(scenario, { controllers, properties: [noFighting()], earlyStop })).run;
const SUMMARY = /^fighting over status\.phase of Widget default\/shared: \d+ flips between controller:fighter-a\/0 and controller:fighter-b\/0$/;

describe('no-fighting stops a fight early', () => {
  it('at its guess, a few hundred hand-overs into the settle phase; for certain at the first hand-over in the quiet tail; with the words of the end-of-run verdict', async () => {
    const stopped = await run(true);
    const stop = stopped.timing.stoppedEarly;
    expect(stop).toMatchObject({ property: 'no-fighting' });
    expect(stop?.certain).toBeUndefined();
    expect(stop!.at).toBeGreaterThanOrEqual(stopped.timing.settleStart);
    const inSettle = (r: RunRecord) => r.writes.filter((w) => w.t >= r.timing.settleStart).length;
    expect(inSettle(stopped)).toBeLessThan(FIGHT_GUESS_HANDOVERS * 2);
    // the guess's confirmation runs on to the certain stop (the judge's own rule on the run so far), no further
    const certain = await run('certain');
    const sure = certain.timing.stoppedEarly;
    expect(sure).toMatchObject({ property: 'no-fighting', certain: true });
    expect(sure!.at).toBeGreaterThanOrEqual(certain.timing.tailStart);
    expect(sure!.at).toBeLessThan(certain.timing.tailStart + 100);
    expect(inSettle(certain)).toBeGreaterThan(inSettle(stopped) * 5);
    const [a, b] = [noFighting().judge(certain, undefined), noFighting().judge(stopped, undefined)];
    expect(a.ok || b.ok).toBe(false);
    if (a.ok || b.ok) return;
    expect(a.summary).toMatch(SUMMARY);
    expect(b.summary).toMatch(SUMMARY);
    for (const v of [a, b]) expect(v.explanation).toContain('two writers both believe they own this field');
    expect(a.explanation).toContain('so every run with this beginning fails');
    expect(b.explanation).toContain(`took turns setting status.phase of Widget default/shared ${FIGHT_GUESS_HANDOVERS} times in a row`);
  });

  it('not a handoff: two writers that take turns a few times, then one gives way, run to the end and pass', async () => {
    // B takes status.phase from A at most three times (it counts its turns in status.turns), then leaves it to A
    const giving = defineController({
      name: 'fighter-b',
      for: WIDGET,
      async reconcile(ctx) {
        const w = await ctx.client.tryGet(WIDGET, ctx.key);
        const turns = Number(w?.status['turns'] ?? 0);
        if (!w || w.status['phase'] === 'b' || turns >= 3) return;
        await ctx.client.patchStatus(WIDGET, ctx.key, { status: { phase: 'b', turns: turns + 1 } });
      },
    });
    const { run: r } = await simulate(scenario, { controllers: [fighterA, giving], properties: [noFighting(), noHotLoop()], earlyStop: true });
    expect(r.timing.stoppedEarly).toBeUndefined();
    expect(r.timing.end).toBe(r.timing.tailStart + 10_000);
    expect(noFighting().judge(r, undefined)).toMatchObject({ ok: true });
    expect(noHotLoop().judge(r, undefined)).toMatchObject({ ok: true });
  });
});

describe('no-hot-loop stops a field set back and forth', () => {
  // one writer that no-fighting cannot tell apart (as two server-side apply field managers of one
  // hosted program are one actor): each reconcile sets status.phase to the other value
  const toggler = defineController({
    name: 'toggler',
    for: WIDGET,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet(WIDGET, ctx.key);
      if (w) await ctx.client.patchStatus(WIDGET, ctx.key, { status: { phase: w.status['phase'] === 'a' ? 'b' : 'a' } });
    },
  });
  it('at its guess, in the settle phase, with the words of its verdict on the quiet tail', async () => {
    const s = { ...scenario, controllers: [{ name: 'toggler' }] };
    const { run: r } = await simulate(s, { controllers: [toggler], properties: [noHotLoop()], earlyStop: true });
    expect(r.timing.stoppedEarly).toMatchObject({ property: 'no-hot-loop', reason: `status.phase of Widget default/shared was set back and forth between "b" and "a" ${FLIP_FLOP_GUESS} times in a row` });
    expect(r.timing.stoppedEarly!.at).toBeGreaterThanOrEqual(r.timing.settleStart);
    expect(r.writes.filter((w) => w.t >= r.timing.settleStart).length).toBeLessThan(FLIP_FLOP_GUESS * 2);
    const v = noHotLoop().judge(r, undefined);
    expect(v.ok ? '' : v.summary).toMatch(/^hot loop: \d+ controller writes in [\d.]+ m?s while nothing else happened, \d+ to Widget default\/shared \(status\.phase\)$/);
  });
});

describe('FightScan, on hand-made traces (settle at 10 s, tail at 20 s)', () => {
  const handOver = (t: number, i: number): TraceEntry => ({ type: 'store:write', t, actor: i % 2 === 0 ? 'controller:a/0' : 'controller:b/0', verb: 'patchStatus', kind: 'Widget', key: 'default/w', uid: 'u1', rv: 10 + i, changed: ['status.phase'], noop: false });
  const scan = (trace: TraceEntry[]) => new FightScan({ maxFlips: 2, start: 10_000, settleStart: 10_000, tailStart: 20_000, guessAt: FIGHT_GUESS_HANDOVERS }).scan(trace);
  const fight = (n: number, from = 10_000, step = 10) => Array.from({ length: n }, (_, i) => handOver(from + i * step, i));

  it('guesses after the hand-overs in a row, not one sooner', () => {
    expect(scan(fight(FIGHT_GUESS_HANDOVERS)).guessed).toBeUndefined();
    expect(scan(fight(FIGHT_GUESS_HANDOVERS + 1)).guessed).toMatchObject({ path: 'status.phase', inARow: FIGHT_GUESS_HANDOVERS, writers: ['controller:a/0', 'controller:b/0'] });
  });

  it('starts over after something from outside (a user action, a fault, a restart)', () => {
    for (const type of ['user:action', 'fault:inject', 'controller:start'] as const) {
      const trace = fight(FIGHT_GUESS_HANDOVERS + 50);
      trace.splice(150, 0, { type, t: trace[150]!.t });
      expect(scan(trace).guessed, type).toBeUndefined();
    }
  });

  it('is certain exactly when the judge fails every extension: more than maxFlips hand-overs, one in the tail', () => {
    const before = fight(10, 19_000);
    expect(scan(before).certain).toBeUndefined();
    expect(noFighting().judge(fakeRun({ trace: before }), undefined).ok).toBe(true);
    const into = [...before, handOver(20_000, 10)];
    expect(scan(into).certain).toMatchObject({ flips: 10 });
    expect(noFighting().judge(fakeRun({ trace: into }), undefined).ok).toBe(false);
    // three writes in the tail, two hand-overs: not more than maxFlips
    const few = fight(3, 20_000);
    expect(scan(few).certain).toBeUndefined();
    expect(noFighting().judge(fakeRun({ trace: few }), undefined).ok).toBe(true);
  });
});
