/**
 * The Greeting operator with the error handling the framework leaves to its users: a failed
 * reconcile is retried with backoff, on the Greeting as the API server has it, a status write
 * the framework refused (it logs and returns null) counts as a failure, and a change to the
 * ConfigMap it made (an edit, a deletion) is repaired. What it cannot
 * change is the framework itself: it ends the process when a watch fails and throws on a
 * watch's ERROR event (see test/e2e/k8s-operator-framework.test.ts).
 */
import { Operator, ResourceEventType, ensureConfigMap, type Greeting, type ResourceEvent } from './greeting.js';

class GreeterOperator extends Operator {
  /** The latest event per Greeting (what a retry acts on) and its pending retry. */
  private readonly latest = new Map<string, ResourceEvent>();
  private readonly retries = new Map<string, ReturnType<typeof setTimeout>>();

  protected async init(): Promise<void> {
    await this.watchResource('example.com', 'v1', 'greetings', async (e: ResourceEvent) => {
      const key = `${e.meta.namespace ?? ''}/${e.meta.name}`;
      clearTimeout(this.retries.get(key));
      this.retries.delete(key);
      if (e.type === ResourceEventType.Deleted) {
        this.latest.delete(key);
        return;
      }
      this.latest.set(key, e);
      await this.attempt(key, 200);
    });
    // what it made: a ConfigMap someone edited or deleted is its Greeting's to repair
    await this.watchResource('', 'v1', 'configmaps', async (e: ResourceEvent) => {
      if (e.type === ResourceEventType.Added) return;
      const owner = (e.object.metadata?.ownerReferences ?? []).find((r) => r.kind === 'Greeting' && r.controller === true);
      if (owner === undefined) return;
      const key = `${e.meta.namespace ?? ''}/${owner.name}`;
      if (!this.retries.has(key)) await this.attempt(key, 200);
    });
  }

  private async attempt(key: string, backoffMs: number): Promise<void> {
    const e = this.latest.get(key);
    if (e === undefined) return;
    try {
      await this.reconcile(e);
    } catch (err) {
      this.logger.warn(`reconcile of ${key} failed, again in ${backoffMs} ms: ${err instanceof Error ? err.message : String(err)}`);
      this.retries.set(key, setTimeout(() => void this.attempt(key, Math.min(backoffMs * 2, 10_000)), backoffMs));
    }
  }

  private async reconcile(e: ResourceEvent): Promise<void> {
    // the event may be old by now (a retry, another replica's write): act on the Greeting as it is
    const g = await this.liveGreeting(e.meta.namespace ?? 'default', e.meta.name);
    // gone, or being deleted (foreground: the garbage collector is removing its ConfigMap): nothing to make
    if (g === undefined || g.metadata.deletionTimestamp !== undefined) return;
    await ensureConfigMap(this.k8sApi, g);
    // the framework writes status with the resourceVersion given: a newer Greeting gets 409 and null
    const meta = { ...e.meta, resourceVersion: g.metadata.resourceVersion ?? e.meta.resourceVersion };
    if ((await this.patchResourceStatus(meta, { observedGeneration: g.metadata.generation, message: g.spec.message })) === null) throw new Error('status not written');
  }

  /** The Greeting read from the API server (the framework has no reader of custom objects: a fetch with the KubeConfig's credentials). */
  private async liveGreeting(namespace: string, name: string): Promise<Greeting | undefined> {
    const options: { headers?: Record<string, string> } = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const res = await fetch(`${this.k8sApi.basePath}/apis/example.com/v1/namespaces/${namespace}/greetings/${name}`, { headers: options.headers ?? {} });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`GET greeting ${namespace}/${name}: ${res.status}`);
    return (await res.json()) as Greeting;
  }
}

void new GreeterOperator().start();
