import { sameEndState } from '../../../properties/same-end-state.js';
import { specStatusOwnership } from '../../../properties/spec-status-ownership.js';
import { endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { buggyDatabase } from './buggy.js';
import { database } from './correct.js';
import { DB_KIND } from './database.js';

export const specWriter: BugZooEntry = {
  name: 'spec-writer',
  family: 'anti-pattern',
  description: 'a Database controller fills in the default engine version by writing its own spec instead of status',
  caughtBy: 'spec-status-ownership',
  property: () => specStatusOwnership(),
  buggy: [buggyDatabase],
  correct: [database],
  options: {
    objects: { kind: DB_KIND, name: 'orders', spec: [{ engine: 'postgres', storageGB: 10 }, { engine: 'postgres', version: '15.8', storageGB: 20 }] },
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks() })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'database' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: DB_KIND, metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', storageGB: 10 } } }],
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 20_000 },
  },
};
