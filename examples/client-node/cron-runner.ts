import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';

/**
 * A scheduler written only against `@kubernetes/client-node`, deciding by the clock the way
 * kube's CronJob controller does: a `CronSchedule` (example.com/v1) asks for a run every
 * `spec.everySeconds`; each run is recorded as a ConfigMap `<name>-run-<slot>` (slot: the run's
 * time in seconds since the schedule was created) owned by the schedule, so a create retried
 * after a crash finds it. A slot not started within `spec.deadlineSeconds` of its time is missed,
 * never run late (`startingDeadlineSeconds`), and only the latest slot is looked at (missed ones
 * are not caught up). It wakes every second (a virtual `setInterval`) and lists live.
 */
export const CRON_GROUP = 'example.com';
export const CRON_VERSION = 'v1';
export const CRON_KIND = 'CronSchedule';
export const CRON_PLURAL = 'cronschedules';

interface CronSchedule extends KubernetesObject {
  spec?: { everySeconds?: number; deadlineSeconds?: number };
}

function code(err: unknown): number | undefined {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'number' ? c : undefined;
}

/** One look at every schedule: starts the run of a slot that is due and not started. */
export function cronTick(kc: KubeConfig, now: () => number = () => Date.now()): () => Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  let busy = false;
  return async (): Promise<void> => {
    if (busy) return; // a slow tick is not overlapped by the next
    busy = true;
    try {
      const { items } = await objects.list<CronSchedule>(`${CRON_GROUP}/${CRON_VERSION}`, CRON_KIND);
      for (const s of items) {
        if (s.metadata?.deletionTimestamp) continue;
        const every = Math.max(1, s.spec?.everySeconds ?? 10);
        const deadline = Math.max(0, s.spec?.deadlineSeconds ?? 2);
        const created = new Date(s.metadata!.creationTimestamp!).getTime();
        const since = (now() - created) / 1000;
        if (since < every) continue;
        const slot = Math.floor(since / every) * every;
        if (since - slot > deadline) continue; // missed: never run late
        const name = `${s.metadata!.name!}-run-${slot}`;
        const ran = await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: s.metadata!.namespace! } }).then(
          () => true,
          (err: unknown) => (code(err) === 404 ? false : Promise.reject(err)),
        );
        if (ran) continue;
        try {
          await objects.create({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name,
              namespace: s.metadata!.namespace!,
              labels: { 'cron.example.com/run-of': s.metadata!.name! },
              ownerReferences: [{ apiVersion: `${CRON_GROUP}/${CRON_VERSION}`, kind: CRON_KIND, name: s.metadata!.name!, uid: s.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
            },
            data: { slot: String(slot) },
          } as KubernetesObject);
        } catch (err) {
          if (code(err) !== 409) throw err; // this slot ran meanwhile (a retried create)
        }
      }
    } catch {
      // the next tick tries again
    } finally {
      busy = false;
    }
  };
}

/** Starts the scheduler; returns stop. */
export function startCronRunner(kc: KubeConfig, now: () => number = () => Date.now()): () => Promise<void> {
  const tick = cronTick(kc, now);
  const timer = setInterval(() => void tick(), 1000);
  return async () => {
    clearInterval(timer);
  };
}
