/**
 * A small class-based operator framework, shaped like the ones operators are written with
 * (`@dot-i/k8s-operator` and friends): subclass `Operator`, register watches in `init()` with
 * `watchResource`, keep a finalizer with `handleResourceFinalizer`, report with
 * `patchResourceStatus`. The KubeConfig comes from `loadFromDefault()`.
 *
 * What such frameworks do when a watch fails differs: some log and `process.exit(1)`, trusting
 * the supervisor to restart the pod (`exitOnWatchError: true`, the buggy variant); others watch
 * again after a pause.
 */
import { CustomObjectsApi, KubeConfig, KubernetesObjectApi, PatchStrategy, Watch, type KubernetesObject } from '@kubernetes/client-node';

/** One event of a watched resource. */
export interface ResourceEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubernetesObject;
}

export interface OperatorOptions {
  /** Exit the process when a watch fails (and let the pod restart) instead of watching again. */
  exitOnWatchError: boolean;
}

export abstract class Operator {
  protected readonly kc = new KubeConfig();
  protected readonly objects: KubernetesObjectApi;
  private readonly custom: CustomObjectsApi;
  /** Events are handled one at a time, in order (as the frameworks do). */
  private queue: Promise<void> = Promise.resolve();
  /** The last version seen of each object: a failed handler is retried with it, after a backoff. */
  private readonly latest = new Map<string, KubernetesObject>();
  private readonly backoff = new Map<string, number>();

  constructor(private readonly options: OperatorOptions) {
    this.kc.loadFromDefault();
    this.objects = KubernetesObjectApi.makeApiClient(this.kc);
    this.custom = this.kc.makeApiClient(CustomObjectsApi);
  }

  /** Registers the watches. */
  protected abstract init(): Promise<void>;

  async start(): Promise<void> {
    await this.init();
    console.log(`${this.constructor.name} started`);
  }

  /** Watches every object of a custom resource (existing ones first, as ADDED) and hands each event to `onEvent`. */
  protected async watchResource(group: string, version: string, plural: string, onEvent: (e: ResourceEvent) => Promise<void>): Promise<void> {
    await this.watchPath(`/apis/${group}/${version}/${plural}`, {}, (e) => {
      const key = `${e.object.metadata?.namespace}/${e.object.metadata?.name}`;
      if (e.type === 'DELETED') this.latest.delete(key);
      else this.latest.set(key, e.object);
      this.handle(key, e, onEvent);
    });
  }

  /**
   * Watches what the operator made (objects at `path` with `labelSelector`) and hands each event
   * to `onChange`: someone else deleting or editing one is drift to repair. A watch started again
   * starts from now (no resourceVersion), so a deletion made while it was down never arrives:
   * `onRewatch` runs each time it starts again, to re-check everything it made.
   */
  protected async watchMade(path: string, labelSelector: string, onChange: (e: ResourceEvent) => void, onRewatch: () => void): Promise<void> {
    await this.watchPath(path, { labelSelector }, onChange, onRewatch);
  }

  /** Handles the last version seen of `key` again, as if it had changed (something it owns did). */
  protected resync(key: string, onEvent: (e: ResourceEvent) => Promise<void>): void {
    const seen = this.latest.get(key);
    if (seen) this.handle(key, { type: 'MODIFIED', object: seen }, onEvent);
  }

  /** Handles the last version seen of every object again (what it made may have changed unseen). */
  protected resyncAll(onEvent: (e: ResourceEvent) => Promise<void>): void {
    for (const key of this.latest.keys()) this.resync(key, onEvent);
  }

  private async watchPath(path: string, query: Record<string, string>, onItem: (e: ResourceEvent) => void, onRewatch?: () => void): Promise<void> {
    const watch = new Watch(this.kc);
    let started = false;
    const start = async (): Promise<void> => {
      const again = started;
      started = true;
      await watch.watch(
        path,
        query,
        (type, object: KubernetesObject) => {
          if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
          onItem({ type, object });
        },
        (err: unknown) => {
          if (err) {
            console.error(`watch on ${path} failed: ${err instanceof Error ? err.message : String(err)}`);
            if (this.options.exitOnWatchError) process.exit(1);
            setTimeout(() => void start(), 2_000);
          } else {
            // the server closed the watch cleanly: watch again
            void start();
          }
        },
      );
      // once the new watch is open, so a change made after the re-check arrives as an event
      if (again) onRewatch?.();
    };
    await start();
  }

  /** Runs the handler for one event, after the ones before it; a failure is retried later with the newest version. */
  private handle(key: string, e: ResourceEvent, onEvent: (e: ResourceEvent) => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      try {
        await onEvent(e);
        this.backoff.delete(key);
      } catch (err) {
        const delay = Math.min((this.backoff.get(key) ?? 250) * 2, 30_000);
        this.backoff.set(key, delay);
        console.error(`handling ${e.type} ${key} failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); retrying in ${delay} ms`);
        // retry from the object as the API has it now: the watch may not have brought the
        // version that made the write conflict yet
        setTimeout(() => {
          const seen = this.latest.get(key);
          if (!seen) return;
          this.objects.read({ apiVersion: seen.apiVersion!, kind: seen.kind!, metadata: { name: seen.metadata!.name!, namespace: seen.metadata!.namespace! } }).then(
            (now) => this.handle(key, { type: 'MODIFIED', object: now }, onEvent),
            (readErr: unknown) => {
              if ((readErr as { code?: unknown } | null)?.code === 404) this.latest.delete(key);
              else this.handle(key, { type: 'MODIFIED', object: seen }, onEvent);
            },
          );
        }, delay);
      }
    });
  }

  /**
   * Keeps `finalizer` on the object while it lives; once it is being deleted, runs `cleanup` and
   * then removes the finalizer. Returns true when the object is being deleted (the event is done).
   */
  protected async handleResourceFinalizer(e: ResourceEvent, finalizer: string, cleanup: (o: KubernetesObject) => Promise<void>): Promise<boolean> {
    const o = e.object;
    const finalizers = o.metadata?.finalizers ?? [];
    const header = { apiVersion: o.apiVersion!, kind: o.kind!, metadata: { name: o.metadata!.name!, namespace: o.metadata!.namespace! } };
    if (o.metadata?.deletionTimestamp) {
      if (!finalizers.includes(finalizer)) return true;
      await cleanup(o);
      try {
        await this.objects.patch({ ...header, metadata: { ...header.metadata, finalizers: finalizers.filter((f) => f !== finalizer), resourceVersion: o.metadata.resourceVersion! } }, undefined, undefined, 'website-operator', undefined, PatchStrategy.MergePatch);
      } catch (err) {
        // already gone: an older event of an object whose finalizer was removed meanwhile
        if ((err as { code?: unknown } | null)?.code !== 404) throw err;
      }
      return true;
    }
    if (e.type !== 'DELETED' && !finalizers.includes(finalizer)) {
      await this.objects.patch({ ...header, metadata: { ...header.metadata, finalizers: [...finalizers, finalizer], resourceVersion: o.metadata!.resourceVersion! } }, undefined, undefined, 'website-operator', undefined, PatchStrategy.MergePatch);
    }
    return e.type === 'DELETED';
  }

  /** Writes the status subresource (a merge of `status`). */
  protected async patchResourceStatus(o: KubernetesObject, group: string, version: string, plural: string, status: Record<string, unknown>): Promise<void> {
    await this.custom.patchNamespacedCustomObjectStatus({ group, version, plural, namespace: o.metadata!.namespace!, name: o.metadata!.name!, body: [{ op: 'add', path: '/status', value: status }] });
  }
}
