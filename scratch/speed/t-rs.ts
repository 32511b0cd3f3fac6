// CLI target: the zoo's correct ReplicaSet controller (stale-snapshot entry), its check options.
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';
export { replicaSet } from '../../examples/bug-zoo/stale-snapshot/correct.js';
export const checkOptions = staleSnapshot.options;
