import { defineController } from '../../../src/index.js';
import { CLUSTER, MEMBER, ordinalOf } from './cluster.js';
import { reconcileMembers } from './reconcile-members.js';

/** Correct: sorts by ordinal before choosing, so the highest ordinals always go first. */
export const clusterCorrect = defineController({
  name: 'cluster-correct',
  for: CLUSTER,
  owns: [MEMBER],
  reconcile: reconcileMembers((members, keep) => [...members].sort((a, b) => ordinalOf(a.metadata.name) - ordinalOf(b.metadata.name)).slice(keep)),
});
