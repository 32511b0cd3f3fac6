// Hostile: a controller with a hot loop (fails no-hot-loop) that, once it is being judged, signals
// the steadystate launcher (its parent process) or burns the event loop with a MessageChannel
// ping-pong (a macrotask loop that is no timer and no microtask chain), or reads the harness's
// marker from process.env and is buggy only without it.
// CLI (each must exit 1, never 0):
//   npx steadystate check scratch/rt/hostile/signals.ts --controller sigterm-parent --runs 20 --seed 1
//   npx steadystate check scratch/rt/hostile/signals.ts --controller sigint-parent --runs 20 --seed 1
//   npx steadystate check scratch/rt/hostile/signals.ts --controller channel-loop --runs 20 --seed 1
import { MessageChannel } from 'node:worker_threads';
import { defineController, type CheckOptions } from 'steadystate';

let fired = false;
function hot(name: string, act: () => void) {
  return defineController({
    name,
    for: 'Widget',
    resyncPeriodMs: 10_000,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet('Widget', ctx.key);
      if (!w) return;
      const n = Number(w.status['n'] ?? 0);
      if (n > 50 && !fired) {
        fired = true;
        act();
      }
      await ctx.client.updateStatus({ ...w, status: { n: n + 1 } });
    },
  });
}

export const sigtermParent = hot('sigterm-parent', () => process.kill(process.ppid, 'SIGTERM'));
export const sigintParent = hot('sigint-parent', () => process.kill(process.ppid, 'SIGINT'));
export const channelLoop = hot('channel-loop', () => {
  const { port1, port2 } = new MessageChannel();
  let i = 0;
  port1.on('message', () => {
    i++;
    if (i === 100_000) throw new Error('thrown from a MessageChannel callback, long after the reconcile');
    port2.postMessage(i);
  });
  port2.postMessage(0);
});
export const checkOptions: CheckOptions = { objects: { kind: 'Widget', spec: [{ size: 1 }] } };
