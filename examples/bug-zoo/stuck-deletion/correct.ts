import { defineController } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../shared/finalizers.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { DNS_FINALIZER, DNS_KIND, dnsApi, publish, recordsToDelete, type DnsRecordSpec, type DnsRecordStatus } from './dns-record.js';

/**
 * Fixed: cleanup is idempotent. A record that is already gone (404) counts as deleted, so a
 * retry after an interruption removes the finalizer instead of failing forever. Like the buggy
 * version it deletes every record listed as this object's, not only the one status remembers.
 */
export const dnsRecord = defineController({
  name: 'dns-record',
  for: DNS_KIND,
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const rec = await latest<DnsRecordSpec, DnsRecordStatus>(ctx, DNS_KIND);
    if (!rec) return;
    if (rec.metadata.deletionTimestamp !== undefined) {
      if (!rec.metadata.finalizers.includes(DNS_FINALIZER)) return;
      // already gone (404) is what we wanted
      for (const id of await recordsToDelete(ctx, rec)) await dnsApi(ctx).removeIfPresent('records', id);
      await removeFinalizer(ctx, rec, DNS_FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, rec, DNS_FINALIZER)) return;
    return publish(ctx, rec);
  },
});
