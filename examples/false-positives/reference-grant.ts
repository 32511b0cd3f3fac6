import { defineController, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * Cross-namespace references gated by the referenced namespace, as Gateway API's `ReferenceGrant`
 * does it (Envoy Gateway, Contour, Istio, Cilium all implement the same rule): an `HTTPRoute` in
 * one namespace sends its path to a Service its `backendRef` names, in the route's own namespace
 * or in ANOTHER one. A reference into another namespace is valid only while that namespace holds a
 * `ReferenceGrant` whose `from` admits HTTPRoutes of the route's namespace and whose `to` admits
 * Services (all of them, or that one by name): the backend's owners decide who may send them
 * traffic, and they revoke it by deleting or editing the grant. The controller resolves each route
 * into its data-plane config (a ConfigMap `<route>-backend` it owns, in the route's namespace:
 * the upstream, or empty, so the proxy answers 500 for the path rather than sending traffic
 * anywhere it may no longer go) and a `ResolvedRefs` condition (reason `ResolvedRefs`,
 * `RefNotPermitted` or `BackendNotFound`, with observedGeneration).
 *
 * Namespaces come and go: deleting the backend namespace makes it Terminating and the namespace
 * controller deletes its Services and grants (the route's reference dangles: BackendNotFound, and
 * RefNotPermitted while the grant is gone first); a route's own namespace being deleted takes the
 * route and its ConfigMap (a create into it meanwhile answers 403, and the route is gone by the
 * retry). The route is read live (it creates a child); Services and grants come from the informer
 * cache and every change to one maps to the routes it can affect (all namespaces: the references
 * cross them), so a revocation is applied on the grant's own event, and resync repairs a lost one.
 *
 * Its buggy twin is the implementation bug several gateways shipped ("deleting a ReferenceGrant
 * does not update the route"): it watches Services but not ReferenceGrants, and keeps
 * controller-runtime's default resync (10 h): a grant created later is noticed with the route's
 * next event, but a revoked grant keeps the route sending traffic across the namespace boundary
 * for good. Without the case's convergence predicate, the built-in idempotence property still
 * catches it: re-reconciling the converged world revokes what the missing watch never did.
 */
export const HTTP_ROUTE = 'HTTPRoute';
const GRANT = 'ReferenceGrant';
const GATEWAY_GROUP = 'gateway.networking.k8s.io';

interface BackendRef {
  name: string;
  namespace?: string;
  port: number;
}
interface RouteSpec {
  path: string;
  backendRef: BackendRef;
}
interface RouteStatus {
  upstream?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}
interface GrantSpec {
  from: { group: string; kind: string; namespace: string }[];
  to: { group: string; kind: string; name?: string }[];
}

type Resolution = { upstream: string; reason: 'ResolvedRefs' } | { upstream: ''; reason: 'RefNotPermitted' | 'BackendNotFound' };

const deleting = (o: StoredObject<unknown, unknown>) => o.metadata.deletionTimestamp !== undefined;
const backendNamespace = (r: StoredObject<RouteSpec, unknown>) => r.spec.backendRef.namespace ?? r.metadata.namespace ?? '';

/** Whether `grant` (in the backend's namespace) lets HTTPRoutes of `fromNs` reference Service `name`. */
function admits(grant: StoredObject, fromNs: string, name: string): boolean {
  const spec = grant.spec as unknown as GrantSpec;
  return (
    !deleting(grant) &&
    (spec.from ?? []).some((f) => f.group === GATEWAY_GROUP && f.kind === HTTP_ROUTE && f.namespace === fromNs) &&
    (spec.to ?? []).some((t) => t.group === '' && t.kind === 'Service' && (t.name === undefined || t.name === name))
  );
}

/** The route's resolution from the Services and grants given (the cache's, or the world's for the oracle). */
export function resolve(r: StoredObject<RouteSpec, unknown>, services: readonly StoredObject[], grants: readonly StoredObject[]): Resolution {
  const ns = backendNamespace(r);
  const ref = r.spec.backendRef;
  if (ns !== r.metadata.namespace && !grants.some((g) => g.metadata.namespace === ns && admits(g, r.metadata.namespace ?? '', ref.name))) return { upstream: '', reason: 'RefNotPermitted' };
  const svc = services.find((s) => s.metadata.namespace === ns && s.metadata.name === ref.name && !deleting(s));
  const ports = ((svc?.spec['ports'] ?? []) as { port?: number }[]).map((p) => p.port);
  if (!svc || !ports.includes(ref.port)) return { upstream: '', reason: 'BackendNotFound' };
  return { upstream: `${ref.name}.${ns}.svc.cluster.local:${ref.port}`, reason: 'ResolvedRefs' };
}

const configName = (r: StoredObject<unknown, unknown>) => `${r.metadata.name}-backend`;

function define(mistake: 'none' | 'no-grant-watch') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const r = await ctx.client.tryGet<RouteSpec, RouteStatus>(HTTP_ROUTE, ctx.key, { live: true });
    if (!r || deleting(r)) return;
    const ns = backendNamespace(r);
    const services = await ctx.client.list('Service', { namespace: ns });
    const grants = ns === r.metadata.namespace ? [] : await ctx.client.list(GRANT, { namespace: ns });
    const res = resolve(r, services, grants);
    await apply(ctx, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: configName(r), namespace: r.metadata.namespace, ownerReferences: [controllerRef(r)] },
      data: { path: r.spec.path, upstream: res.upstream },
    });
    const message = res.reason === 'ResolvedRefs' ? res.upstream : res.reason === 'RefNotPermitted' ? `no ReferenceGrant in ${ns} admits HTTPRoutes of ${r.metadata.namespace} to Service ${r.spec.backendRef.name}` : `Service ${ns}/${r.spec.backendRef.name} port ${r.spec.backendRef.port} not found`;
    const conditions = setCondition(r.status.conditions, { type: 'ResolvedRefs', status: res.reason === 'ResolvedRefs' ? 'True' : 'False', reason: res.reason, message, observedGeneration: r.metadata.generation }, ctx.clock.now());
    await writeStatus(ctx, r, { ...(res.upstream !== '' ? { upstream: res.upstream } : {}), observedGeneration: r.metadata.generation, conditions });
  }
  const routesTo = (ns: string, name: string | undefined, view: { list(kind: string): StoredObject[] }) =>
    view
      .list(HTTP_ROUTE)
      .filter((r) => backendNamespace(r as unknown as StoredObject<RouteSpec, unknown>) === ns && (name === undefined || (r.spec as unknown as RouteSpec).backendRef?.name === name))
      .map((r) => `${r.metadata.namespace}/${r.metadata.name}`);
  return defineController({
    name: 'gateway-routes',
    for: HTTP_ROUTE,
    owns: ['ConfigMap'],
    watches: [
      // a backend appearing, changing its ports or going (its namespace deleted): every route naming it
      { kind: 'Service', map: (svc, view) => routesTo(svc.metadata.namespace ?? '', svc.metadata.name, view) },
      // a grant made, edited or revoked: every route into its namespace
      ...(mistake === 'none' ? [{ kind: GRANT, map: (g: StoredObject, view: { list(kind: string): StoredObject[] }) => routesTo(g.metadata.namespace ?? '', undefined, view) }] : []),
    ],
    leaderElection: true,
    ...(mistake === 'none' ? { resyncPeriodMs: RESYNC_MS } : {}),
    reconcile,
  });
}

