import type { ResourceDefinition } from './resource-definition.js';
import type { StrategicMergeSchema } from './strategic-merge-patch.js';
import { EVENT_V1_NAMES } from '../store/validation.js';

/** Merge directives every built-in kind shares (ObjectMeta). */
const META: StrategicMergeSchema = {
  'metadata.finalizers': { primitive: true },
  'metadata.ownerReferences': { mergeKey: 'uid' },
};

/** PodSpec lists (kubernetes/api core/v1 `patchMergeKey` tags), under `prefix`. */
function podSpec(prefix: string): StrategicMergeSchema {
  const out: Record<string, { mergeKey: string }> = {};
  for (const c of ['containers', 'initContainers', 'ephemeralContainers']) {
    out[`${prefix}.${c}`] = { mergeKey: 'name' };
    out[`${prefix}.${c}.ports`] = { mergeKey: 'containerPort' };
    out[`${prefix}.${c}.env`] = { mergeKey: 'name' };
    out[`${prefix}.${c}.volumeMounts`] = { mergeKey: 'mountPath' };
    out[`${prefix}.${c}.volumeDevices`] = { mergeKey: 'devicePath' };
    out[`${prefix}.${c}.resizePolicy`] = { mergeKey: 'resourceName' };
  }
  out[`${prefix}.volumes`] = { mergeKey: 'name' };
  out[`${prefix}.imagePullSecrets`] = { mergeKey: 'name' };
  out[`${prefix}.hostAliases`] = { mergeKey: 'ip' };
  out[`${prefix}.resourceClaims`] = { mergeKey: 'name' };
  out[`${prefix}.schedulingGates`] = { mergeKey: 'name' };
  return out;
}

const CONDITIONS: StrategicMergeSchema = { 'status.conditions': { mergeKey: 'type' } };

/**
 * `events.k8s.io/v1` Events: as in kube-apiserver, the same stored objects as core/v1 Events
 * (stored with the core spelling), served with events.k8s.io's field names.
 */
const EVENTS_V1: ResourceDefinition = {
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  shortNames: ['ev'],
  shape: 'flat',
  strategicMerge: META,
  wireNames: EVENT_V1_NAMES,
};

/**
 * The kinds served out of the box (group, version, plural, scope and strategic-merge keys as in
 * Kubernetes 1.32). Objects are stored under their kind, so a controller defined with
 * `defineController({ for: 'ConfigMap' })` and a client-node controller see the same objects.
 * A kind served in two groups (Event: core/v1 and events.k8s.io/v1) is one set of objects;
 * `ResourceRegistry.byKind` answers with the first definition (the core one).
 * @public
 */
export const builtinResources: readonly ResourceDefinition[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, shortNames: ['ns'], strategicMerge: { ...META, ...CONDITIONS, 'spec.finalizers': { primitive: true } } },
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods', shortNames: ['po'], categories: ['all'], strategicMerge: { ...META, ...podSpec('spec'), ...CONDITIONS, 'status.podIPs': { mergeKey: 'ip' } } },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', shortNames: ['cm'], shape: 'flat', strategicMerge: META },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', shape: 'flat', strategicMerge: META },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', shortNames: ['svc'], categories: ['all'], strategicMerge: { ...META, 'spec.ports': { mergeKey: 'port' }, ...CONDITIONS } },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', shortNames: ['sa'], shape: 'flat', strategicMerge: { ...META, 'secrets': { mergeKey: 'name' } } },
  { group: '', version: 'v1', kind: 'Event', plural: 'events', shortNames: ['ev'], shape: 'flat', strategicMerge: META },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', scale: true, shortNames: ['deploy'], categories: ['all'], strategicMerge: { ...META, ...podSpec('spec.template.spec'), ...CONDITIONS } },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', scale: true, shortNames: ['rs'], categories: ['all'], strategicMerge: { ...META, ...podSpec('spec.template.spec'), ...CONDITIONS } },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', scale: true, shortNames: ['sts'], categories: ['all'], strategicMerge: { ...META, ...podSpec('spec.template.spec'), ...CONDITIONS } },
  // the Event of client-go's event broadcaster (EventsV1Api): the same stored objects as core Events
  EVENTS_V1,
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', shortNames: ['pvc'], strategicMerge: { ...META, ...CONDITIONS } },
  { group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', shortNames: ['quota'], strategicMerge: META },
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', categories: ['all'], strategicMerge: { ...META, ...podSpec('spec.template.spec'), ...CONDITIONS } },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', shortNames: ['netpol'], statusSubresource: false, strategicMerge: META },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', shape: 'flat', strategicMerge: META },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', shape: 'flat', strategicMerge: META },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false, shape: 'flat', strategicMerge: META },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false, shape: 'flat', strategicMerge: META },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', statusSubresource: false, strategicMerge: META },
  // the eviction subresource (pods/{name}/eviction) respects them; the `disruption` environment actor keeps their status
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', shortNames: ['pdb'], strategicMerge: { ...META, ...CONDITIONS } },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    strategicMerge: { ...META, ...CONDITIONS, 'spec.versions': { mergeKey: 'name' } },
  },
];
