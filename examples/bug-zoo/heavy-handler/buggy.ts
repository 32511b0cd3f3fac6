import { defineController, type StoredObject, type WatchMapContext } from '../../../src/index.js';
import { RESYNC_MS } from '../shared/resync.js';
import { CERT_LOOKUP_MS, INGRESS_KIND, ingressesFor, reconcileIngress, ROUTE_KIND, SECRET_KIND } from './ingress.js';

/** Asks the CA about the certificate (chain, revocation): slow, and only wanted when it is used. */
async function lookUpCertificate(secret: StoredObject, ctx: WatchMapContext): Promise<boolean> {
  await ctx.clock.sleep(CERT_LOOKUP_MS);
  return typeof secret.spec['tls.crt'] === 'string';
}

/**
 * BUG (heavy work in an event handler): the Secret watch's map looks the certificate up at the
 * CA before deciding which Ingress to enqueue. Handlers run one after another, so for 3 s per
 * Secret event every later event of this controller (a route change, its own RouteConfig) waits
 * behind the lookup before it is even enqueued.
 */
export const buggyIngress = defineController({
  name: 'ingress',
  for: INGRESS_KIND,
  owns: [ROUTE_KIND],
  watches: [{ kind: SECRET_KIND, map: async (secret, ctx) => ((await lookUpCertificate(secret, ctx)) ? ingressesFor(secret) : []) }],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileIngress,
});
