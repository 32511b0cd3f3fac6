/**
 * Host fixture: a leader elector that stamps its Lease with a plain Date. client-node sends it
 * with three fractional digits, which kube-apiserver refuses (a Lease's times are MicroTimes), so
 * it never leads and never writes the status of its Echo objects: an inert program.
 */
import { CoordinationV1Api, CustomObjectsApi, KubeConfig, V1MicroTime } from '@kubernetes/client-node';

const kc = new KubeConfig();
kc.loadFromDefault();
const leases = kc.makeApiClient(CoordinationV1Api);
const objects = kc.makeApiClient(CustomObjectsApi);
const identity = process.env['HOSTNAME'] ?? 'me';
const stamp = (): Date => (process.argv.includes('--micro') ? new V1MicroTime() : new Date());

async function tick(): Promise<void> {
  try {
    await leases.createNamespacedLease({ namespace: 'default', body: { metadata: { name: 'echo-leader' }, spec: { holderIdentity: identity, leaseDurationSeconds: 15, acquireTime: stamp(), renewTime: stamp() } } });
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code !== 409) {
      console.error(`lease: ${code ?? String(err)}`);
      return;
    }
  }
  const list = (await objects.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'echoes' })) as { items: { metadata: { name: string }; spec: { message: string } }[] };
  for (const e of list.items) await objects.patchNamespacedCustomObjectStatus({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'echoes', name: e.metadata.name, body: [{ op: 'add', path: '/status', value: { echo: e.spec.message } }] });
}

setInterval(() => void tick(), 2_000);
