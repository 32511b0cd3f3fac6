import { defineController } from '../../../src/index.js';
import { CLUSTER, MEMBER, ordinalOf } from './cluster.js';
import { reconcileMembers } from './reconcile-members.js';
import { RESYNC_MS } from '../resync.js';

/**
 * Correct: sorts by ordinal before choosing, so the highest ordinals always go first. It
 * decides creates and deletes on live reads (a cached Cluster that still says 3 members after a
 * scale-down would recreate the member just removed), and resyncs, so a lost notification or a
 * stale read is repaired.
 */
export const clusterCorrect = defineController({
  name: 'cluster-correct',
  for: CLUSTER,
  owns: [MEMBER],
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileMembers((members, keep) => [...members].sort((a, b) => ordinalOf(a.metadata.name) - ordinalOf(b.metadata.name)).slice(keep), { live: true }),
});
