import { noExtraDestructiveActions } from '../../../properties/no-extra-destructive-actions.js';
import type { MultiFaultExhibit } from '../exhibit.js';
import { orphanSweepBuggy } from './buggy.js';
import { orphanSweepCorrect } from './correct.js';
import { TENANT } from './tenant.js';

export const orphanSweep: MultiFaultExhibit = {
  name: 'orphan-sweep',
  description: "a Tenant controller sweeps orphaned quotas when it starts, trusting its cache; after a crash, the restarted controller lists Tenants from a lagging API server replica, misses the newest and deletes that tenant's quota",
  needs: ['crash-restart of the controller', 'stale-snapshot: the restarted informer lists Tenants from an API server replica that lags behind the newest one'],
  caughtBy: 'no-extra-destructive-actions',
  property: () => noExtraDestructiveActions(),
  buggy: [orphanSweepBuggy],
  correct: [orphanSweepCorrect],
  options: {
    objects: { kind: TENANT, name: 'acme', spec: [{ cpu: 4, memoryGi: 16 }, { cpu: 8, memoryGi: 32 }] },
    maxObjects: 3,
  },
  properties: [],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'tenant' }],
    initialObjects: [],
    workload: [
      { at: 0, type: 'create', object: { kind: TENANT, metadata: { name: 'acme-0', namespace: 'default' }, spec: { cpu: 4, memoryGi: 16 } } },
      { at: 2000, type: 'create', object: { kind: TENANT, metadata: { name: 'acme-1', namespace: 'default' }, spec: { cpu: 8, memoryGi: 32 } } },
    ],
    faults: {
      events: [
        { kind: 'crash-restart', at: 3000 },
        { kind: 'stale-snapshot', nth: 0, params: { versionsBack: 5, list: true, catchUpMs: 2000 } },
      ],
      background: [],
    },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
