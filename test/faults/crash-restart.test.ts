import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { crashRestart } from '../../faults/crash-restart.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: crashRestart,
  label: 'create-then-record with generated names vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // dies right after creating web's Pod, before recording it: the restart creates another
  breaking: { events: [{ kind: 'crash-restart', nth: 0, params: { point: 'after-write' } }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 6 },
  minimalEvent: { kind: 'crash-restart', nth: 0, params: { point: 'after-write' } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('crash-restart', () => {
  it('the restarted replica starts with fresh informers after restartDelayMs', async () => {
    const run = await runCase(lawCase, singleChildCorrect, lawCase.breaking);
    const crash = run.trace.find((e) => e.type === 'controller:crash')!;
    const restart = run.trace.filter((e) => e.type === 'controller:start')[1]!;
    expect(restart.t - crash.t).toBe(1000);
    expect(run.trace.some((e) => e.type === 'informer:list' && e.t === restart.t)).toBe(true);
  });

  it('a timed crash kills the controller wherever it is', async () => {
    const run = await runCase(lawCase, singleChildCorrect, { events: [{ kind: 'crash-restart', at: 150 }], background: [] });
    expect(run.trace.filter((e) => e.type === 'controller:crash').map((e) => e.t)).toEqual([150]);
    expect(judgeSingleChild(run)).toBe(true);
  });

  it('the systematic sweep "crash after the k-th write" finds exactly the first write of each pair', async () => {
    const broken: number[] = [];
    for (let k = 0; k < 4; k++) {
      const run = await runCase(lawCase, singleChildBuggy, { events: [{ kind: 'crash-restart', nth: k, params: { point: 'after-write' } }], background: [] });
      if (judgeSingleChild(run) !== true) broken.push(k);
    }
    expect(broken).toEqual([0, 2]);
  });
});
