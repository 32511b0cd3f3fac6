import { defineController } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../shared/finalizers.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { DNS_FINALIZER, DNS_KIND, dnsApi, publish, recordToDelete, type DnsRecordSpec, type DnsRecordStatus } from './dns-record.js';

/**
 * BUG (stuck deletion): cleanup is not idempotent. It deletes the provider record and then
 * removes the finalizer; when anything interrupts it in between (a crash, a conflict on the
 * finalizer update, a lost response), the retry deletes the record again, the provider answers
 * 404, the reconcile fails, and the finalizer stays forever: the object is Terminating for good.
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
      const id = await recordToDelete(ctx, rec);
      if (id !== undefined) await dnsApi(ctx).remove('records', id); // a 404 throws: cleanup can never succeed again
      await removeFinalizer(ctx, rec, DNS_FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, rec, DNS_FINALIZER)) return;
    return publish(ctx, rec);
  },
});
