import type { StrategicMergeSchema } from './strategic-merge-patch.js';

/**
 * One REST resource the simulated API server serves (a kind at a group/version, the way
 * kube-apiserver's discovery describes it).
 * @public
 */
export interface ResourceDefinition {
  /** API group; '' for the core group (`/api/v1`). */
  group: string;
  /** @example 'v1' */
  version: string;
  /** The kind; also the kind the object store keys objects by. */
  kind: string;
  /** Lower-case plural used in paths. @example 'webapps' */
  plural: string;
  /** @defaultValue the kind in lower case */
  singular?: string;
  /** @defaultValue true */
  namespaced?: boolean;
  /** @defaultValue [] */
  shortNames?: string[];
  /** @defaultValue [] */
  categories?: string[];
  /**
   * Whether the kind has a spec: `'spec'` (Deployments, custom resources) always serves `spec`;
   * `'flat'` (ConfigMap, Secret, Event) has none, so an empty one is not served. Either way
   * every top-level field (ConfigMap `data`, Event `reason`) is stored and served as written.
   * @defaultValue 'spec'
   */
  shape?: 'spec' | 'flat';
  /** Serves `/status`, and ignores status written through the main resource. @defaultValue true for 'spec', false for 'flat' */
  statusSubresource?: boolean;
  /**
   * Merge keys for strategic merge patch. Absent: strategic merge patch answers 415, as
   * kube-apiserver does for custom resources.
   * @defaultValue undefined
   */
  strategicMerge?: StrategicMergeSchema;
  /**
   * Top-level fields served under another name than the one they are stored under (stored name →
   * served name), for a kind served in two groups with different spellings (events.k8s.io/v1
   * Event: `message` is served as `note`). Reads rename stored → served, writes served → stored.
   * @internal
   */
  wireNames?: Readonly<Record<string, string>>;
  /**
   * The lists of a custom kind server-side apply merges item by item or as a set: what its CRD's
   * schema declares with `x-kubernetes-list-type: map` (keyed by `x-kubernetes-list-map-keys`) or
   * `set`; every other list of a custom kind is atomic. @internal
   */
  applyLists?: StrategicMergeSchema;
  /**
   * Serves `{plural}/{name}/scale` (an autoscaling/v1 Scale): the built-in workloads, and custom
   * kinds whose CustomResourceDefinition declares `subresources.scale` (the store keeps where
   * their replicas are). @internal
   */
  scale?: boolean;
}

/** A definition with every default applied. @public */
export interface ResolvedResource {
  readonly group: string;
  readonly version: string;
  /** `v1` or `apps/v1`. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly shape: 'spec' | 'flat';
  readonly statusSubresource: boolean;
  readonly strategicMerge: StrategicMergeSchema | undefined;
  /** See {@link ResourceDefinition.wireNames}. @internal */
  readonly wireNames?: Readonly<Record<string, string>>;
  /** See {@link ResourceDefinition.applyLists}. @internal */
  readonly applyLists?: StrategicMergeSchema;
  /** See {@link ResourceDefinition.scale}. @internal */
  readonly scale?: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Validates a definition and applies its defaults, with a message naming the bad field.
 * @internal
 */
export function resolveResource(def: ResourceDefinition, where = 'steadystate.createKubeApi'): ResolvedResource {
  const name = `resource ${JSON.stringify(def?.kind ?? def)}`;
  if (def === null || typeof def !== 'object') throw new TypeError(`${where}: a resource must be an object { group, version, kind, plural }, got ${String(def)}`);
  if (typeof def.group !== 'string') throw new TypeError(`${where}: ${name}: "group" must be a string ('' for the core group), got ${JSON.stringify(def.group)}`);
  if (typeof def.version !== 'string' || !DNS_LABEL.test(def.version)) throw new TypeError(`${where}: ${name}: "version" must look like 'v1', got ${JSON.stringify(def.version)}`);
  if (typeof def.kind !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(def.kind)) throw new TypeError(`${where}: ${name}: "kind" must be CamelCase like 'WebApp', got ${JSON.stringify(def.kind)}`);
  if (typeof def.plural !== 'string' || !DNS_LABEL.test(def.plural)) throw new TypeError(`${where}: ${name}: "plural" must be lower-case like 'webapps', got ${JSON.stringify(def.plural)}`);
  const shape = def.shape ?? 'spec';
  if (shape !== 'spec' && shape !== 'flat') throw new TypeError(`${where}: ${name}: "shape" must be 'spec' or 'flat', got ${JSON.stringify(shape)}`);
  return {
    group: def.group,
    version: def.version,
    apiVersion: def.group === '' ? def.version : `${def.group}/${def.version}`,
    kind: def.kind,
    plural: def.plural,
    singular: def.singular ?? def.kind.toLowerCase(),
    namespaced: def.namespaced ?? true,
    shortNames: [...(def.shortNames ?? [])],
    categories: [...(def.categories ?? [])],
    shape,
    statusSubresource: def.statusSubresource ?? shape === 'spec',
    strategicMerge: def.strategicMerge,
    ...(def.wireNames !== undefined ? { wireNames: def.wireNames } : {}),
    ...(def.scale === true ? { scale: true } : {}),
    ...(def.applyLists !== undefined && Object.keys(def.applyLists).length > 0 ? { applyLists: def.applyLists } : {}),
  };
}
