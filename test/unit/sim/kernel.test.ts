import { describe, expect, it } from 'vitest';
import { Kernel } from '../../../src/sim/kernel.js';

describe('Kernel', () => {
  it('advances virtual time only through scheduled events', async () => {
    const k = new Kernel();
    const seen: number[] = [];
    k.at(10, () => seen.push(k.now()));
    k.at(3, () => seen.push(k.now()));
    await k.run(100);
    expect(seen).toEqual([3, 10]);
    expect(k.now()).toBe(100);
  });

  it('drains async user code between events (microtasks), then moves time', async () => {
    const k = new Kernel();
    const log: string[] = [];
    k.at(0, () => {
      k.spawn(
        'task',
        async (task) => {
          log.push(`start@${k.now()}`);
          await Promise.resolve();
          await k.sleep(task, 50);
          log.push(`woke@${k.now()}`);
          await k.sleep(task, 25);
          log.push(`woke@${k.now()}`);
        },
        (err, failed) => log.push(`done failed=${failed} ${String(err)}`),
      );
    });
    await k.run(1000);
    expect(log).toEqual(['start@0', 'woke@50', 'woke@75', 'done failed=false undefined']);
  });

  it('reports a rejected task through onSettled', async () => {
    const k = new Kernel();
    let got: unknown;
    k.at(0, () => k.spawn('t', async () => { throw new Error('boom'); }, (err) => (got = err)));
    await k.run(10);
    expect((got as Error).message).toBe('boom');
  });

  it('declares a task that waits on something outside the simulation blocked, instead of hanging', async () => {
    const k = new Kernel({ blockedAfterMacrotasks: 5 });
    const blocked: string[] = [];
    k.onBlocked = (b) => blocked.push(b.task.label);
    let settled = false;
    k.at(0, () => k.spawn('never', () => new Promise<void>(() => {}), () => (settled = true)));
    k.at(10, () => {});
    await k.run(20);
    expect(blocked).toEqual(['never']);
    expect(settled).toBe(false);
    expect(k.now()).toBe(20);
  });

  it('keeps parked tasks alive across long virtual waits without declaring them blocked', async () => {
    const k = new Kernel({ blockedAfterMacrotasks: 2 });
    const blocked: string[] = [];
    k.onBlocked = (b) => blocked.push(b.task.label);
    let done = false;
    k.at(0, () => k.spawn('sleeper', async (t) => { await k.sleep(t, 1_000_000); }, () => (done = true)));
    await k.run(2_000_000);
    expect(blocked).toEqual([]);
    expect(done).toBe(true);
  });

  it('runs a million-step loop of virtual sleeps quickly (no macrotask per step)', async () => {
    const k = new Kernel();
    let n = 0;
    k.at(0, () => k.spawn('loop', async (t) => { for (let i = 0; i < 20_000; i++) { await k.sleep(t, 1); n++; } }, () => {}));
    await k.run(1e9);
    expect(n).toBe(20_000);
  });
});
