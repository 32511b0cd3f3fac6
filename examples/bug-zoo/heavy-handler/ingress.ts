import type { ReconcileContext, StoredObject } from '../../../src/index.js';
import { latest } from '../shared/latest.js';
import { ensureOwned } from '../shared/owned.js';
import { sameJson } from '../shared/same-json.js';

/**
 * An `Ingress` routes a host to a backend over TLS: the controller programs a `RouteConfig` (the
 * proxy's configuration) with the certificate from the Secret the Ingress names. It watches
 * Secrets, so a renewed certificate reaches the proxy. Shared by the buggy and the correct
 * controller; they differ only in how a Secret event is mapped to Ingresses.
 */
export const INGRESS_KIND = 'Ingress';
export const SECRET_KIND = 'Secret';
export const ROUTE_KIND = 'RouteConfig';
/** Annotation on a TLS Secret naming the Ingress that serves it. */
export const FOR_ANNOTATION = 'ingress.example/for';
/** A certificate lookup at the CA (chain and revocation): a few seconds, not something to do per event. */
export const CERT_LOOKUP_MS = 3_000;

export interface IngressSpec {
  host: string;
  backend: string;
  tlsSecret: string;
}
export interface IngressStatus {
  tls?: 'Ready' | 'Missing';
  observedGeneration?: number;
}
export type Ingress = StoredObject<IngressSpec, IngressStatus>;

/** The Ingress keys a TLS Secret's annotation names (none for other Secrets). */
export function ingressesFor(secret: StoredObject): string[] {
  const target = secret.metadata.annotations[FOR_ANNOTATION];
  if (target === undefined || target === '') return [];
  return [secret.metadata.namespace !== undefined ? `${secret.metadata.namespace}/${target}` : target];
}

/** Whether the certificate in a Secret covers a host: the Secret carries the certificate's host name. */
export function covers(secret: StoredObject | undefined, host: string): boolean {
  return secret !== undefined && typeof secret.spec['tls.crt'] === 'string' && secret.spec['host'] === host;
}

/** Programs the route: host, backend and the certificate (or none while the Secret is missing or wrong). */
export async function reconcileIngress(ctx: ReconcileContext): Promise<void> {
  const ing = await latest<IngressSpec, IngressStatus>(ctx, INGRESS_KIND);
  if (!ing || ing.metadata.deletionTimestamp !== undefined) return;
  const secret = await ctx.client.tryGet(SECRET_KIND, { namespace: ing.metadata.namespace, name: ing.spec.tlsSecret });
  const certificate = covers(secret, ing.spec.host) ? String(secret!.spec['tls.crt']) : null;
  await ensureOwned(ctx, ing, ROUTE_KIND, `${ing.metadata.name}-route`, { host: ing.spec.host, backend: ing.spec.backend, certificate });
  const status: IngressStatus = { tls: certificate !== null ? 'Ready' : 'Missing', observedGeneration: ing.metadata.generation };
  if (!sameJson(ing.status, status)) await ctx.client.updateStatus({ ...ing, status });
}
