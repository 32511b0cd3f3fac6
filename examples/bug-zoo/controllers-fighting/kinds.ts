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

/** The apps/v1 Deployment fields the controllers use (a real cluster requires the selector and the template). */
export interface DeploymentSpec {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> }; spec: { containers: { name: string; image: string }[] } };
}

/** The spec of the Deployment `name` running `image`: one container, selected by an `app` label. */
export function deploymentSpec(name: string, image: string, replicas: number): DeploymentSpec {
  const labels = { app: name };
  return { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image }] } } };
}

/** The image a Deployment runs (its first container's). */
export function imageOf(dep: Deployment): string | undefined {
  return dep.spec.template?.spec?.containers?.[0]?.image;
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
