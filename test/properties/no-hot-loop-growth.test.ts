import { describe, expect, it } from 'vitest';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { growingConfigMapBuggy, growingConfigMapCorrect, growingHistoryBuggy, growingHistoryCorrect, HISTORY_LIMIT } from '../../examples/property-targets/growing.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import type { Scenario, WorkloadAction } from '../../src/index.js';
import { expectFailure, judgeScenario } from '../helpers/property-laws.js';

/*
 * A growing loop (red team round 9, L-1): every write makes the object bigger, so each costs more
 * than the last and the check never ended. no-hot-loop judges it once one replica made one object
 * bigger 1,000 times with at most one thing happening per ten of those writes, and the run stops
 * there (certain); a log that records transitions, or keeps the last N, is never judged so.
 */
const updates = (n: number, everyMs: number): WorkloadAction[] => Array.from({ length: n }, (_, i) => ({ at: 500 + i * everyMs, type: 'update', kind: 'Widget', key: 'default/a', spec: { size: 3 + i } }) as WorkloadAction);
const quiet = widgetScenario(['widget'], createAll([widget('a', 2)]));
// a user updating the Widget every 200 ms for 6 s: the buggy loop writes between the updates, the correct one once per update
const busy: Scenario = widgetScenario(['widget'], [...createAll([widget('a', 2)]), ...updates(30, 200)]);
const lossy: Scenario = { ...busy, faults: { events: [{ kind: 'event-loss', nth: 0 }, { kind: 'event-loss', nth: 3 }], background: [] } };

describe('no-hot-loop: a growing loop', () => {
  it('fails the controller that appends to status.history on every pass, stops the run there, and says why it must stop', async () => {
    const t0 = performance.now();
    const { verdict, run } = await judgeScenario(noHotLoop(), quiet, { controllers: [growingHistoryBuggy], options: { earlyStop: 'certain' } });
    const v = expectFailure(verdict);
    expect(v.summary).toBe('hot loop: 1,000 writes to Widget default/a by controller:widget/0, each making it bigger (status.history)');
    expect(run.timing.stoppedEarly).toMatchObject({ property: 'no-hot-loop', certain: true });
    expect(run.writes.length).toBeLessThan(1100);
    expect(v.explanation).toContain('the loop feeds itself');
    expect(v.explanation).toContain('etcdserver: request is too large');
    expect(v.explanation).toContain('append an entry only when what it records changes');
    expect(v.evidence['growing']).toMatchObject({ object: 'Widget default/a', writes: 1000, events: 0 });
    // it ends: seconds, not the minutes a run to its end took (each write costs the object's size)
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  it('fails it while a user keeps updating the Widget too (each update is one thing to record, not a thousand)', async () => {
    const { verdict } = await judgeScenario(noHotLoop(), busy, { controllers: [growingHistoryBuggy], options: { earlyStop: 'certain' } });
    const v = expectFailure(verdict);
    expect(v.summary).toMatch(/^hot loop: 1,000 writes to Widget default\/a by controller:widget\/0, each making it bigger \(status\.history/);
    expect((v.evidence['growing'] as { events: number }).events).toBeGreaterThan(0);
    expect(v.explanation).toMatch(/meanwhile only \d+ things? happened/);
  });

  it('passes the twin that appends only on a transition and keeps the last entries, with and without lost events', async () => {
    for (const s of [quiet, busy, lossy]) {
      const { verdict, run } = await judgeScenario(noHotLoop(), s, { controllers: [growingHistoryCorrect] });
      expect(verdict.ok).toBe(true);
      const history = run.finalObjects.find((o) => o.kind === 'Widget')!.status['history'] as unknown[];
      expect(history.length).toBeGreaterThan(0);
      expect(history.length).toBeLessThanOrEqual(HISTORY_LIMIT);
      expect(run.grown!.length).toBeLessThan(40);
    }
  });

  it('fails the controller that adds a key to its ConfigMap on every pass (a new path each write: told as data.*), and passes its twin', async () => {
    const { verdict, run } = await judgeScenario(noHotLoop(), quiet, { controllers: [growingConfigMapBuggy], options: { earlyStop: 'certain' } });
    const v = expectFailure(verdict);
    expect(v.summary).toBe('hot loop: 1,000 writes to ConfigMap default/a-log by controller:widget/0, each making it bigger (data.*)');
    expect(run.timing.stoppedEarly?.certain).toBe(true);
    for (const s of [quiet, busy]) expect((await judgeScenario(noHotLoop(), s, { controllers: [growingConfigMapCorrect] })).verdict.ok).toBe(true);
  });
});