export const referenceGrantController = define('none');

/**
 * Converged: every HTTPRoute (not being deleted, in a namespace not being deleted) observed its
 * generation, and its ConfigMap and condition say what the world's Services and grants resolve it to.
 */
export function resolved(view: WorldView): true | string {
  const terminating = new Set(view.list('Namespace').filter(deleting).map((n) => n.metadata.name));
  const services = view.list('Service');
  const grants = view.list(GRANT);
  for (const o of view.list(HTTP_ROUTE)) {
    const r = o as unknown as StoredObject<RouteSpec, RouteStatus>;
    if (deleting(r) || terminating.has(r.metadata.namespace ?? '')) continue;
    const id = `${r.metadata.namespace}/${r.metadata.name}`;
    if (r.status.observedGeneration !== r.metadata.generation) return `HTTPRoute ${id} has not observed generation ${r.metadata.generation}`;
    const want = resolve(r, services, grants);
    const cm = view.get('ConfigMap', `${r.metadata.namespace}/${configName(r)}`);
    const have = (cm?.['data'] as Record<string, string> | undefined)?.['upstream'];
    if (have !== want.upstream) return `HTTPRoute ${id}'s data-plane config sends ${JSON.stringify(have)}, the world resolves it to ${JSON.stringify(want.upstream)} (${want.reason})`;
    const c = r.status.conditions?.find((x) => x.type === 'ResolvedRefs');
    if (c?.reason !== want.reason) return `HTTPRoute ${id} reports ${c?.reason ?? 'no ResolvedRefs condition'}, the world resolves it to ${want.reason}`;
  }
  return true;
}

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } });
const service = (ns: string, name: string, port: number) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec: { selector: { app: name }, ports: [{ name: 'http', port }] } });
const grantSpec = (fromNs: string, name?: string): GrantSpec => ({ from: [{ group: GATEWAY_GROUP, kind: HTTP_ROUTE, namespace: fromNs }], to: [{ group: '', kind: 'Service', ...(name !== undefined ? { name } : {}) }] });
const grant = (ns: string, name: string, spec: GrantSpec) => ({ apiVersion: `${GATEWAY_GROUP}/v1beta1`, kind: GRANT, metadata: { name, namespace: ns }, spec: spec as unknown as Record<string, never> });
const route = (name: string, path: string, backendRef: BackendRef) => ({ apiVersion: `${GATEWAY_GROUP}/v1`, kind: HTTP_ROUTE, metadata: { name, namespace: 'apps' }, spec: { path, backendRef } as unknown as Record<string, never> });

