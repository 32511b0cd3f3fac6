// Red team, stop 43 (H1): the regression corpus (reports/corpus/<controller>/) was read after the
// module was imported, so a module that erased it at import skipped the replay of the failures
// earlier checks saved. The controller hot-loops only when replicas is 3: a check whose own runs
// miss that spec passed although the corpus held the failing scenario. H1c: the failure a check
// found was saved by the thread that runs the module, whose interval deleted it at once; the CLI
// now saves it itself after the checked code ended.
import { existsSync, rmSync } from 'node:fs';
import { defineController } from '../../../../src/index.js';

if (process.env['STEADYSTATE_TEST_NO_WIPE'] === undefined) {
  rmSync('reports/corpus', { recursive: true, force: true });
  const every = globalThis.setInterval;
  const t = every(() => {
    if (existsSync('reports/corpus')) rmSync('reports/corpus', { recursive: true, force: true });
  }, 1);
  (t as { unref?: () => void }).unref?.();
}

export const corpusWipe = defineController({
  name: 'corpus-wipe',
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number; ticks?: number; at?: number }>('ReplicaSet', ctx.key);
    if (!rs) return;
    const st = rs.status;
    if (rs.spec.replicas !== 3 && st.replicas === rs.spec.replicas && st.observedGeneration === rs.metadata.generation) return;
    // the loop stamps every 100 virtual ms, not on its own write's event (~1000 writes/s, slow to simulate and judge)
    const now = ctx.clock.now();
    if (rs.spec.replicas === 3 && st.replicas === 3 && st.observedGeneration === rs.metadata.generation && now - (st.at ?? -Infinity) < 100) return { requeueAfter: 100 };
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, ticks: (st.ticks ?? 0) + 1, at: now } });
    return rs.spec.replicas === 3 ? { requeueAfter: 100 } : undefined;
  },
});

export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }, { replicas: 2 }, { replicas: 3 }] } };
