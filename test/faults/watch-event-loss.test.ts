import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { watchEventLoss } from '../../faults/watch-event-loss.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: watchEventLoss,
  label: 'cached bookkeeping vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // watch delivery 2 is the App's own status write (status.child): without it the next pass
  // (triggered by the Pod's ADDED) still sees no child and creates a second Pod
  breaking: { events: [{ kind: 'watch-event-loss', nth: 2 }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'watch-event-loss', nth: 0 },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('watch-event-loss', () => {
  it('leaves the cache behind until the relist: the dropped version is delivered by nobody, the relist brings the latest', async () => {
    const run = await runCase(lawCase, singleChildCorrect, lawCase.breaking);
    const dropped = run.trace.find((e) => e.type === 'watch:event' && e['decision'] === 'drop');
    expect(dropped).toMatchObject({ kind: 'App', key: 'default/web', event: 'MODIFIED' });
    const delivered = run.trace.filter((e) => e.type === 'watch:event' && e['decision'] === 'deliver' && e['rv'] === dropped!['rv']);
    expect(delivered).toEqual([]);
    expect(run.trace.some((e) => e.type === 'informer:relist')).toBe(true);
  });
});
