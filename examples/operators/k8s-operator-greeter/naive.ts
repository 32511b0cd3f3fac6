/**
 * The Greeting operator as the framework's README shows handlers: it acts on each event once. A
 * handler that throws (a 500, a 409 from a concurrent write) loses the event: the framework's
 * queue drops the error silently and moves on, so the Greeting waits for its next change.
 */
import { Operator, ResourceEventType, configMapOf, statusOf, type Greeting, type ResourceEvent } from './greeting.js';

class GreeterOperator extends Operator {
  protected async init(): Promise<void> {
    await this.watchResource('example.com', 'v1', 'greetings', async (e: ResourceEvent) => {
      if (e.type === ResourceEventType.Deleted) return;
      const g = e.object as unknown as Greeting;
      const want = configMapOf(g);
      try {
        const { body: cm } = await this.k8sApi.readNamespacedConfigMap(want.metadata.name, want.metadata.namespace);
        if (cm.data?.['message'] !== g.spec.message) await this.k8sApi.replaceNamespacedConfigMap(want.metadata.name, want.metadata.namespace, { ...cm, data: want.data });
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
        await this.k8sApi.createNamespacedConfigMap(want.metadata.namespace, want);
      }
      await this.patchResourceStatus(e.meta, { observedGeneration: g.metadata.generation, message: g.spec.message });
    });
  }
}

void new GreeterOperator().start();
