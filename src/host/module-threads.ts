import { createRequire, syncBuiltinESMExports } from 'node:module';
import { isMainThread, type Worker } from 'node:worker_threads';

/**
 * Threads the checked code starts in the CLI's own thread (`--workers 0`, `replay`). A thread runs
 * in parallel with the CLI: after the check it could write forged verdict lines to fd 1 or
 * rewrite the shard result before the process exits (red team H5, H6, stop 43). In a worker of
 * the pool such threads end with the worker; here they are ended before the verdict and the
 * reports are written ({@link endModuleThreads}).
 */
const started = new Set<Worker>();
let installed = false;

/**
 * From now on, every `worker_threads.Worker` made in this thread is remembered. Main thread only,
 * once, before the checked module loads. A Proxy, not a subclass, so the original class cannot be
 * reached through the prototype chain; the prototype's `constructor` names the Proxy too.
 * @internal
 */
export function trackModuleThreads(): void {
  if (installed || !isMainThread) return;
  installed = true;
  const require = createRequire(import.meta.url);
  const wt = require('node:worker_threads') as { Worker: typeof Worker };
  const Original = wt.Worker;
  type WorkerClass = new (...args: unknown[]) => Worker;
  const original = Original as unknown as WorkerClass;
  const Tracked: WorkerClass = new Proxy(original, {
    construct(target: WorkerClass, args: unknown[], newTarget: WorkerClass): Worker {
      const w: Worker = Reflect.construct(target, args, newTarget === Tracked ? target : newTarget);
      started.add(w);
      w.once('exit', () => started.delete(w));
      return w;
    },
  });
  Object.defineProperty(Original.prototype, 'constructor', { value: Tracked, writable: true, configurable: true, enumerable: false });
  wt.Worker = Tracked as unknown as typeof Worker;
  syncBuiltinESMExports();
}

/** Ends every thread {@link trackModuleThreads} saw start (and that has not ended). @internal */
export async function endModuleThreads(): Promise<void> {
  const all = [...started];
  started.clear();
  await Promise.all(all.map((w) => w.terminate().catch(() => undefined)));
}
