import { describe, expect, it } from 'vitest';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { podsCorrect, podsGeneratedNamesBuggy, replicaSet } from '../../examples/property-targets/pods.js';
import { widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

// the second watch delivery of the run is the new Pod's ADDED event: the cache misses the Pod until the settle relist
const dropPodAdded = { events: [{ kind: 'watch-event-loss', nth: 1 }], background: [] };
const scenario = widgetScenario(['replicaset'], [{ at: 0, type: 'create', object: replicaSet('web', 1) }], { faults: dropPodAdded });

propertyLaws({
  property: noExtraDestructiveActions(),
  buggy: { controllers: [podsGeneratedNamesBuggy], scenario },
  correct: {
    controllers: [podsCorrect],
    scenarios: [
      { name: 'a dropped Pod watch event', scenario },
      { name: 'a dropped Pod watch event (test fault)', scenario: { ...scenario, faults: { events: [{ kind: 'test-watch-drop', nth: 0, target: 'Pod' }], background: [] } } },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: [/the ADDED watch event of Pod default\/web-\w{5} to replicaset at t=0\.\d+ s was lost on its way to the informer \(watch-event-loss\)/, 'made 2 creates and 1 delete of Pod default/web-*', 'against 1 create and 0 deletes in the fault-free run', 'a destructive action was taken on a wrong view of the world', /the extra delete came from the reconcile of default\/web/],
});

describe('noExtraDestructiveActions', () => {
  it('allows slack', async () => {
    const { verdict } = await judgeScenario(noExtraDestructiveActions({ slack: 1 }), scenario, { controllers: [podsGeneratedNamesBuggy] });
    expect(verdict.ok).toBe(true);
  });
  it('gives per-object counts as evidence', async () => {
    const v = expectFailure((await judgeScenario(noExtraDestructiveActions(), scenario, { controllers: [podsGeneratedNamesBuggy] })).verdict);
    expect(v.evidence).toMatchObject({ object: 'Pod default/web-*', creates: 2, deletes: 1, twinCreates: 1, twinDeletes: 0 });
  });
});
