/**
 * A KEDA-like queue scaler, written the way client-node scripts are: every 2 s it lists the queue
 * ConfigMaps (label `example.com/scales`: the Deployment it sizes; `data.length`, and
 * `perReplica`, `minReplicas`, `maxReplicas`) and sizes each Deployment to
 * `ceil(length / perReplica)` clamped to [minReplicas, maxReplicas] through the scale subresource
 * (`readNamespacedDeploymentScale`, then `replaceNamespacedDeploymentScale` with the Scale as read:
 * conditional on its resourceVersion, a 409 is left to the next poll). A failed pass is logged and
 * the next poll tries again. Its buggy twin scales an idle queue to zero whatever `minReplicas` says.
 */
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { desiredOf, int, LABEL } from './queue.js';

const POLL_MS = 2_000;

const kc = new KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);

async function pass(idleToZero: boolean): Promise<void> {
  const queues = await core.listConfigMapForAllNamespaces({ labelSelector: LABEL });
  for (const cm of queues.items) {
    const namespace = cm.metadata?.namespace ?? 'default';
    const name = cm.metadata?.labels?.[LABEL] ?? '';
    const desired = idleToZero && int(cm.data?.['length'], 0) === 0 ? 0 : desiredOf(cm.data);
    try {
      const scale = await apps.readNamespacedDeploymentScale({ name, namespace });
      if (scale.spec?.replicas === desired) continue;
      await apps.replaceNamespacedDeploymentScale({ name, namespace, body: { ...scale, spec: { replicas: desired } } });
      console.log(`scaled ${namespace}/${name} to ${desired}`);
    } catch (err) {
      console.error(`could not scale ${namespace}/${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
}

/** Polls forever (one pass at a time); `idleToZero` is the buggy twin's rule. */
export function main(options: { idleToZero: boolean }): void {
  const loop = (): void => {
    pass(options.idleToZero)
      .catch((err: unknown) => console.error(`pass failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`))
      .finally(() => setTimeout(loop, POLL_MS));
  };
  loop();
  console.log('queue scaler started');
}
