import { virtualTimestamp, type ReconcileContext, type StoredObject } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../shared/finalizers.js';
import { jsonApi, type JsonApi, type Remote } from '../shared/json-api.js';
import { ensureOwned } from '../shared/owned.js';
import { sameJson } from '../shared/same-json.js';

/**
 * A `Certificate` is issued through a DNS-01 challenge: publish a TXT record at the DNS
 * provider, wait until it has propagated, then write the certificate into a Secret and remove
 * the challenge. Shared by the buggy and the correct controller; they differ only in how they
 * wait for propagation.
 */
export const CERT_KIND = 'Certificate';
export const ACME_DNS_API = 'https://acme-dns.example/v1';
export const CERT_FINALIZER = 'certs.example/challenge-cleanup';
/** How long a challenge record needs to propagate before the CA can see it. */
export const PROPAGATION_MS = 10_000;

export interface CertificateSpec {
  dnsName: string;
}
export interface CertificateStatus {
  phase?: 'Ready';
  secretName?: string;
  observedGeneration?: number;
}
export type Certificate = StoredObject<CertificateSpec, CertificateStatus>;

export interface Challenge {
  /** uid of the Certificate. */
  owner: string;
  fqdn: string;
  value: string;
  /** When the record was published (RFC 3339). */
  publishedAt: string;
}

export function acmeDns(ctx: ReconcileContext): JsonApi {
  return jsonApi(ctx.fetch, ACME_DNS_API);
}

export function secretNameOf(cert: Certificate): string {
  return `${cert.metadata.name}-tls`;
}

function secretSpec(cert: Certificate): { data: { 'tls.crt': string } } {
  return { data: { 'tls.crt': `CERTIFICATE(${cert.spec.dnsName})` } };
}

/**
 * Deletion, finalizer bookkeeping and the issued state; true when the reconcile has nothing more
 * to do. A certificate counts as issued while its status says so for this generation and its
 * Secret holds it (a deleted or edited Secret means issuing again). An issued certificate still
 * costs one look at the DNS provider: a second process (a replica running without leader
 * election) that read the certificate just before it was issued publishes a fresh challenge
 * afterwards, and nothing else would ever remove it.
 */
export async function handleLifecycle(ctx: ReconcileContext, cert: Certificate): Promise<boolean> {
  if (cert.metadata.deletionTimestamp !== undefined) {
    if (cert.metadata.finalizers.includes(CERT_FINALIZER)) {
      await acmeDns(ctx).removeOwned('challenges', cert.metadata.uid);
      await removeFinalizer(ctx, cert, CERT_FINALIZER);
    }
    return true;
  }
  if (await addFinalizer(ctx, cert, CERT_FINALIZER)) return true;
  if (cert.status.phase !== 'Ready' || cert.status.observedGeneration !== cert.metadata.generation) return false;
  // read live: a cache that has not seen the Secret yet would start a needless second issuance
  const secret = await ctx.client.tryGet('Secret', { namespace: cert.metadata.namespace, name: secretNameOf(cert) }, { live: true });
  if (secret === undefined || !sameJson(secret.spec, secretSpec(cert))) return false;
  await acmeDns(ctx).removeOwned('challenges', cert.metadata.uid);
  return true;
}

/**
 * The challenge record for this generation of the certificate, published when missing (looked
 * up by owner first). A challenge of an earlier generation belongs to an earlier order, even when
 * the spec has since gone back to its name: whether it survives would depend on whether this
 * controller happened to see the spec in between.
 */
export async function publishChallenge(ctx: ReconcileContext, cert: Certificate): Promise<Remote<Challenge>> {
  const dns = acmeDns(ctx);
  const fqdn = `_acme-challenge.${cert.spec.dnsName}`;
  const value = `token-${cert.metadata.uid}-${cert.metadata.generation}`;
  const existing = (await dns.list<Challenge>('challenges', { owner: cert.metadata.uid }))[0];
  if (existing && existing.fqdn === fqdn && existing.value === value) return existing;
  if (existing) await dns.removeOwned('challenges', cert.metadata.uid); // the spec changed (or the record was edited): start over
  return dns.create<Challenge>('challenges', { owner: cert.metadata.uid, fqdn, value, publishedAt: virtualTimestamp(ctx.clock.now()) });
}

/** Time since the challenge was published (virtual ms). */
export function sincePublished(ctx: ReconcileContext, challenge: Challenge): number {
  return Date.parse(virtualTimestamp(ctx.clock.now())) - Date.parse(challenge.publishedAt);
}

/**
 * After propagation: the certificate goes into a Secret, the challenge is removed, and status
 * says Ready. (Interrupted between the last two, the next pass publishes a fresh challenge and
 * waits again: slower, never wrong.)
 */
export async function issue(ctx: ReconcileContext, cert: Certificate): Promise<void> {
  await ensureOwned(ctx, cert, 'Secret', secretNameOf(cert), secretSpec(cert));
  await acmeDns(ctx).removeOwned('challenges', cert.metadata.uid);
  const status: CertificateStatus = { phase: 'Ready', secretName: secretNameOf(cert), observedGeneration: cert.metadata.generation };
  if (!sameJson(cert.status, status)) await ctx.client.updateStatus({ ...cert, status });
}
