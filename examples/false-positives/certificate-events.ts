import { defineController, type NewObject, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Certificate` names a DNS name; the controller keeps a `kubernetes.io/tls` Secret issued for
 * it and, the way client-go's EventRecorder does, records a core/v1 `Event` on the Certificate
 * whenever it issues or re-issues the Secret. Events are fire-and-forget: a failure to record one
 * is ignored, nobody owns them (they outlive their object until the API server's TTL), and a
 * crash between issuing and recording, or a retry after a lost response, records one twice or
 * not at all — which every real cluster shows and no controller can avoid.
 */
export const CERTIFICATE = 'Certificate';

interface CertificateSpec {
  dnsName: string;
}
interface CertificateStatus {
  ready?: boolean;
  dnsName?: string;
  observedGeneration?: number;
}

/** What the issuer signs: a function of the name only, so re-issuing is idempotent. */
function certificateFor(dnsName: string): string {
  return `-----BEGIN CERTIFICATE-----\n${dnsName}\n-----END CERTIFICATE-----`;
}

/** Secret data is base64 on the wire (the API server refuses anything else). */
function base64(text: string): string {
  return Buffer.from(text).toString('base64');
}

/** The TLS Secret issued for a Certificate. */
function tlsSecret(cert: StoredObject<CertificateSpec, CertificateStatus>, name: string): NewObject & { metadata: { name: string } } {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: cert.metadata.namespace, ownerReferences: [controllerRef(cert)], annotations: { 'cert.example.com/dns-name': cert.spec.dnsName } },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': base64(certificateFor(cert.spec.dnsName)), 'tls.key': base64(`key-for-${cert.spec.dnsName}`) },
  } as unknown as NewObject & { metadata: { name: string } };
}

/** Records an Event about `obj` (errors ignored, as an EventRecorder's are). */
async function recordEvent(ctx: ReconcileContext, obj: StoredObject<unknown, unknown>, reason: string, message: string): Promise<void> {
  try {
    await ctx.client.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${obj.metadata.name}.`, namespace: obj.metadata.namespace },
      involvedObject: { apiVersion: 'example.com/v1', kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid },
      reason,
      message,
      type: 'Normal',
      source: { component: 'certificate-controller' },
    });
  } catch {
    // an event that could not be recorded is dropped
  }
}

/**
 * The buggy twin: it records `Issued` before issuing and takes an `Issued` Event on the
 * Certificate as proof that the Secret was issued. An Event is only a record: when the Secret's
 * create fails after the Event was recorded (a 500, a crash in between), the next reconcile finds
 * the Event and never issues the Secret.
 */
async function reconcileTrustingEvents(ctx: ReconcileContext): Promise<void> {
  const cert = await ctx.client.tryGet<CertificateSpec, CertificateStatus>(CERTIFICATE, ctx.key, { live: true });
  if (!cert || cert.metadata.deletionTimestamp !== undefined) return;
  const ns = cert.metadata.namespace;
  const name = `${cert.metadata.name}-tls`;
  const events = await ctx.client.list('Event', { ...(ns !== undefined ? { namespace: ns } : {}), live: true });
  const issued = events.some((e) => {
    const ev = e as unknown as { involvedObject?: { uid?: string }; reason?: string; message?: string };
    return ev.involvedObject?.uid === cert.metadata.uid && ev.reason === 'Issued' && ev.message === `issued ${name} for ${cert.spec.dnsName}`;
  });
  if (!issued) {
    await recordEvent(ctx, cert, 'Issued', `issued ${name} for ${cert.spec.dnsName}`);
    await apply(ctx, tlsSecret(cert, name));
  }
  await writeStatus(ctx, cert, { ready: true, dnsName: cert.spec.dnsName, observedGeneration: cert.metadata.generation });
}

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const cert = await ctx.client.tryGet<CertificateSpec, CertificateStatus>(CERTIFICATE, ctx.key, { live: true });
  if (!cert || cert.metadata.deletionTimestamp !== undefined) return;
  const ns = cert.metadata.namespace;
  const name = `${cert.metadata.name}-tls`;
  const before = await ctx.client.tryGet(`Secret`, { namespace: ns, name }, { live: true });
  const crt64 = base64(certificateFor(cert.spec.dnsName));
  const had = before && (before as unknown as { data?: Record<string, string> }).data?.['tls.crt'];
  await apply(ctx, tlsSecret(cert, name));
  if (had !== crt64) await recordEvent(ctx, cert, had ? 'Reissued' : 'Issued', `issued ${name} for ${cert.spec.dnsName}`);
  await writeStatus(ctx, cert, { ready: true, dnsName: cert.spec.dnsName, observedGeneration: cert.metadata.generation });
}

export const certificateController = defineController({
  name: 'certificate',
  for: CERTIFICATE,
  owns: ['Secret'],
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

const certificateControllerTrustingEvents = defineController({ name: 'certificate', for: CERTIFICATE, owns: ['Secret'], resyncPeriodMs: RESYNC_MS, reconcile: reconcileTrustingEvents });

export const certificateEvents: FalsePositiveCase = {
  name: 'certificate-events',
  description: 'a Certificate keeps a TLS Secret issued for its DNS name and records a core/v1 Event (fire-and-forget, unowned) each time it issues one',
  controllers: [certificateController],
  options: {
    objects: { kind: CERTIFICATE, name: 'shop', spec: [{ dnsName: 'shop.example.com' }, { dnsName: 'www.shop.example.com' }] },
  },
  buggy: {
    controllers: [certificateControllerTrustingEvents],
    caughtBy: ['same-end-state'],
    why: 'it takes its own Issued Event as proof the Secret exists, so a failed create after the Event leaves the Certificate without its Secret for good (Events are left out of the comparison; the Secret is not)',
  },
};
