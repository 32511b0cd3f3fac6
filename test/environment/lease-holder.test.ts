import { describe, expect, it } from 'vitest';
import { leaseHolder } from '../../src/environment/lease-holder.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { create, obj, runEnv, stepTimes } from './helpers.js';

const worker = defineController({
  name: 'worker',
  for: 'Task',
  leaderElection: true,
  async reconcile(ctx) {
    const t = await ctx.client.tryGet('Task', ctx.key);
    if (t && t.status['done'] !== true) await ctx.client.updateStatus({ ...t, status: { done: true } });
  },
});

describe('leaseHolder', () => {
  it('holds the leader lease so the controller waits, then releases it and the controller takes over', async () => {
    const { run } = await runEnv({
      controllers: [worker],
      environment: [{ name: 'lease-holder', params: { controller: 'worker', holdMs: 20_000 } }],
      workload: [create(1000, obj('Task', 'a'))],
      faultWindowMs: 30_000,
    });
    expect(stepTimes(run, 'lease:acquired')).toEqual([0]);
    expect(stepTimes(run, 'lease:released')).toEqual([20_000]);
    const leaderAt = run.trace.find((e) => e.type === 'controller:leader' && e['leader'] === true)!.t;
    // the replica retries every 2 s; its retry at 20 s runs just before the release, so it wins at 22 s
    expect(leaderAt).toBe(22_000);
    const done = run.writes.find((w) => w.kind === 'Task' && w.verb === 'updateStatus')!;
    expect(done).toMatchObject({ t: 22_000, actor: 'controller:worker/0' });
    // the holder renewed while it held the lease
    expect(run.writes.filter((w) => w.actor === 'environment:lease-holder' && w.kind === 'Lease').length).toBeGreaterThan(5);
  });

  it('waits for a held lease to expire before taking it', async () => {
    const { run } = await runEnv({
      controllers: [worker],
      environment: [{ name: 'lease-holder', params: { controller: 'worker', fromMs: 5000, holdMs: 40_000 } }],
      workload: [],
      faultWindowMs: 60_000,
    });
    // the controller took the lease at 0 and renews it every 10 s, so it never expires
    expect(stepTimes(run, 'lease:acquired')).toEqual([]);
    expect(run.trace.filter((e) => e.type === 'controller:leader').map((e) => e['leader'])).toEqual([true]);
  });

  it('needs a lease or a controller name', () => {
    expect(() => leaseHolder.resolve({})).toThrow(/give params\.lease \(a Lease name\) or params\.controller/);
  });
});
