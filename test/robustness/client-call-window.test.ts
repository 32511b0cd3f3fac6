import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { defineController } from '../../src/runtime/define-controller.js';

/**
 * Red team, stop 43 (H0): the client handed the caller's options object to the store inside the
 * call's window (after the run guard's look 'before'), so a getter on it ran there: it installed
 * an Array.prototype.push that dropped the write's two records and put the real one back itself,
 * and the look 'after' saw nothing. A status counter bumped every 100 ms passed every property.
 * Every argument is now read into plain data before the window.
 */
const realPush = Array.prototype.push;
function dropNextWriteRecords(): void {
  let dropped = 0;
  Array.prototype.push = function (this: unknown[], ...items: unknown[]): number {
    const o = items[0] as { verb?: unknown; type?: unknown; kind?: unknown; actor?: unknown } | undefined;
    if (items.length === 1 && o && typeof o === 'object' && o.kind === 'ReplicaSet' && (o.type === 'store:write' || (typeof o.actor === 'string' && o.verb === 'patchStatus'))) {
      if (++dropped >= 2) Array.prototype.push = realPush;
      return this.length;
    }
    return realPush.apply(this, items);
  };
}

function counter(name: string, options: () => object) {
  return defineController({
    name,
    for: 'ReplicaSet',
    predicates: ['GenerationChanged'],
    async reconcile(ctx) {
      const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number; ticks?: number }>('ReplicaSet', ctx.key);
      if (!rs) return;
      const status = { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, ticks: (rs.status.ticks ?? 0) + 1 };
      await ctx.client.patchStatus('ReplicaSet', ctx.key, { status }, options() as never);
      return { requeueAfter: 100 };
    },
  });
}

const options = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }], status: { replicas: 0 } }, runs: 2, seed: 3, shrink: false as const };

describe('a getter on the options of a client call', () => {
  it('cannot hide the write from the records: the status counter bumped every 100 ms fails', async () => {
    const hidden = counter('hidden-status', () => ({
      get resourceVersion(): undefined {
        dropNextWriteRecords();
        return undefined;
      },
    }));
    const r = await check(hidden, options);
    Array.prototype.push = realPush;
    expect(r.ok).toBe(false);
  });

  it('the same loop with plain options fails no-hot-loop (the control)', async () => {
    const r = await check(counter('visible-status', () => ({})), options);
    expect(r.ok ? 'passed' : r.property).toBe('no-hot-loop');
  });
});
