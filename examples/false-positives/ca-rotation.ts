import { AlreadyExistsError, defineController, fromVirtualTimestamp, virtualTimestamp, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Certificate rotation with a CA hand-over, as OpenShift's service-ca operator and Istio's root
 * rotation do it: a `ServingCert` names the CA that should sign a service's serving certificate
 * (`spec.issuer`) and its DNS name; its controller keeps the serving Secret `<name>-tls` (the
 * leaf, signed by the issuer) and the trust bundle ConfigMap `<name>-trust` (every CA clients
 * must accept). Changing the issuer rotates in three steps, so a client holding the bundle
 * accepts the serving certificate at every moment (overlapping validity):
 *
 * 1. the new CA is added to the bundle (old and new both trusted);
 * 2. once the bundle carrying it has been out `PROPAGATION_MS` (kubelet syncs ConfigMap volumes
 *    with a delay), the leaf is reissued by the new CA;
 * 3. once the live Secret shows the new leaf, the CAs no leaf uses are dropped from the bundle.
 *
 * Every step is decided from live reads of the bundle and the Secret (a cache behind by one write
 * would reissue the leaf before its CA is out, or drop the CA the leaf still uses), so a crash,
 * a conflict or a lost event between steps resumes where the world is. An issuer changed again
 * mid-rotation is added in turn; the leaf moves only to a CA the bundle already carries.
 * `status` reports the serving issuer and the trusted CAs.
 *
 * Its buggy twin reissues the leaf first and replaces the bundle after it, in one pass (the
 * mistake the service-ca operator's "CA bundle injection lag" outages came from): between the
 * two writes (and for good, when the second fails) clients reject the serving certificate.
 */
export const SERVING_CERT = 'ServingCert';
const ISSUER = 'certs.example.com/issuer';
const BUNDLE = 'certs.example.com/bundle';
const PUBLISHED = 'certs.example.com/published-at';
/** How long a bundle is out before a leaf it newly trusts is served. */
const PROPAGATION_MS = 2_000;

interface CertSpec {
  issuer: string;
  dnsName: string;
}
interface CertStatus {
  servingIssuer?: string;
  trusted?: string[];
  observedGeneration?: number;
}
type Cert = StoredObject<CertSpec, CertStatus>;

const leafOf = (dnsName: string, issuer: string) => `CERT ${dnsName} signed-by ${issuer}`;
const b64 = (s: string) => btoa(s);
const unb64 = (s: unknown) => {
  try {
    return typeof s === 'string' ? atob(s) : '';
  } catch {
    return '';
  }
};
const caList = (cm: StoredObject | undefined): string[] => {
  const text = cm?.['data'] && typeof cm['data'] === 'object' ? (cm['data'] as Record<string, unknown>)['ca-bundle.crt'] : undefined;
  return typeof text === 'string' && text !== '' ? text.split('\n') : [];
};
const bundleText = (cas: readonly string[]) => [...new Set(cas)].sort().join('\n');
/** The issuer of the leaf the Secret serves, read from the certificate itself. */
const servedIssuer = (secret: StoredObject | undefined): string | undefined => {
  const crt = unb64(secret?.['data'] && typeof secret['data'] === 'object' ? (secret['data'] as Record<string, unknown>)['tls.crt'] : undefined);
  const m = / signed-by (.+)$/.exec(crt);
  return m ? m[1] : undefined;
};

function define(mistake: 'none' | 'leaf-first') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const c = (await ctx.client.tryGet<CertSpec, CertStatus>(SERVING_CERT, ctx.key, { live: true })) as Cert | undefined;
    if (!c || c.metadata.deletionTimestamp !== undefined) return;
    const ns = c.metadata.namespace;
    const want = c.spec.issuer;
    const now = ctx.clock.now();
    const bundleRef = { namespace: ns, name: `${c.metadata.name}-trust` };
    const secretRef = { namespace: ns, name: `${c.metadata.name}-tls` };
    let bundle = await ctx.client.tryGet('ConfigMap', bundleRef, { live: true });
    let secret = await ctx.client.tryGet('Secret', secretRef, { live: true });
    for (const o of [bundle, secret]) if (o && !controlledBy(o, c)) throw new Error(`${o.kind} ${o.metadata.name} belongs to an earlier ${SERVING_CERT} of this name (waiting for the garbage collector)`);

    /** Writes the bundle (with the time it went out, for the propagation wait). */
    const publish = async (cas: readonly string[]): Promise<StoredObject> => {
      const text = bundleText(cas);
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...bundleRef, ownerReferences: [controllerRef(c)], annotations: { [BUNDLE]: text, [PUBLISHED]: virtualTimestamp(now) } }, data: { 'ca-bundle.crt': text } };
      if (!bundle) {
        try {
          return await ctx.client.create(body);
        } catch (err) {
          if (!(err instanceof AlreadyExistsError)) throw err;
          throw new Error(`ConfigMap ${bundleRef.name} appeared meanwhile: read it again`);
        }
      }
      return ctx.client.update({ ...bundle, metadata: { ...bundle.metadata, annotations: { ...bundle.metadata.annotations, [BUNDLE]: text, [PUBLISHED]: virtualTimestamp(now) } }, data: { 'ca-bundle.crt': text } });
    };
    /** Writes the leaf signed by `issuer`. */
    const issue = async (issuer: string): Promise<StoredObject> => {
      const data = { 'tls.crt': b64(leafOf(c.spec.dnsName, issuer)), 'tls.key': b64(`KEY ${c.spec.dnsName} ${issuer}`) };
      if (!secret) {
        try {
          return await ctx.client.create({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { ...secretRef, ownerReferences: [controllerRef(c)], annotations: { [ISSUER]: issuer } }, data });
        } catch (err) {
          if (!(err instanceof AlreadyExistsError)) throw err;
          throw new Error(`Secret ${secretRef.name} appeared meanwhile: read it again`);
        }
      }
      return ctx.client.update({ ...secret, metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, [ISSUER]: issuer } }, data });
    };
    const leafOk = (s: StoredObject | undefined) => s !== undefined && servedIssuer(s) === want && unb64((s['data'] as Record<string, unknown>)['tls.crt']) === leafOf(c.spec.dnsName, want) && s.metadata.annotations[ISSUER] === want;
    const bundleOk = (b: StoredObject | undefined, cas: readonly string[]) => b !== undefined && (b['data'] as Record<string, unknown> | undefined)?.['ca-bundle.crt'] === bundleText(cas) && b.metadata.annotations[BUNDLE] === bundleText(cas);

    let wait: number | undefined;
    if (mistake === 'leaf-first') {
      // BUG (leaf-first): the leaf is reissued before its CA is in the bundle clients hold
      if (!leafOk(secret)) secret = await issue(want);
      if (!bundleOk(bundle, [want])) bundle = await publish([want]);
    } else {
      // 1. trust the new CA alongside the CAs trusted now (a bundle edited out of band is rewritten, keeping what it trusted)
      // (and the CA of the leaf served now: a bundle that lost it out of band is repaired with it)
      const serving = servedIssuer(secret);
      const trusted = [...caList(bundle).filter((x) => x !== ''), ...(serving !== undefined ? [serving] : [])];
      if (!bundle || !trusted.includes(want) || !bundleOk(bundle, trusted)) bundle = await publish([...trusted, want]);
      // 2. the leaf moves to the new CA once the bundle carrying it has been out long enough
      if (!leafOk(secret)) {
        const out = fromVirtualTimestamp(bundle.metadata.annotations[PUBLISHED] ?? virtualTimestamp(now));
        // a leaf whose own CA is trusted keeps being served meanwhile; one with none (first issue, or edited) cannot wait
        const servingTrusted = secret !== undefined && caList(bundle).includes(servedIssuer(secret) ?? '');
        if (now >= out + PROPAGATION_MS || !servingTrusted) secret = await issue(want);
        else wait = out + PROPAGATION_MS - now;
      }
      // 3. the old CAs go once the live leaf is the new one
      if (leafOk(secret) && !bundleOk(bundle, [want])) bundle = await publish([want]);
    }
    await writeStatus(ctx, c, { ...(secret ? { servingIssuer: servedIssuer(secret) ?? '' } : {}), trusted: caList(bundle), observedGeneration: c.metadata.generation });
    return wait !== undefined ? { requeueAfter: wait } : undefined;
  };
}

