/**
 * rt round 8, a real client-node 1.4 program: a Job reaper, as clusters had before
 * ttlSecondsAfterFinished (and as many still run for Jobs made by other tools): a raw `Watch` on
 * Jobs labelled `reaper.example.com/ttl-seconds` (re-listed with BatchV1Api, re-watched from the
 * last resourceVersion, and relisted on 410), and a Job that finished (Complete or Failed) more
 * than its TTL ago is deleted, with a uid + resourceVersion precondition (a Job re-created or
 * changed since it was judged is judged again) and `propagationPolicy: Background`.
 *
 * The buggy one deletes without a propagationPolicy: a batch/v1 Job's default is to orphan its
 * Pods (kube-apiserver answers with a Warning), so every reaped Job leaves its finished Pods
 * behind for ever.
 */
import { BatchV1Api, KubeConfig, Watch, type V1Job } from '@kubernetes/client-node';

const LABEL = 'reaper.example.com/ttl-seconds';
const kc = new KubeConfig();
kc.loadFromDefault();
const batch = kc.makeApiClient(BatchV1Api);
const watch = new Watch(kc);

export function main(options: { policy: boolean }): void {
  const jobs = new Map<string, V1Job>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const keyOf = (j: V1Job) => `${j.metadata!.namespace}/${j.metadata!.name}`;

  function finishedAt(j: V1Job): number | undefined {
    const c = (j.status?.conditions ?? []).find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
    if (!c) return undefined;
    const t = j.status?.completionTime ?? c.lastTransitionTime;
    return t ? new Date(t as unknown as string).getTime() : undefined;
  }

  function judge(j: V1Job): void {
    const key = keyOf(j);
    clearTimeout(timers.get(key));
    timers.delete(key);
    if (j.metadata?.deletionTimestamp) return;
    const done = finishedAt(j);
    const ttl = Number(j.metadata?.labels?.[LABEL] ?? 'NaN');
    if (done === undefined || !Number.isFinite(ttl)) return;
    const due = done + ttl * 1000 - Date.now();
    if (due > 0) {
      timers.set(key, setTimeout(() => { const now = jobs.get(key); if (now) judge(now); }, due + 1));
      return;
    }
    void reap(j);
  }

  async function reap(j: V1Job, attempt = 0): Promise<void> {
    const { name, namespace, uid, resourceVersion } = j.metadata as { name: string; namespace: string; uid: string; resourceVersion: string };
    try {
      await batch.deleteNamespacedJob({ name, namespace, ...(options.policy ? { propagationPolicy: 'Background' } : {}), body: { preconditions: { uid, resourceVersion } } });
      console.log(`reaped ${namespace}/${name}`);
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 404) return;
      // 409: changed since we judged it; judge the newer one when its event comes (or retry)
      const delay = Math.min(1000 * 2 ** attempt, 30_000);
      console.error(`delete ${namespace}/${name} failed (${code ?? String(err)}); retry in ${delay} ms`);
      setTimeout(() => { const now = jobs.get(`${namespace}/${name}`); if (now) judge(now); }, delay);
    }
  }

  async function listAndWatch(): Promise<void> {
    let rv: string | undefined;
    try {
      const list = await batch.listJobForAllNamespaces({ labelSelector: LABEL });
      const seen = new Set<string>();
      for (const j of list.items) {
        seen.add(keyOf(j));
        jobs.set(keyOf(j), j);
      }
      for (const k of [...jobs.keys()]) if (!seen.has(k)) { jobs.delete(k); clearTimeout(timers.get(k)); timers.delete(k); }
      for (const j of jobs.values()) judge(j);
      rv = list.metadata?.resourceVersion;
    } catch (err) {
      console.error(`list failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      setTimeout(() => void listAndWatch(), 2_000);
      return;
    }
    const start = (from: string | undefined): void => {
      let last = from;
      let gone = false;
      watch
        .watch('/apis/batch/v1/jobs', { labelSelector: LABEL, allowWatchBookmarks: true, ...(last ? { resourceVersion: last } : {}) }, (type, obj: V1Job & { code?: number }) => {
          if (type === 'ERROR') { gone = obj.code === 410; return; }
          if (obj.metadata?.resourceVersion) last = obj.metadata.resourceVersion;
          if (type === 'BOOKMARK') return;
          const key = keyOf(obj);
          if (type === 'DELETED') { jobs.delete(key); clearTimeout(timers.get(key)); timers.delete(key); return; }
          jobs.set(key, obj);
          judge(obj);
        }, (err) => {
          if (err) console.error(`watch ended: ${err instanceof Error ? err.message : String(err)}`);
          // 410 (or no resourceVersion left): relist; otherwise re-watch from the last one seen
          setTimeout(() => (gone || !last ? void listAndWatch() : start(last)), 1_000);
        })
        .catch((err: unknown) => {
          console.error(`watch failed: ${err instanceof Error ? err.message : String(err)}`);
          setTimeout(() => void listAndWatch(), 2_000);
        });
    };
    start(rv);
  }
  void listAndWatch();
  console.log('job reaper started');
}
