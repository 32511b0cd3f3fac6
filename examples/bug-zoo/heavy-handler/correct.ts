import { defineController } from '../../../src/index.js';
import { RESYNC_MS } from '../shared/resync.js';
import { INGRESS_KIND, ingressesFor, reconcileIngress, ROUTE_KIND, SECRET_KIND } from './ingress.js';

/**
 * Fixed: the map only reads the Secret's annotation (no I/O, no waiting), and the certificate is
 * checked in reconcile, for the Ingress that uses it, from the Secret already in the cache.
 */
export const ingress = defineController({
  name: 'ingress',
  for: INGRESS_KIND,
  owns: [ROUTE_KIND],
  watches: [{ kind: SECRET_KIND, map: ingressesFor }],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileIngress,
});
