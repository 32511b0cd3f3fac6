import { describe, expect, it } from 'vitest';
import { check, defineController, replay, toReportModel, toReproductionFile } from '../../src/index.js';
import { noHotLoop } from '../../properties/index.js';

/**
 * A replay whose trace is identical to the recorded one sees the very run that failed: a different
 * verdict can only come from a changed judge. For a built-in property of this steadystate version
 * that judge is ours, so a pass means something replaced what it computes with (a built-in
 * patched by the code under test; red team N12, stop 41): the replay fails instead of reporting a fix.
 */
const hot = defineController({
  name: 'hot',
  for: 'ReplicaSet',
  sample: { replicas: 2 },
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, { ticks?: number }>('ReplicaSet', ctx.key);
    if (!rs) return;
    await ctx.client.updateStatus({ ...rs, status: { ticks: (rs.status.ticks ?? 0) + 1 } });
    return { requeueAfter: 1000 };
  },
});

describe('replay: an identical trace with a different verdict is never a fix (red team N12)', () => {
  it('a no-hot-loop whose judge now says "holds" on the very run that failed: the replay fails, saying the judging changed', async () => {
    // no determinism self-check: it ran the hot loop twice more, and the replay below checks the trace
    const result = await check(hot, { runs: 1, seed: 1, properties: [noHotLoop()], faults: [], shrink: false, determinism: false });
    expect(result.ok).toBe(false);
    const file = toReproductionFile(toReportModel(result) as Parameters<typeof toReproductionFile>[0]);
    // the same property, but its judge tampered with (as a patched built-in would make it)
    const real = noHotLoop();
    const tampered = { ...real, judge: () => ({ ok: true as const }) };
    const r = await replay(hot, file, { properties: [tampered], faults: [] });
    expect(r.mismatches).toEqual([]);
    expect(r.sameTrace).toBe(true);
    expect(r.failure).toBeNull();
    expect(r.ok).toBe(false);
    expect(r.nondeterminism?.summary).toMatch(/the trace is identical to the one the check recorded, yet no-hot-loop now holds of it/);
  });
});
