import { defineController } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { RESYNC_MS } from '../shared/resync.js';
import { CERT_KIND, handleLifecycle, issue, PROPAGATION_MS, publishChallenge, sincePublished, type CertificateSpec, type CertificateStatus } from './certificate.js';

/**
 * Fixed: never waits inside reconcile. While the challenge propagates it returns
 * `requeueAfter` for the time left and frees the worker for other keys; the next pass reads the
 * publication time back from the provider and issues.
 */
export const certificate = defineController({
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
    if (waited < PROPAGATION_MS) return { requeueAfter: PROPAGATION_MS - waited };
    await issue(ctx, cert);
    return undefined;
  },
});
