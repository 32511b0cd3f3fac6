// HOLE H5 (red team, stop 40): buggy (a hot loop) except when `steadystate replay` runs it, which it
// tells from process.argv. The check fails it; its replay, with the code unchanged, said "the code
// changed … PASS now satisfies no-hot-loop". The reproduction now records a digest of the code: the
// same code with a different run is never a fix. Since stop 43 the checked code sees one argv under
// check and replay (red team F5), so it tells them apart by the thread: the check runs it in a
// worker (the default), the replay in the CLI's own thread.
import { isMainThread } from 'node:worker_threads';
import { defineController } from '../../../../src/index.js';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

const replaying = isMainThread;
const hot = makeBuggy('detects-replay');
export const detectsReplay = defineController({
  name: 'detects-replay',
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  async reconcile(ctx) {
    if (!replaying) return hot.reconcile(ctx);
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
    if (!rs || (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation)) return;
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
  },
});
