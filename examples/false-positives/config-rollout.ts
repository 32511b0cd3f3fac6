import { defineController, deployment, podLifecycle, type ReconcileContext } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { deploymentAvailable, shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * An `AppConfig` renders its settings into a ConfigMap (top-level `data`) and runs its image as a
 * Deployment whose pod template carries the hash of that data: when the settings change, the
 * hash changes and the Deployment rolls its pods, so every pod runs the current configuration
 * (the "restart on ConfigMap change" pattern of Reloader and Helm's checksum annotations).
 */
export const APP_CONFIG = 'AppConfig';
const HASH = 'config.example.com/hash';

interface AppConfigSpec {
  image: string;
  replicas: number;
  settings: Record<string, string>;
}
interface AppConfigStatus {
  configHash?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

const hashOf = (data: Record<string, string>): string => shortHash(JSON.stringify(Object.entries(data).sort()));

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const app = await ctx.client.tryGet<AppConfigSpec, AppConfigStatus>(APP_CONFIG, ctx.key, { live: true });
  if (!app || app.metadata.deletionTimestamp !== undefined) return;
  const ns = app.metadata.namespace;
  const owner = [controllerRef(app)];
  const data = { ...app.spec.settings };
  const hash = hashOf(data);
  const cm = await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${app.metadata.name}-config`, namespace: ns, ownerReferences: owner }, data });
  // apply adds and changes entries; entries the settings dropped (or someone added) must go too
  if (hashOf((cm['data'] ?? {}) as Record<string, string>) !== hash) await ctx.client.update({ ...cm, data });
  const labels = { app: app.metadata.name };
  const dep = await apply(ctx, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app.metadata.name, namespace: ns, ownerReferences: owner },
    spec: {
      replicas: app.spec.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { [HASH]: hash } },
        spec: { containers: [{ name: 'app', image: app.spec.image }], volumes: [{ name: 'config', configMap: { name: `${app.metadata.name}-config` } }] },
      },
    },
  });
  const available = deploymentAvailable(dep);
  const conditions = setCondition(
    app.status.conditions,
    { type: 'Ready', status: available ? 'True' : 'False', reason: available ? 'RolledOut' : 'RollingOut', message: `config ${hash}`, observedGeneration: app.metadata.generation },
    ctx.clock.now(),
  );
  await writeStatus(ctx, app, { configHash: hash, observedGeneration: app.metadata.generation, conditions });
}

export const appConfigController = defineController({
  name: 'app-config',
  for: APP_CONFIG,
  owns: ['ConfigMap', 'Deployment'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const configRollout: FalsePositiveCase = {
  name: 'config-rollout',
  description: 'an AppConfig renders a ConfigMap and rolls its Deployment whenever the hash of the config changes',
  controllers: [appConfigController],
  options: {
    objects: {
      kind: APP_CONFIG,
      name: 'shop',
      spec: [
        { image: 'shop:1', replicas: 2, settings: { LOG_LEVEL: 'info' } },
        { image: 'shop:1', replicas: 2, settings: { LOG_LEVEL: 'debug', FEATURE_X: 'on' } },
        { image: 'shop:2', replicas: 1, settings: { LOG_LEVEL: 'info' } },
      ],
    },
    environment: [deployment, podLifecycle],
  },
  properties: podEndStateProperties(),
};
