import { defineController, isStoreError, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * cert-manager style, three controllers through one object's status: a `Certificate` asks for a
 * `CertificateRequest` (named by its DNS name, so a changed name is a new request), an approver
 * approves or denies each request by policy, a signer signs approved ones, and the certificates
 * controller copies a signed certificate into the Certificate's TLS Secret. The approver and the
 * signer write the same status (conditions, certificate) with optimistic updates, each keeping
 * what the other wrote. A denied name removes the Secret: unlike cert-manager, which keeps the
 * last certificate issued, so that the end never depends on whether the name before was issued
 * before the change (a Secret kept from a superseded spec is path-dependent state, which
 * same-end-state reports).
 */
export const CERTIFICATE = 'Certificate';
export const CERT_REQUEST = 'CertificateRequest';
const ALLOWED_SUFFIX = '.example.com';

interface CertSpec {
  dnsName: string;
}
interface CertStatus {
  conditions?: Condition[];
  request?: string;
  observedGeneration?: number;
}
interface RequestSpec {
  dnsName: string;
}
interface RequestStatus {
  conditions?: Condition[];
  certificate?: string;
}
type Request = StoredObject<RequestSpec, RequestStatus>;

const condition = (r: { status: { conditions?: Condition[] } }, type: string) => r.status.conditions?.find((c) => c.type === type && c.status === 'True') !== undefined;
const sign = (dnsName: string) => `-----BEGIN CERTIFICATE----- CN=${dnsName} -----END CERTIFICATE-----`;

async function reconcileCertificate(ctx: ReconcileContext): Promise<void> {
  const cert = await ctx.client.tryGet<CertSpec, CertStatus>(CERTIFICATE, ctx.key);
  if (!cert || cert.metadata.deletionTimestamp !== undefined) return;
  const ns = cert.metadata.namespace;
  const want = `${cert.metadata.name}-${shortHash(cert.spec.dnsName)}`;
  const requests = (await ctx.client.list<RequestSpec, RequestStatus>(CERT_REQUEST, { namespace: ns })).filter((r) => controlledBy(r, cert));
  // requests for a name it no longer wants
  for (const r of requests) {
    if (r.metadata.name === want || r.metadata.deletionTimestamp !== undefined) continue;
    try {
      await ctx.client.delete(CERT_REQUEST, { namespace: ns, name: r.metadata.name }, { preconditions: { uid: r.metadata.uid } });
    } catch (err) {
      if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
    }
  }
  let request: Request | undefined = requests.find((r) => r.metadata.name === want);
  if (!request) {
    try {
      request = await ctx.client.create<RequestSpec, RequestStatus>({ kind: CERT_REQUEST, metadata: { name: want, namespace: ns, ownerReferences: [controllerRef(cert)] }, spec: { dnsName: cert.spec.dnsName } });
    } catch (err) {
      // made by an earlier reconcile the cache does not show yet: its event brings the key back
      if (isStoreError(err, 'AlreadyExists')) return;
      throw err;
    }
  }
  const now = ctx.clock.now();
  const g = cert.metadata.generation;
  let conditions = cert.status.conditions;
  const secretName = `${cert.metadata.name}-tls`;
  if (condition(request, 'Denied')) {
    // no certificate for a name it no longer asks for (keeping the last one issued would make the end depend on whether it was issued before the change)
    const stale = await ctx.client.tryGet('Secret', { namespace: ns, name: secretName });
    if (stale && controlledBy(stale, cert)) await ctx.client.delete('Secret', { namespace: ns, name: secretName }, { preconditions: { uid: stale.metadata.uid } });
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: 'Denied', message: `${cert.spec.dnsName} is not allowed`, observedGeneration: g }, now);
  } else if (request.status.certificate === undefined) conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting for the request to be signed', observedGeneration: g }, now);
  else {
    const secret = { kind: 'Secret', metadata: { name: secretName, namespace: ns, ownerReferences: [controllerRef(cert)] }, type: 'kubernetes.io/tls', stringData: { 'tls.crt': request.status.certificate } };
    const have = await ctx.client.tryGet('Secret', { namespace: ns, name: secret.metadata.name });
    if (!have) await ctx.client.create(secret as never);
    else if (have.data?.['tls.crt'] !== Buffer.from(request.status.certificate).toString('base64')) await ctx.client.update({ ...have, data: { 'tls.crt': Buffer.from(request.status.certificate).toString('base64') } } as never);
    conditions = setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Issued', message: `issued for ${cert.spec.dnsName}`, observedGeneration: g }, now);
  }
  await writeStatus(ctx, cert, { conditions, request: want, observedGeneration: g });
}