export const referenceGrant: FalsePositiveCase = {
  name: 'reference-grant',
  description: "Gateway API HTTPRoutes reference Services in other namespaces only while a ReferenceGrant there admits them; grants are made, revoked and narrowed, and backend namespaces deleted (the namespace controller takes their Services and grants) and made again",
  controllers: [referenceGrantController],
  options: {
    // shop → billing/api (granted), checkout → payments/gateway (granted at 4 s), home → apps/web (same
    // namespace, no grant needed); billing revokes its grant at 9 s, payments is deleted at 13 s and
    // made again at 19 s (its Service at 20 s, its grant narrowed to that Service at 21 s)
    story: {
      objects: [
        namespace('apps'),
        namespace('billing'),
        namespace('payments'),
        service('apps', 'web', 80),
        service('billing', 'api', 8080),
        service('payments', 'gateway', 443),
        grant('billing', 'allow-apps', grantSpec('apps')),
        route('shop', '/shop', { name: 'api', namespace: 'billing', port: 8080 }),
        route('checkout', '/checkout', { name: 'gateway', namespace: 'payments', port: 443 }),
        route('home', '/', { name: 'web', port: 80 }),
      ],
      actions: [
        { at: 4000, type: 'create', object: grant('payments', 'allow-apps', grantSpec('apps')) },
        { at: 9000, type: 'delete', kind: GRANT, key: 'billing/allow-apps' },
        { at: 13_000, type: 'delete', kind: 'Namespace', key: 'payments' },
        { at: 19_000, type: 'create', object: namespace('payments') },
        { at: 20_000, type: 'create', object: service('payments', 'gateway', 443) },
        { at: 21_000, type: 'create', object: grant('payments', 'allow-apps', grantSpec('apps', 'gateway')) },
      ],
    },
    // generated: routes of apps into each namespace, a partner namespace with its Service and a grant
    // (admitting apps, only another Service, or another namespace), each made, changed, deleted
    objects: [
      {
        kind: HTTP_ROUTE,
        namespace: 'apps',
        name: 'r',
        spec: [
          { path: '/feed', backendRef: { name: 'feed', namespace: 'partners', port: 9000 } },
          { path: '/feed', backendRef: { name: 'api', namespace: 'billing', port: 8080 } },
          { path: '/feed', backendRef: { name: 'gateway', namespace: 'payments', port: 443 } },
          { path: '/feed', backendRef: { name: 'web', port: 80 } },
        ],
      },
      { kind: GRANT, namespace: 'partners', names: ['allow-apps'], spec: [grantSpec('apps') as unknown as Record<string, never>, grantSpec('apps', 'other') as unknown as Record<string, never>, grantSpec('blog') as unknown as Record<string, never>] },
      { kind: 'Service', namespace: 'partners', names: ['feed'], spec: [{ selector: { app: 'feed' }, ports: [{ name: 'http', port: 9000 }] }, { selector: { app: 'feed' }, ports: [{ name: 'http', port: 9001 }] }] },
      { kind: 'Namespace', namespace: '', names: ['partners'], spec: {} },
    ],
    maxObjects: 3,
  },
  properties: [convergence({ converged: resolved }), ...endStateProperties()],
  buggy: {
    controllers: [define('no-grant-watch')],
    caughtBy: ['convergence', 'idempotence'],
    why: "it does not watch ReferenceGrants and keeps controller-runtime's 10 h resync: billing's revocation at 9 s never reaches shop, which keeps sending traffic into a namespace that withdrew its consent",
  },
};
