import { defineController } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../shared/finalizers.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { DNS_FINALIZER, DNS_KIND, dnsApi, publish, recordsToDelete, type DnsRecordSpec, type DnsRecordStatus } from './dns-record.js';

/**
 * BUG (stuck deletion): cleanup is not idempotent. It deletes the provider records (the one
 * status remembers and any other listed as this object's) and then removes the finalizer; when
 * anything interrupts it in between (a crash, a conflict on the finalizer update, a lost
 * response), the retry deletes the remembered record again, the provider answers 404, the
 * reconcile fails, and the finalizer stays forever: the object is Terminating for good.
 */
export const buggyDnsRecord = defineController({
  name: 'dns-record',
  for: DNS_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const rec = await latest<DnsRecordSpec, DnsRecordStatus>(ctx, DNS_KIND);
    if (!rec) return;
    if (rec.metadata.deletionTimestamp !== undefined) {
      if (!rec.metadata.finalizers.includes(DNS_FINALIZER)) return;
      // a 404 throws: once the remembered record is gone, cleanup can never succeed again
      for (const id of await recordsToDelete(ctx, rec)) await dnsApi(ctx).remove('records', id);
      await removeFinalizer(ctx, rec, DNS_FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, rec, DNS_FINALIZER)) return;
    return publish(ctx, rec);
  },
});