async function reconcileApproval(ctx: ReconcileContext): Promise<void> {
  const r = await ctx.client.tryGet<RequestSpec, RequestStatus>(CERT_REQUEST, ctx.key);
  if (!r || r.metadata.deletionTimestamp !== undefined || condition(r, 'Approved') || condition(r, 'Denied')) return;
  const ok = r.spec.dnsName.endsWith(ALLOWED_SUFFIX);
  const c = ok ? { type: 'Approved', status: 'True' as const, reason: 'Policy', message: 'allowed by policy', observedGeneration: r.metadata.generation } : { type: 'Denied', status: 'True' as const, reason: 'Policy', message: `only names under ${ALLOWED_SUFFIX}`, observedGeneration: r.metadata.generation };
  // keeps what the signer wrote: a stale read gets 409 and comes back
  await ctx.client.updateStatus({ ...r, status: { ...r.status, conditions: setCondition(r.status.conditions, c, ctx.clock.now()) } });
}

function defineSigner(mistake: 'none' | 'unless-denied') {
  return async function reconcileSigning(ctx: ReconcileContext): Promise<void> {
    const r = await ctx.client.tryGet<RequestSpec, RequestStatus>(CERT_REQUEST, ctx.key);
    if (!r || r.metadata.deletionTimestamp !== undefined || r.status.certificate !== undefined) return;
    // BUG (unless-denied): signs whatever is not denied yet, so a request the approver has not decided on is signed
    if (mistake === 'none' ? !condition(r, 'Approved') : condition(r, 'Denied')) return;
    await ctx.client.updateStatus({ ...r, status: { ...r.status, certificate: sign(r.spec.dnsName), conditions: setCondition(r.status.conditions, { type: 'Ready', status: 'True', reason: 'Signed', message: 'signed', observedGeneration: r.metadata.generation }, ctx.clock.now()) } });
  };
}

export const certificatesController = defineController({ name: 'certificates', for: CERTIFICATE, owns: [CERT_REQUEST, 'Secret'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcileCertificate });
export const approverController = defineController({ name: 'cert-approver', for: CERT_REQUEST, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcileApproval });
const signer = (mistake: 'none' | 'unless-denied') => defineController({ name: 'cert-signer', for: CERT_REQUEST, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: defineSigner(mistake) });

/** What the chain promises after any write: no request the approver denied carries a certificate. */
export const neverSignedDenied = safetyInvariants({
  invariants: {
    'a denied request is never signed': (view) => {
      for (const r of view.list(CERT_REQUEST)) {
        const s = r.status as RequestStatus;
        if (s.certificate !== undefined && condition({ status: s }, 'Denied')) return `request ${r.metadata.name} for ${String(r.spec['dnsName'])} is denied but signed`;
      }
      return true;
    },
  },
});

export const certChain: FalsePositiveCase = {
  name: 'cert-chain',
  description: 'cert-manager style: a Certificate asks for a CertificateRequest per DNS name, an approver and a signer (two controllers) write its status with optimistic updates, and the signed certificate lands in a TLS Secret',
  controllers: [certificatesController, approverController, signer('none')],
  options: {
    objects: { kind: CERTIFICATE, name: 'web', spec: [{ dnsName: 'web.example.com' }, { dnsName: 'api.example.com' }, { dnsName: 'web.example.net' }] },
    maxObjects: 2,
  },
  properties: [...endStateProperties(), neverSignedDenied],
  buggy: {
    controllers: [certificatesController, approverController, signer('unless-denied')],
    caughtBy: ['safety-invariants', 'no-extra-destructive-actions'],
    why: 'its signer signs any request not denied yet: when the approver is late (its event delayed, a restart) a request it will deny is signed first, and the approver then denies a signed request',
  },
};
