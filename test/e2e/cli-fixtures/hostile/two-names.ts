// SLOPPY: two controllers whose export names and `name`s are crossed (a rename half done). The user
// means the controller *named* "web" (the hot loop) and passes --controller web; pickController
// matches export names first and checks the export `web`, whose controller is named "web-v2".
import { defineController } from '../../../../src/index.js';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';
export const web = defineController({
  name: 'web-v2',
  for: 'ReplicaSet',
  resyncPeriodMs: 5_000,
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number }>('ReplicaSet', ctx.key);
    if (!rs || (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation)) return;
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
  },
});
export const webV2 = makeBuggy('web');
