import { describe, expect, it } from 'vitest';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { hotLoopBuggy, hotLoopCorrect } from '../../examples/property-targets/hot-loop.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['widget'], createAll([widget('a', 2)]));
const lossy = { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 0 }, { kind: 'event-loss', nth: 2 }], background: [] } };

propertyLaws({
  property: noHotLoop(),
  buggy: { controllers: [hotLoopBuggy], scenario },
  correct: {
    controllers: [hotLoopCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: lossy },
    ],
  },
  explains: ['Widget default/a', 'status.lastSyncedAt', 'the loop feeds itself', 'MODIFIED event of Widget default/a → reconcile of default/a', /updateStatus Widget default\/a at t=\d+\.\d+ s/],
});

describe('noHotLoop', () => {
  it('names the window, the rate and the fields in the evidence', async () => {
    const { verdict } = await judgeScenario(noHotLoop(), scenario, { controllers: [hotLoopBuggy] });
    const v = expectFailure(verdict);
    expect(v.summary).toMatch(/^hot loop: \d+ controller writes in/);
    expect(v.evidence['fields']).toHaveProperty(['status.lastSyncedAt']);
    expect(v.explanation).toContain('between t=17.0 s and t=25.0 s');
  });
  it('allows a configured number of writes', async () => {
    const { verdict } = await judgeScenario(noHotLoop({ maxWrites: 100_000 }), scenario, { controllers: [hotLoopBuggy] });
    expect(verdict.ok).toBe(true);
  });
  it('rejects nonsense options with a message naming the property', () => {
    expect(() => noHotLoop({ maxWrites: -1 })).toThrow(/steadystate\.properties\.noHotLoop: maxWrites must be ≥ 0/);
  });
});
