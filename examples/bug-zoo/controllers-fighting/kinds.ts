import type { OwnerReference, StoredObject } from '../../../src/index.js';

/**
 * Two controllers share one Deployment: a GitOps sync controller applies the `Application`'s
 * manifest to it, and an autoscaler sets its replica count from a `HorizontalPodAutoscaler`.
 * Both run periodically (as Argo CD's refresh and the HPA's sync period do), so when they
 * disagree about `spec.replicas` they flip it back and forth forever.
 */
export const APP_KIND = 'Application';
export const HPA_KIND = 'HorizontalPodAutoscaler';
export const DEPLOYMENT_KIND = 'Deployment';
/** The sync controller's refresh period (Argo CD: 3 min; compressed). */
export const SYNC_PERIOD_MS = 3_000;
/** The autoscaler's sync period (HPA: 15 s; compressed). */
export const SCALE_PERIOD_MS = 1_500;

export interface ApplicationSpec {
  /** The Deployment this application deploys. @defaultValue the application's name */
  deployment?: string;
  image: string;
  replicas: number;
}
export interface ApplicationStatus {
  sync?: 'Synced';
  observedGeneration?: number;
}

export interface HpaSpec {
  /** Name of the Deployment to scale. */
  scaleTargetRef: string;
  minReplicas: number;
  maxReplicas: number;
}
export interface HpaStatus {
  desiredReplicas?: number;
  /**
   * The other autoscalers that target the same Deployment, by name, when there are any: then
   * none of them scales it (two owners of one field would fight), as a Kubernetes HPA reports
   * `ScalingActive=False` with reason `AmbiguousSelector`.
   */
  ambiguousWith?: string[];
  observedGeneration?: number;
}

export interface DeploymentSpec {
  image: string;
  replicas: number;
}

export type Application = StoredObject<ApplicationSpec, ApplicationStatus>;
export type Hpa = StoredObject<HpaSpec, HpaStatus>;
export type Deployment = StoredObject<DeploymentSpec>;

/** Name of the Deployment an application deploys. */
export function deploymentOf(app: Application): string {
  return app.spec.deployment ?? app.metadata.name;
}

/**
 * The autoscalers (not being deleted) that target the Deployment `name`. Only a sole one scales
 * it: the autoscaler and the sync controller both decide who owns `spec.replicas` from this.
 */
export function autoscalersOf(hpas: readonly Hpa[], name: string): Hpa[] {
  return hpas.filter((h) => h.spec.scaleTargetRef === name && h.metadata.deletionTimestamp === undefined);
}

/** The Deployment belongs to its Application: deleting the application garbage-collects it. */
export function ownerRef(app: Application): OwnerReference {
  return { kind: APP_KIND, name: app.metadata.name, uid: app.metadata.uid, controller: true };
}
