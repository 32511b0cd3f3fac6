import { describe, expect, it } from 'vitest';
import { check } from '../../src/index.js';
import { cronRunnerController } from '../../examples/client-node/steadystate.js';

/**
 * Known false alarm, open (as PENDING_ORACLE_FIXES is for the corpus): a hosted program that
 * writes because its own timer says a time has come (a client-node scheduler starting a run
 * every 10 s from `setInterval`) is judged a hot loop without any fault. idempotence and
 * no-hot-loop excuse scheduled work by reconcile spans (`requeueAfter` timers,
 * properties/_internals/scheduled.ts), and a program has no reconcile spans: its timer
 * callbacks are not in the trace as the starts of its work. Found while hunting the hosted
 * programs (stop 27: 177 of 200 runs failed, all without a fault). When hosted timers count as
 * scheduled work this test fails: then add the program to the hunt targets (`host:` in
 * bench/hunt-targets.ts) and turn this test around.
 */
describe('pending: scheduled work of hosted programs', () => {
  it('a client-node scheduler is still judged a hot loop fault-free', async () => {
    const r = await check(cronRunnerController, { runs: 5, seed: 1, faults: [] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('no-hot-loop');
    expect(r.scenario.faults.events).toEqual([]);
    expect(r.summary).toMatch(/write.* of the quiet tail, 1 to ConfigMap default\/cronschedule-0-run-\d+/);
  });
});
