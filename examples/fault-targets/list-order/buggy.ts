import { defineController } from '../../../src/index.js';
import { CLUSTER, MEMBER } from './cluster.js';
import { reconcileMembers } from './reconcile-members.js';

/**
 * Buggy: keeps the first `n` members of the list and deletes the rest, trusting the list to
 * come back in creation order. It usually does; when it does not, the seed member goes.
 */
export const clusterBuggy = defineController({
  name: 'cluster-buggy',
  for: CLUSTER,
  owns: [MEMBER],
  reconcile: reconcileMembers((members, keep) => members.slice(keep)),
});
