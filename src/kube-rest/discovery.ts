import type { JsonObject } from '../store/object.js';
import type { ResolvedResource } from './resource-definition.js';
import type { ResourceRegistry } from './resource-registry.js';

/** The Kubernetes version the simulated API server reports at `/version`. @public */
export const KUBE_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0+steadystate' } as const;

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** `/api`: the core group's versions. @internal */
export function coreVersions(): JsonObject {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }] };
}

function groupOf(name: string, resources: ResolvedResource[]): JsonObject {
  const versions = [...new Set(resources.filter((r) => r.group === name).map((r) => r.version))].map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions, preferredVersion: versions[0] ?? null };
}

/** `/apis`: every named group. @internal */
export function groupList(registry: ResourceRegistry): JsonObject {
  const all = registry.all();
  const names = [...new Set(all.filter((r) => r.group !== '').map((r) => r.group))];
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: names.map((n) => groupOf(n, all)) };
}

/** `/apis/<group>`, or undefined when no resource is in that group. @internal */
export function group(registry: ResourceRegistry, name: string): JsonObject | undefined {
  const all = registry.all();
  if (!all.some((r) => r.group === name)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupOf(name, all) };
}

/** `/api/v1`, `/apis/<group>/<version>`: the resources (and status subresources) served there. @internal */
export function resourceList(registry: ResourceRegistry, groupName: string, version: string): JsonObject | undefined {
  const rs = registry.all().filter((r) => r.group === groupName && r.version === version);
  if (rs.length === 0) return undefined;
  const resources: JsonObject[] = [];
  for (const r of rs) {
    resources.push({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: VERBS,
      ...(r.shortNames.length > 0 ? { shortNames: [...r.shortNames] } : {}),
      ...(r.categories.length > 0 ? { categories: [...r.categories] } : {}),
    });
    // a Pod's binding (kube-scheduler's write) and the legacy bindings resource: create only
    if (r.group === '' && r.kind === 'Pod') resources.push({ name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
    // its eviction (drain tools' write): a policy/v1 Eviction, create only
    if (r.group === '' && r.kind === 'Pod') resources.push({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    if (r.statusSubresource) resources.push({ name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] });
    // the scale subresource: an autoscaling/v1 Scale (what HPA, KEDA and `kubectl scale` write)
    if (r.scale === true) resources.push({ name: `${r.plural}/scale`, singularName: '', namespaced: r.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  }
  if (groupName === '' && rs.some((r) => r.kind === 'Pod')) resources.push({ name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupName === '' ? version : `${groupName}/${version}`, resources };
}

/** `/version`. @internal */
export function versionInfo(): JsonObject {
  return {
    ...KUBE_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/**
 * `/openapi/v2`: a minimal Swagger document (no schemas), enough for clients that only check
 * that it exists. Clients that validate against it should turn validation off.
 * @internal
 */
export function openApiV2(): JsonObject {
  return { swagger: '2.0', info: { title: 'Kubernetes (steadystate)', version: KUBE_VERSION.gitVersion }, paths: {}, definitions: {} };
}

function gvPath(groupName: string, version: string): string {
  return groupName === '' ? `api/${version}` : `apis/${groupName}/${version}`;
}

/** A short stable hash of the served resources (clients cache OpenAPI documents by it). */
function hashOf(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).toUpperCase().padStart(8, '0');
}

/** `/openapi/v3`: one document per group-version. @internal */
export function openApiV3Root(registry: ResourceRegistry): JsonObject {
  const paths: JsonObject = {};
  const all = registry.all();
  for (const gv of new Set(all.map((r) => gvPath(r.group, r.version)))) {
    const list = all.filter((r) => gvPath(r.group, r.version) === gv);
    paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hashOf(JSON.stringify(list))}` };
  }
  return { paths };
}

/**
 * `/openapi/v3/<group-version>`: paths only (no schemas). Each PATCH operation names its kind
 * and accepts `fieldValidation`, which is what kubectl looks for before it lets the server
 * validate (steadystate accepts the parameter and validates nothing).
 * @internal
 */
export function openApiV3(registry: ResourceRegistry, groupName: string, version: string): JsonObject | undefined {
  const rs = registry.all().filter((r) => r.group === groupName && r.version === version);
  if (rs.length === 0) return undefined;
  const paths: JsonObject = {};
  const param = { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } };
  for (const r of rs) {
    const base = `/${gvPath(groupName, version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}/{name}`;
    const gvk = { group: r.group, version: r.version, kind: r.kind };
    const op = (action: string): JsonObject => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, parameters: action === 'get' ? [] : [param], responses: { '200': { description: 'OK' } } });
    paths[base] = { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete') };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes (steadystate)', version: KUBE_VERSION.gitVersion }, paths, components: { schemas: {} } };
}
