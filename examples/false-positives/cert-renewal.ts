import { defineController, fakeRestService, fromVirtualTimestamp, virtualTimestamp, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { createFresh } from './_shared/create-fresh.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `ManagedCert` keeps a certificate for its domain at a CA's API and renews it before it
 * expires (ACM / cert-manager's renewBefore): a certificate is valid 20 s (virtual), renewed 5 s
 * before; the new one is issued first and the old one revoked after, so a valid certificate exists
 * throughout. A domain change issues one for the new domain and revokes the rest. Renewals go by
 * the clock, so how many a run makes depends on when the controller got to each.
 */
export const MANAGED_CERT = 'ManagedCert';
export const CA_API = 'https://ca.example/v1';
const FINALIZER = 'ca.example/revoke';
const VALIDITY_MS = 20_000;
const RENEW_BEFORE_MS = 5_000;

interface CertSpec {
  domain: string;
}
interface CertStatus {
  certId?: string;
  notAfter?: string;
}
interface Certificate {
  owner: string;
  domain: string;
  notAfter: string;
}

function define(mistake: 'none' | 'remembered-expiry') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    // BUG (remembered-expiry): the cached object, whose status may not show the last renewal yet
    const c = await ctx.client.tryGet<CertSpec, CertStatus>(MANAGED_CERT, ctx.key, { live: mistake === 'none' });
    if (!c) return;
    const ca = jsonApi(ctx.fetch, CA_API);
    const owner = c.metadata.uid;
    if (c.metadata.deletionTimestamp !== undefined) {
      await ca.removeOwned('certificates', owner);
      await removeFinalizer(ctx, c, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, c, FINALIZER)) return;
    const now = ctx.clock.now();
    const certs = await ca.list<Certificate>('certificates', { owner });
    // the newest one for this domain is current
    let current: Remote<Certificate> | undefined;
    for (const x of certs) if (x.domain === c.spec.domain && (!current || fromVirtualTimestamp(x.notAfter) > fromVirtualTimestamp(current.notAfter))) current = x;
    // BUG: renewal due by the expiry status remembers, and done by replacing (revoke, then issue)
    const due = mistake === 'none' ? !current || now >= fromVirtualTimestamp(current.notAfter) - RENEW_BEFORE_MS : c.status.notAfter === undefined || now >= fromVirtualTimestamp(c.status.notAfter) - RENEW_BEFORE_MS;
    if (due || !current) {
      if (mistake === 'remembered-expiry') for (const x of certs) await ca.removeIfPresent('certificates', x.id);
      // the key names the certificate it renews: a lost answer replays this issue, the next renewal is a new one;
      // a replay naming a certificate edited since (no longer this owner's, for this domain) moves on to a fresh key
      let key = `${owner}/${c.spec.domain}/after-${current?.id ?? 'none'}`;
      for (let i = 0; ; i++) {
        const made: Remote<Certificate> = await createFresh<Certificate>(ca, 'certificates', { owner, domain: c.spec.domain, notAfter: virtualTimestamp(now + VALIDITY_MS) }, key);
        // as the CA holds it now, not as the replayed answer says
        const held = await ca.get<Certificate>('certificates', made.id);
        if ((held !== undefined && held.owner === owner && held.domain === c.spec.domain) || i >= 10) {
          current = held ?? made;
          break;
        }
        key = `${key}/after-${made.id}`;
      }
    }
    // revoked once their successor exists
    for (const x of certs) if (x.id !== current.id) await ca.removeIfPresent('certificates', x.id);
    await writeStatus(ctx, c, { certId: current.id, notAfter: current.notAfter });
    return { requeueAfter: Math.max(1, fromVirtualTimestamp(current.notAfter) - RENEW_BEFORE_MS - now) };
  };
}

const controller = (mistake: 'none' | 'remembered-expiry') => defineController({ name: 'cert-renewal', for: MANAGED_CERT, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define(mistake) });

export const certRenewalController = controller('none');

export const certRenewal: FalsePositiveCase = {
  name: 'cert-renewal',
  description: 'a ManagedCert keeps a certificate at a CA API and renews it 5 s before it expires (valid 20 s), issuing the new one before revoking the old',
  controllers: [certRenewalController],
  options: {
    objects: { kind: MANAGED_CERT, name: 'site', spec: [{ domain: 'shop.example.com' }, { domain: 'www.example.com' }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: CA_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  // the certificate's id is the CA's to assign
  properties: endStateProperties('status.certId'),
  buggy: {
    controllers: [controller('remembered-expiry')],
    caughtBy: ['no-extra-destructive-actions'],
    why: 'it decides a renewal is due from the expiry its cached status remembers, and renews by revoking first: a cache that has not seen the last renewal\'s status write renews again at once, destroying the certificate just issued and issuing one alike',
  },
};
