/**
 * A Service exposer configured the way in-cluster deployments are: `kc.loadFromCluster()` reads
 * the API server's address from `KUBERNETES_SERVICE_HOST`/`PORT` and the pod's service account
 * (token, CA, namespace) from /var/run/secrets/kubernetes.io/serviceaccount. It works in its own
 * namespace only (the one of its service account, as a namespaced Role would allow): every
 * Deployment there gets a Service of the same name selecting its pods, port 80 to the first
 * container port, owned by the Deployment. A polling operator: a full resync every 10 s with
 * setInterval, no watch. steadystate hosts it unchanged, each replica with its own token.
 */
import { AppsV1Api, CoreV1Api, KubeConfig, type V1Deployment, type V1Service } from '@kubernetes/client-node';

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const NAME = 'in-cluster-exposer';

const kc = new KubeConfig();
kc.loadFromCluster();
// loadFromCluster takes the namespace from the service account's `namespace` file
const found = kc.getContextObject(kc.getCurrentContext())?.namespace;
if (found === undefined || found === '') throw new Error('no service-account namespace: is this running in a pod?');
const namespace: string = found;
const apps = kc.makeApiClient(AppsV1Api);
const core = kc.makeApiClient(CoreV1Api);

function desired(d: V1Deployment): V1Service {
  const port = d.spec?.template.spec?.containers[0]?.ports?.[0]?.containerPort ?? 8080;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: d.metadata!.name!,
      namespace,
      labels: { [MANAGED_BY]: NAME },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: d.metadata!.name!, uid: d.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec: { selector: { ...(d.spec?.selector.matchLabels ?? {}) }, ports: [{ name: 'http', port: 80, targetPort: port as never }] },
  };
}

function same(have: V1Service, want: V1Service): boolean {
  const p = have.spec?.ports?.[0];
  return JSON.stringify(have.spec?.selector ?? {}) === JSON.stringify(want.spec!.selector) && p?.port === 80 && p.targetPort === want.spec!.ports![0]!.targetPort;
}

const message = (err: unknown): string => (err instanceof Error ? err.message.split('\n')[0]! : String(err));

/**
 * Starts the exposer. `rememberExposed` is the buggy shortcut: a Deployment once handled is
 * skipped from then on, so a later change of its port is never followed and a write that failed
 * (an API error, a conflict) is never tried again.
 */
export function main(options: { rememberExposed: boolean }): void {
  const exposed = new Set<string>();
  let running = false;

  async function resync(): Promise<void> {
    if (running) return;
    running = true;
    try {
      const deployments = await apps.listNamespacedDeployment({ namespace });
      const services = await core.listNamespacedService({ namespace, labelSelector: `${MANAGED_BY}=${NAME}` });
      const byName = new Map(services.items.map((s) => [s.metadata!.name!, s]));
      for (const d of deployments.items) {
        const name = d.metadata!.name!;
        if (d.metadata?.deletionTimestamp) continue;
        if (options.rememberExposed && exposed.has(name)) continue;
        if (options.rememberExposed) exposed.add(name);
        const want = desired(d);
        const have = byName.get(name);
        try {
          if (have === undefined) {
            await core.createNamespacedService({ namespace, body: want });
            console.log(`created service ${namespace}/${name}`);
          } else if (!same(have, want)) {
            await core.replaceNamespacedService({ name, namespace, body: { ...have, spec: { ...have.spec, selector: want.spec!.selector!, ports: want.spec!.ports! } } });
            console.log(`updated service ${namespace}/${name}`);
          }
        } catch (err) {
          // level-triggered: the next resync compares again and retries
          console.error(`syncing ${namespace}/${name} failed: ${message(err)}`);
        }
      }
    } catch (err) {
      console.error(`resync failed: ${message(err)}`);
    } finally {
      running = false;
    }
  }

  setInterval(() => void resync(), 10_000);
  void resync();
  console.log(`${NAME} started in namespace ${namespace}`);
}
