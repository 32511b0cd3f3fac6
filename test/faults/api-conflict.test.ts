import { describe, expect, it } from 'vitest';
import { WIDGET, judgeWidget, widgetScenario } from '../../examples/fault-targets/api-conflict/widget.js';
import { widgetBuggy } from '../../examples/fault-targets/api-conflict/buggy.js';
import { widgetCorrect } from '../../examples/fault-targets/api-conflict/correct.js';
import { apiConflict } from '../../faults/api-conflict.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: apiConflict,
  label: 'swallowing 409 vs requeueing',
  scenario: widgetScenario,
  buggy: widgetBuggy,
  correct: widgetCorrect,
  judge: judgeWidget,
  // write 1 is the status update after the resize: it conflicts, and the buggy one gives up
  breaking: { events: [{ kind: 'api-conflict', nth: 1 }], background: [] },
  gen: { controllers: ['x'], kinds: [WIDGET], keys: ['default/w'], faultWindowMs: 10_000, maxNth: 3 },
  minimalEvent: { kind: 'api-conflict', nth: 0 },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('api-conflict', () => {
  it('the 409 is genuine: another actor wrote the object first, and the store refused the stale write', async () => {
    const run = await runCase(lawCase, widgetCorrect, lawCase.breaking);
    const i = run.writes.findIndex((w) => w.actor === 'fault:api-conflict');
    expect(run.writes[i]).toMatchObject({ verb: 'patch', kind: WIDGET, changed: ['metadata.annotations.steadystate.dev/concurrent-writes'] });
    expect(run.writes[i + 1]).toMatchObject({ actor: 'controller:widget-correct/0', verb: 'updateStatus', error: 'Conflict' });
  });

  it('at rate 1 every controller write conflicts during the window; the correct controller converges once it closes', async () => {
    const run = await runCase(lawCase, widgetCorrect, { events: [], background: [{ kind: 'api-conflict', rate: 1 }] });
    const mine = run.writes.filter((w) => w.actor.startsWith('controller:'));
    expect(mine.filter((w) => w.t < run.timing.settleStart).every((w) => w.error === 'Conflict')).toBe(true);
    expect(judgeWidget(run)).toBe(true);
  });
});
