import type { JsonObject, ReconcileContext, StoredObject } from '../../../src/index.js';
import { ensureOwned } from '../shared/owned.js';
import { sameJson } from '../shared/same-json.js';

/**
 * A `WebApp` runs an image as a Deployment and tells its users, through a `Ready` condition,
 * whether the app is serving. Shared by the buggy and the correct controller: the Deployment it
 * applies. They differ only in what they call Ready.
 */
export const WEBAPP_KIND = 'WebApp';

export interface WebAppSpec {
  image: string;
  replicas: number;
}
export interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
}
export interface WebAppStatus {
  conditions?: Condition[];
  observedGeneration?: number;
}
export type WebApp = StoredObject<WebAppSpec, WebAppStatus>;

/** The Deployment spec for an app (pods labelled with the app's name). */
export function deploymentSpec(app: WebApp): JsonObject {
  const labels = { app: app.metadata.name };
  return {
    replicas: app.spec.replicas,
    selector: { matchLabels: labels },
    template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: app.spec.image }] } },
  };
}

/** Applies the app's Deployment (same name, owned by the app); returns it as written or read. */
export function applyDeployment(ctx: ReconcileContext, app: WebApp): Promise<StoredObject> {
  return ensureOwned(ctx, app, 'Deployment', app.metadata.name, deploymentSpec(app));
}

/** Writes the Ready condition (and observedGeneration) when it changed. */
export async function reportReady(ctx: ReconcileContext, app: WebApp, ready: boolean, reason: string): Promise<void> {
  const status: WebAppStatus = { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason }], observedGeneration: app.metadata.generation };
  // by value: the API server serves a custom resource with its keys sorted, not in the order built here
  if (sameJson(app.status, status)) return;
  await ctx.client.updateStatus({ ...app, status });
}
