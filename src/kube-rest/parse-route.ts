/**
 * A request path of the Kubernetes REST API, classified.
 * @internal
 */
export type KubeRoute =
  | { type: 'api' }
  | { type: 'apis' }
  | { type: 'group'; group: string }
  | { type: 'group-version'; group: string; version: string }
  | { type: 'version' }
  | { type: 'openapi-v2' }
  | { type: 'openapi-v3' }
  | { type: 'openapi-v3-gv'; group: string; version: string }
  | { type: 'health' }
  | {
      type: 'resource';
      group: string;
      version: string;
      plural: string;
      /** From the path (`/namespaces/<ns>/…`); undefined for cluster-wide or cluster-scoped. */
      namespace: string | undefined;
      name: string | undefined;
      subresource: string | undefined;
      /** A legacy `/watch/` path (always a watch). */
      legacyWatch: boolean;
    }
  | { type: 'unknown' };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * Classifies a path: discovery (`/api`, `/apis/<group>/<version>`), `/version`,
 * `/openapi/v2`, health checks, or a resource path with optional namespace, name,
 * subresource and legacy `/watch/` prefix.
 * @internal
 */
export function parseRoute(pathname: string): KubeRoute {
  const parts = pathname.split('/').filter((p) => p !== '').map(decode);
  if (parts.length === 0) return { type: 'unknown' };
  const [head] = parts;
  if (parts.length === 1 && head === 'version') return { type: 'version' };
  if (head === 'openapi' && parts[1] === 'v2' && parts.length === 2) return { type: 'openapi-v2' };
  if (head === 'openapi' && parts[1] === 'v3') {
    if (parts.length === 2) return { type: 'openapi-v3' };
    if (parts[2] === 'api' && parts.length === 4) return { type: 'openapi-v3-gv', group: '', version: parts[3]! };
    if (parts[2] === 'apis' && parts.length === 5) return { type: 'openapi-v3-gv', group: parts[3]!, version: parts[4]! };
    return { type: 'unknown' };
  }
  if (parts.length === 1 && (head === 'healthz' || head === 'livez' || head === 'readyz')) return { type: 'health' };
  if (head === 'api') {
    if (parts.length === 1) return { type: 'api' };
    if (parts.length === 2) return { type: 'group-version', group: '', version: parts[1]! };
    return resourceRoute('', parts[1]!, parts.slice(2));
  }
  if (head === 'apis') {
    if (parts.length === 1) return { type: 'apis' };
    if (parts.length === 2) return { type: 'group', group: parts[1]! };
    if (parts.length === 3) return { type: 'group-version', group: parts[1]!, version: parts[2]! };
    return resourceRoute(parts[1]!, parts[2]!, parts.slice(3));
  }
  return { type: 'unknown' };
}

function resourceRoute(group: string, version: string, rest: string[]): KubeRoute {
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  const route = (plural: string, namespace: string | undefined, name: string | undefined, subresource: string | undefined): KubeRoute => ({
    type: 'resource',
    group,
    version,
    plural,
    namespace,
    name,
    subresource,
    legacyWatch,
  });
  if (group === '' && rest[0] === 'namespaces' && rest.length >= 2) {
    const ns = rest[1]!;
    if (rest.length === 2) return route('namespaces', undefined, ns, undefined);
    if (rest.length === 3 && NAMESPACE_SUBRESOURCES.has(rest[2]!)) return route('namespaces', undefined, ns, rest[2]);
    return rest.length <= 5 ? route(rest[2]!, ns, rest[3], rest[4]) : { type: 'unknown' };
  }
  if (group !== '' && rest[0] === 'namespaces' && rest.length >= 3) {
    return rest.length <= 5 ? route(rest[2]!, rest[1], rest[3], rest[4]) : { type: 'unknown' };
  }
  if (rest.length >= 1 && rest.length <= 3) return route(rest[0]!, undefined, rest[1], rest[2]);
  return { type: 'unknown' };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
