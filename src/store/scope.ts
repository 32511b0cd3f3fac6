import { isBuiltin, STRUCT_KINDS } from './key-order.js';

/*
 * The scope of the built-in kinds, which kube-apiserver knows from its REST storage and the store
 * otherwise would not: a cluster-scoped object sent with a namespace is stored without one
 * (rest.BeforeCreate: EnsureObjectNamespaceMatchesRequestNamespace), and a namespaced one sent
 * without a namespace has no URL to be created at. Custom kinds keep the store's rule (an empty
 * namespace means cluster-scoped) unless the world declares their scope (a CRD's `scope`).
 */

/**
 * The cluster-scoped built-in kinds of Kubernetes 1.32 (every other kind of {@link STRUCT_KINDS}
 * is namespaced); src/kube-rest/builtin-resources.ts agrees (a test keeps them in step).
 * @internal
 */
export const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  'Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition',
  'ComponentStatus', 'Node', 'PersistentVolume', 'StorageClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'PriorityClass',
  'RuntimeClass', 'IngressClass', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding', 'APIService', 'CertificateSigningRequest', 'FlowSchema', 'PriorityLevelConfiguration',
  'TokenReview', 'SubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SelfSubjectReview',
]);

/** Kinds that are not whole resources (subresources' bodies): no scope rule applies to them. */
const NO_SCOPE: ReadonlySet<string> = new Set(['Binding', 'TokenRequest', 'Eviction', 'Scale', 'LocalSubjectAccessReview']);

/**
 * Whether objects of a built-in `kind` live in a namespace; undefined for a custom kind (and the
 * few built-in kinds that are only subresource bodies), also one named like a built-in in another
 * group (`apiVersion`, when known).
 * @internal
 */
export function builtinNamespaced(kind: string, apiVersion?: string): boolean | undefined {
  if (!isBuiltin(kind, apiVersion) || NO_SCOPE.has(kind)) return undefined;
  return !CLUSTER_SCOPED_KINDS.has(kind);
}
