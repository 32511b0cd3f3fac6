import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { watchDisconnect } from '../../faults/watch-disconnect.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';
import { simulate, type FaultPlan } from '../../src/index.js';

const lawCase: FaultLawCase = {
  fault: watchDisconnect,
  label: 'cached bookkeeping vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // the App stream ends just before the App's status write; for the re-watch delay the cache
  // lacks status.child and the Pod's ADDED makes the buggy controller create a second Pod
  breaking: { events: [{ kind: 'watch-disconnect', nth: 2, params: { gone: true } }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'watch-disconnect', nth: 0, params: { how: 'cut' } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('watch-disconnect', () => {
  it('re-watches from the last seen version: the event in flight is replayed, nothing is relisted', async () => {
    const run = await runCase(lawCase, singleChildCorrect, { events: [{ kind: 'watch-disconnect', nth: 2, params: { gone: false } }], background: [] });
    const cut = run.trace.find((e) => e.type === 'watch:event' && e['decision'] === 'disconnect')!;
    const replay = run.trace.find((e) => e.type === 'watch:event' && e['decision'] === 'deliver' && e['rv'] === cut['rv']);
    expect(replay!.t).toBeGreaterThanOrEqual(cut.t + 1000);
    expect(run.trace.filter((e) => e.type === 'informer:relist' && e.t < 10_000)).toEqual([]);
  });

  it('with gone: true the re-watch gets 410 and the informer relists', async () => {
    const run = await runCase(lawCase, singleChildCorrect, lawCase.breaking);
    const cut = run.trace.find((e) => e.type === 'watch:event' && e['decision'] === 'gone')!;
    expect(run.trace.some((e) => e.type === 'informer:relist' && e.t >= cut.t + 1000 && e.t < 10_000)).toBe(true);
  });

  it('a clean close (timeoutSeconds) is re-watched at once; an ERROR event after the back-off; both replay what was in flight', async () => {
    // an update at 2 s: its event (nth 6) comes on a stream open long enough for a clean close
    const later = (faults: FaultPlan) => ({ ...singleChildScenario(singleChildCorrect.name, faults), workload: [...singleChildScenario(singleChildCorrect.name, faults).workload, { at: 2000, type: 'update' as const, kind: 'App', key: 'default/web', spec: { image: 'nginx:2' } }] });
    for (const [how, after] of [['close', 0], ['error', 1000]] as const) {
      const { run } = await simulate(later({ events: [{ kind: 'watch-disconnect', nth: 6, params: { how } }], background: [] }), { controllers: [singleChildCorrect], faults: [watchDisconnect] });
      const end = run.trace.find((e) => e.type === 'watch:event' && e['decision'] === how)!;
      const replay = run.trace.find((e) => e.type === 'watch:event' && e['decision'] === 'deliver' && e['rv'] === end['rv'])!;
      expect(replay.t - end.t).toBeGreaterThanOrEqual(after);
      expect(replay.t - end.t).toBeLessThan(after + 10);
      expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ how });
    }
  });

  it('never closes cleanly a stream open for less than a second (timeoutSeconds is minutes): a close at the replay of a re-watch would loop', async () => {
    const run = await runCase(lawCase, singleChildCorrect, { events: [{ kind: 'watch-disconnect', nth: 2, params: { how: 'close' } }], background: [{ kind: 'watch-disconnect', rate: 1, params: { how: 'close' } }] });
    expect(run.trace.filter((e) => e.type === 'fault:inject')).toEqual([]);
    const cut = await runCase(lawCase, singleChildCorrect, { events: [{ kind: 'watch-disconnect', nth: 2, params: { how: 'cut' } }], background: [] });
    expect(cut.trace.filter((e) => e.type === 'fault:inject')).toHaveLength(1);
    // the loop it would make: an ERROR ends the App stream, and every replay of its re-watch is closed at once
    const looping: FaultPlan = { events: [{ kind: 'watch-disconnect', nth: 2, params: { how: 'error' } }], background: [{ kind: 'watch-disconnect', rate: 1, params: { how: 'close' } }] };
    const loop = (await simulate(singleChildScenario(singleChildCorrect.name, looping), { controllers: [singleChildCorrect], faults: [watchDisconnect], maxSteps: 50_000 })).run;
    expect(loop.timing.exhausted).toBeUndefined();
    expect(loop.trace.filter((e) => e.type === 'fault:inject').length).toBeLessThan(50);
  });

  it('a stream that ends again during the replay of its re-watch is re-watched again (the informer never keeps a dead stream)', async () => {
    // nth 3 is the first event the re-watch after nth 2 replays: the store sends that replay
    // synchronously, and the informer used to keep the dead stream until the settle phase relisted
    const run = await runCase(lawCase, singleChildCorrect, { events: [2, 3].map((nth) => ({ kind: 'watch-disconnect', nth, params: { how: 'error' } })), background: [] });
    const ends = run.trace.filter((e) => e.type === 'watch:event' && e['decision'] === 'error');
    expect(ends.map((e) => e['seq'])).toEqual([2, 3]);
    const second = ends[1]!;
    expect(second.t).toBeGreaterThanOrEqual(ends[0]!.t + 1000);
    const after = run.trace.find((e) => e.type === 'watch:event' && e['decision'] === 'deliver' && e['kind'] === second['kind'] && e.t > second.t);
    expect(after!.t).toBeGreaterThanOrEqual(second.t + 1000);
    expect(after!.t).toBeLessThan(second.t + 1010);
  });

  it('the arbitrary shrinks toward a cut and generates every way a stream ends', () => {
    const hows = new Set(fc.sample(watchDisconnect.arbitrary(lawCase.gen), { seed: 1, numRuns: 200 }).flat().map((e) => e.params?.['how']));
    expect(hows).toEqual(new Set(['cut', 'close', 'error', 'gone']));
  });
});
