/**
 * The Greeting operator as the framework's README shows handlers: it acts on each event once. A
 * handler that throws (a 500, a 409 from a concurrent write) loses the event: the framework's
 * queue drops the error silently and moves on, so the Greeting waits for its next change.
 */
import { Operator, ResourceEventType, ensureConfigMap, type Greeting, type ResourceEvent } from './greeting.js';

class GreeterOperator extends Operator {
  protected async init(): Promise<void> {
    await this.watchResource('example.com', 'v1', 'greetings', async (e: ResourceEvent) => {
      if (e.type === ResourceEventType.Deleted) return;
      const g = e.object as unknown as Greeting;
      await ensureConfigMap(this.k8sApi, g);
      await this.patchResourceStatus(e.meta, { observedGeneration: g.metadata.generation, message: g.spec.message });
    });
  }
}

void new GreeterOperator().start();
