import type { ObjectStore } from '../store/store.js';
import type { StoredObject } from '../store/object.js';
import { crdScalePaths } from '../store/scale.js';
import { builtinResources } from './builtin-resources.js';
import { resolveResource, type ResolvedResource, type ResourceDefinition } from './resource-definition.js';
import type { StrategicMergeSchema } from './strategic-merge-patch.js';

const CRD = 'CustomResourceDefinition';

/**
 * The resources the API serves: the built-ins, kinds registered by the user, and the kinds of
 * every CustomResourceDefinition in the store (created through the API or as an initial
 * object), which are served as soon as the CRD exists, like kube-apiserver's `Established`.
 * @public
 */
export class ResourceRegistry {
  private readonly fixed: ResolvedResource[] = [];
  private crdSignature = '';
  private fromCrds: ResolvedResource[] = [];

  constructor(
    private readonly store: ObjectStore,
    extra: readonly ResourceDefinition[] = [],
  ) {
    for (const d of builtinResources) this.fixed.push(resolveResource(d));
    for (const d of extra) this.register(d);
  }

  /** Serves one more kind (replacing a definition of the same group, version and plural). */
  register(def: ResourceDefinition): ResolvedResource {
    const r = resolveResource(def, 'steadystate.ResourceRegistry.register');
    const at = this.fixed.findIndex((x) => x.group === r.group && x.version === r.version && x.plural === r.plural);
    if (at >= 0) this.fixed[at] = r;
    else this.fixed.push(r);
    return r;
  }

  /** Every served resource: fixed ones first, then CRD kinds, each in a stable order. */
  all(): ResolvedResource[] {
    return [...this.fixed, ...this.crdResources().filter((c) => !this.fixed.some((f) => f.group === c.group && f.version === c.version && f.plural === c.plural))];
  }

  /** The resource at group/version/plural, or undefined. */
  find(group: string, version: string, plural: string): ResolvedResource | undefined {
    const hit = this.fixed.find((r) => r.group === group && r.version === version && r.plural === plural);
    return hit ?? this.crdResources().find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  /** The first resource serving a kind (the preferred version), or undefined. */
  byKind(kind: string): ResolvedResource | undefined {
    return this.all().find((r) => r.kind === kind);
  }

  private crdResources(): ResolvedResource[] {
    const crds = this.store.peekAll(CRD);
    const sig = crds.map((c) => c.metadata.resourceVersion).join(',');
    if (sig !== this.crdSignature) {
      this.crdSignature = sig;
      this.fromCrds = crds.flatMap(resourcesOfCrd);
    }
    return this.fromCrds;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The lists a CRD version's structural schema declares mergeable for server-side apply, by dotted
 * path without indices (`status.conditions`, `spec.listeners.routes`): `x-kubernetes-list-type:
 * map` keyed by its `x-kubernetes-list-map-keys`, `set` as a set of scalars. Maps under
 * `additionalProperties` are not followed (their keys are data, not fields).
 */
export function listRulesOf(schema: unknown): StrategicMergeSchema {
  const out: Record<string, StrategicMergeSchema[string]> = {};
  const visit = (node: unknown, dotted: string): void => {
    if (!isRecord(node)) return;
    if (isRecord(node['properties'])) for (const [k, child] of Object.entries(node['properties'])) visit(child, dotted === '' ? k : `${dotted}.${k}`);
    if (node['type'] !== 'array' || dotted === '') return;
    const listType = node['x-kubernetes-list-type'];
    const keys = node['x-kubernetes-list-map-keys'];
    if (listType === 'map' && Array.isArray(keys) && keys.length > 0 && keys.every((k) => typeof k === 'string')) {
      out[dotted] = { mergeKey: keys[0] as string, listMapKeys: [...(keys as string[])] };
    } else if (listType === 'set') out[dotted] = { primitive: true };
    // the items' own lists (a list of maps whose items hold lists)
    visit(node['items'], dotted);
  };
  visit(schema, '');
  return out;
}

/** The resources a CRD object defines (one per served version); malformed CRDs define none. */
export function resourcesOfCrd(crd: StoredObject): ResolvedResource[] {
  if (crd.metadata.deletionTimestamp !== undefined) return [];
  const spec = crd.spec as Record<string, unknown>;
  const names = (spec['names'] ?? {}) as Record<string, unknown>;
  const versions = Array.isArray(spec['versions']) ? (spec['versions'] as Record<string, unknown>[]) : [];
  const out: ResolvedResource[] = [];
  for (const v of versions) {
    if (v === null || typeof v !== 'object' || v['served'] === false) continue;
    const sub = (v['subresources'] ?? {}) as Record<string, unknown>;
    try {
      out.push(
        resolveResource({
          group: String(spec['group'] ?? ''),
          version: String(v['name'] ?? ''),
          kind: String(names['kind'] ?? ''),
          plural: String(names['plural'] ?? ''),
          ...(typeof names['singular'] === 'string' && names['singular'] !== '' ? { singular: names['singular'] } : {}),
          namespaced: spec['scope'] !== 'Cluster',
          shortNames: Array.isArray(names['shortNames']) ? names['shortNames'].map(String) : [],
          categories: Array.isArray(names['categories']) ? names['categories'].map(String) : [],
          statusSubresource: sub['status'] !== undefined,
          ...(crdScalePaths(sub) !== undefined ? { scale: true } : {}),
          applyLists: listRulesOf((v['schema'] as Record<string, unknown> | undefined)?.['openAPIV3Schema']),
        }),
      );
    } catch {
      // a CRD the real API server would have rejected defines nothing here either
    }
  }
  // the storage version first, so byKind() prefers it
  out.sort((a, b) => Number(versions.find((v) => v['name'] === b.version)?.['storage'] === true) - Number(versions.find((v) => v['name'] === a.version)?.['storage'] === true));
  return out;
}
