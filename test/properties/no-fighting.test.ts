import { describe, expect, it } from 'vitest';
import { noFighting } from '../../properties/no-fighting.js';
import { fighterA, fighterB, splitA, splitB } from '../../examples/property-targets/widget-controllers.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['fighter-a', 'fighter-b'], createAll([widget('shared', 1)]), { options: { faultWindowMs: 5_000, settleMs: 10_000, watchLatencyMs: 100 } });

propertyLaws({
  property: noFighting(),
  buggy: { controllers: [fighterA, fighterB], scenario },
  correct: {
    controllers: [splitA, splitB],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.2 }] } } },
    ],
  },
  explains: ['field status.phase of Widget default/shared changed hands', 'controller fighter-a/0', 'controller fighter-b/0', 'two writers both believe they own this field'],
});

describe('noFighting', () => {
  it('names both actors in the summary and evidence', async () => {
    const v = expectFailure((await judgeScenario(noFighting(), scenario, { controllers: [fighterA, fighterB] })).verdict);
    expect(v.summary).toMatch(/^fighting over status\.phase of Widget default\/shared: \d+ flips between controller:fighter-(a|b)\/0 and controller:fighter-(a|b)\/0$/);
    expect(v.evidence['actors']).toHaveLength(2);
  });
});
