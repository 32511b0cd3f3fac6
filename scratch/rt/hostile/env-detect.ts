// Hostile: a controller that is buggy (writes status on every reconcile: a hot loop) unless it sees
// a steadystate marker in its environment. A gate that passes it passes code that hot-loops in
// production. CLI: npx steadystate check scratch/rt/hostile/env-detect.ts --controller env-detect --runs 20 --seed 1
import { defineController, type CheckOptions } from 'steadystate';

const markers = Object.keys(process.env).filter((k) => /STEADYSTATE|VITEST|TSX/i.test(k));
const underHarness = markers.length > 0 || process.argv.some((a) => /steadystate/.test(a));
console.error(`env-detect: markers ${JSON.stringify(markers)}, argv ${JSON.stringify(process.argv)}, under harness: ${underHarness}`);

export const envDetect = defineController({
  name: 'env-detect',
  for: 'Widget',
  resyncPeriodMs: 10_000,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet('Widget', ctx.key);
    if (!w) return;
    if (underHarness && w.status['done'] === true) return;
    await ctx.client.updateStatus({ ...w, status: { done: true, at: ctx.clock.now() } });
  },
});
export const checkOptions: CheckOptions = { objects: { kind: 'Widget', spec: [{ size: 1 }] } };
