import { defineController } from '../../src/index.js';

/** A Widget's size copied to its status once: a correct controller for judging-path tests. */
export const writer = defineController({
  name: 'writer',
  for: 'Widget',
  sample: { size: 1 },
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<{ size: number }, { size?: number }>('Widget', ctx.key);
    if (!w || w.status.size === w.spec.size) return;
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size } });
  },
});
