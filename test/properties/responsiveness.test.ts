import { describe, expect, it } from 'vitest';
import { responsiveness } from '../../properties/responsiveness.js';
import { pollingCorrect, sleepyBuggy } from '../../examples/property-targets/widget-controllers.js';
import { widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['widget'], [
  { at: 0, type: 'create', object: widget('big', 8) },
  { at: 1000, type: 'create', object: widget('small', 2) },
], { options: { faultWindowMs: 5_000, settleMs: 30_000 } });

propertyLaws({
  property: responsiveness(),
  buggy: { controllers: [sleepyBuggy], scenario },
  correct: {
    controllers: [pollingCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: [/the ADDED change of Widget default\/small was enqueued for widget\/0 at t=1\.00\d s/, /but its reconcile started only at t=20\.\d+ s/, /the reconcile of default\/big by widget\/0 at t=0\.\d+ s \(done, took 20\.0 s\) held a worker for 20\.0 s/, 'do not sleep or block inside reconcile'],
});

describe('responsiveness', () => {
  it('gives the holder in the evidence', async () => {
    const v = expectFailure((await judgeScenario(responsiveness(), scenario, { controllers: [sleepyBuggy] })).verdict);
    expect(v.evidence).toMatchObject({ key: 'default/small', latencyMs: 19_000, heldBy: { key: 'default/big', ms: 20_000 } });
  });
  it('accepts a looser bound', async () => {
    const { verdict } = await judgeScenario(responsiveness({ maxLatencyMs: 60_000 }), scenario, { controllers: [sleepyBuggy] });
    expect(verdict.ok).toBe(true);
  });
});
