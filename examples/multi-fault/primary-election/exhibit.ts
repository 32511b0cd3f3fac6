import { sameEndState } from '../../../properties/same-end-state.js';
import type { MultiFaultExhibit } from '../exhibit.js';
import { primaryElectionBuggy } from './buggy.js';
import { primaryElectionCorrect } from './correct.js';
import { DATABASE } from './database.js';

export const primaryElection: MultiFaultExhibit = {
  name: 'primary-election',
  description: 'a Database controller fails over when a stale instance list shows no primary, and promotes the first instance of a list that came back in another order: two primaries, the healthy one demoted',
  needs: ['stale-snapshot: the instance watch lags one event behind, so the cached list predates the primary\'s label', 'list-order: that same list in another order'],
  caughtBy: 'same-end-state',
  property: () => sameEndState(),
  buggy: [primaryElectionBuggy],
  correct: [primaryElectionCorrect],
  options: {
    objects: { kind: DATABASE, name: 'orders', spec: [{ replicas: 3, version: '15' }, { replicas: 3, version: '16' }] },
  },
  properties: [],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'database' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: DATABASE, metadata: { name: 'orders', namespace: 'default' }, spec: { replicas: 3, version: '15' } } }],
    faults: {
      events: [
        { kind: 'stale-snapshot', nth: 1, params: { versionsBehind: 1, forMs: 1000 } },
        { kind: 'list-order', nth: 2, params: { order: 1 } },
      ],
      background: [],
    },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
