import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { CERT_KIND, handleLifecycle, issue, PROPAGATION_MS, publishChallenge, sincePublished, type CertificateSpec, type CertificateStatus } from './certificate.js';

/**
 * BUG (blocking call in reconcile): waits for the challenge to propagate by sleeping inside the
 * reconcile. The worker is held for 10 s, so every other certificate (and every other change)
 * waits in the queue behind it: one slow issuance starves the whole controller.
 */
export const buggyCertificate = defineController({
  name: 'certificate',
  for: CERT_KIND,
  owns: ['Secret'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const cert = await latest<CertificateSpec, CertificateStatus>(ctx, CERT_KIND);
    if (!cert || (await handleLifecycle(ctx, cert))) return;
    const challenge = await publishChallenge(ctx, cert);
    const waited = sincePublished(ctx, challenge);
    if (waited < PROPAGATION_MS) await ctx.clock.sleep(PROPAGATION_MS - waited);
    await issue(ctx, cert);
  },
});
