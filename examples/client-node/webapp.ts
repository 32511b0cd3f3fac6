import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * The custom resource of the client-node example: a WebApp asks for a ConfigMap
 * `<name>-web` holding its settings, and reports `Ready` once that exists.
 */
export const GROUP = 'example.com';
export const VERSION = 'v1';
export const KIND = 'WebApp';
export const PLURAL = 'webapps';
export const API_VERSION = `${GROUP}/${VERSION}`;
/** Held on every WebApp until the controller has cleaned up after it. */
export const FINALIZER = 'example.com/cleanup';
/** Label on the ConfigMaps the controller owns (its ConfigMap informer watches only those). */
export const MANAGED_BY = 'app.kubernetes.io/managed-by=webapp-controller';

export interface WebAppSpec {
  replicas?: number;
  image?: string;
}

export interface WebAppCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface WebAppStatus {
  observedGeneration?: number;
  replicas?: number;
  conditions?: WebAppCondition[];
  lastReconcileTime?: string;
}

export interface WebApp extends KubernetesObject {
  spec?: WebAppSpec;
  status?: WebAppStatus;
}

/** The CustomResourceDefinition, for `kubectl apply` against a real or loopback API server. */
export const webAppCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { kind: KIND, plural: PLURAL, singular: 'webapp', listKind: 'WebAppList' },
    versions: [{ name: VERSION, served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