const defineCaRotation = (mistake: 'none' | 'leaf-first') =>
  defineController({ name: 'ca-rotation', for: SERVING_CERT, owns: ['Secret', 'ConfigMap'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define(mistake) });

export const caRotationController = defineCaRotation('none');

/**
 * Clients holding the trust bundle accept the serving certificate: for every ServingCert, the CA
 * that signed its served leaf is in its bundle. Judged on the objects as its controller wrote
 * them (a bundle whose data disagrees with the copy the controller annotates, or a Secret whose
 * certificate disagrees with its issuer annotation, was edited out of band: drift the controller
 * repairs, not a rotation it made); a missing bundle or Secret has nothing to judge.
 */
export function leafTrusted(view: WorldView): true | string {
  for (const c of view.list(SERVING_CERT)) {
    if (c.metadata.deletionTimestamp !== undefined) continue;
    const ns = c.metadata.namespace;
    const bundle = view.get('ConfigMap', `${ns}/${c.metadata.name}-trust`);
    const secret = view.get('Secret', `${ns}/${c.metadata.name}-tls`);
    if (!bundle || !secret || !controlledBy(bundle, c) || !controlledBy(secret, c)) continue;
    const text = (bundle['data'] as Record<string, unknown> | undefined)?.['ca-bundle.crt'];
    const issuer = servedIssuer(secret);
    if (text !== bundle.metadata.annotations[BUNDLE] || issuer === undefined || issuer !== secret.metadata.annotations[ISSUER]) continue;
    if (!caList(bundle).includes(issuer)) return `ServingCert ${c.metadata.name} serves a leaf signed by ${issuer}, its trust bundle holds ${JSON.stringify(caList(bundle))}`;
  }
  return true;
}

const servingCert = (name: string, issuer: string, dnsName: string) => ({ apiVersion: 'certs.example.com/v1', kind: SERVING_CERT, metadata: { name, namespace: 'default' }, spec: { issuer, dnsName } });

export const caRotation: FalsePositiveCase = {
  name: 'ca-rotation',
  description: 'service-ca style CA rotation: a ServingCert keeps a serving Secret and a trust-bundle ConfigMap, rotating to a new issuer in three live-read steps (trust the new CA, reissue the leaf once the bundle has propagated, drop the old CA) so clients always trust the served leaf',
  controllers: [caRotationController],
  options: {
    // the api's CA rotated at 3 s, rotated again mid-rotation at 4 s; the web cert rotated at 8 s
    story: {
      objects: [servingCert('api', 'ca-2025', 'api.default.svc'), servingCert('web', 'ca-2025', 'web.default.svc')],
      actions: [
        { at: 3000, type: 'patch', kind: SERVING_CERT, key: 'default/api', patch: { spec: { issuer: 'ca-2026' } } },
        { at: 4000, type: 'patch', kind: SERVING_CERT, key: 'default/api', patch: { spec: { issuer: 'ca-2027' } } },
        { at: 8000, type: 'patch', kind: SERVING_CERT, key: 'default/web', patch: { spec: { issuer: 'ca-2026' } } },
      ],
    },
    objects: { kind: SERVING_CERT, name: 'svc', spec: [{ issuer: 'ca-a', dnsName: 'svc.default.svc' }, { issuer: 'ca-b', dnsName: 'svc.default.svc' }, { issuer: 'ca-b', dnsName: 'svc.example.com' }] },
  },
  properties: [safetyInvariants({ invariants: { 'clients trust the served leaf': leafTrusted } })],
  buggy: {
    controllers: [defineCaRotation('leaf-first')],
    caughtBy: ['safety-invariants'],
    why: 'it reissues the leaf before the new CA is in the trust bundle (and replaces the bundle after): between the two writes clients reject the serving certificate',
  },
};
