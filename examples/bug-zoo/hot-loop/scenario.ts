import { noHotLoop } from '../../../properties/no-hot-loop.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { buggyWebsite } from './buggy.js';
import { website } from './correct.js';
import { WEBSITE_KIND } from './website.js';

/**
 * Writes reach the watch 20 ms after they happen (a realistic API server round trip), so an
 * unconditional status write feeds itself at about 50 writes per second instead of collapsing
 * into one virtual instant.
 */
const scenarioOptions = { watchLatencyMs: 20 };

export const hotLoop: BugZooEntry = {
  name: 'hot-loop',
  family: 'classic bug',
  description: 'a status-reporting Website controller stamps lastSyncTime on every reconcile; each write triggers the next',
  caughtBy: 'no-hot-loop',
  property: () => noHotLoop(),
  buggy: [buggyWebsite],
  correct: [website],
  options: {
    objects: { kind: WEBSITE_KIND, name: 'shop', spec: [{ domain: 'shop.example.com' }, { domain: 'shop.example.com', path: '/v2' }] },
    scenarioOptions,
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks() })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'website' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: WEBSITE_KIND, metadata: { name: 'shop', namespace: 'default' }, spec: { domain: 'shop.example.com' } } }],
    faults: { events: [], background: [] },
    options: { ...scenarioOptions, faultWindowMs: 5_000, settleMs: 10_000 },
  },
};
