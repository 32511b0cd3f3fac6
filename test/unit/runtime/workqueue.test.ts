import { describe, expect, it } from 'vitest';
import { Kernel } from '../../../src/sim/kernel.js';
import { defaultRateLimiter } from '../../../src/runtime/rate-limiter.js';
import { WorkQueue } from '../../../src/runtime/workqueue.js';

function makeQueue() {
  const k = new Kernel();
  let ready = 0;
  const q = new WorkQueue(k, defaultRateLimiter(), () => ready++);
  return { k, q, ready: () => ready };
}

describe('WorkQueue', () => {
  it('collapses duplicate keys (set semantics) and keeps FIFO order', () => {
    const { q } = makeQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(q.get()).toBe('a');
    expect(q.get()).toBe('b');
    expect(q.get()).toBeUndefined();
  });

  it('never hands a key being processed to a second worker; re-added keys come back after done', () => {
    const { q } = makeQueue();
    q.add('a');
    expect(q.get()).toBe('a');
    q.add('a');
    expect(q.get()).toBeUndefined();
    q.done('a');
    expect(q.get()).toBe('a');
    q.done('a');
    expect(q.get()).toBeUndefined();
  });

  it('addAfter delivers at the virtual time and keeps the earliest of several', async () => {
    const { k, q } = makeQueue();
    q.addAfter('a', 500);
    q.addAfter('a', 100);
    q.addAfter('a', 900);
    const seen: number[] = [];
    k.at(0, () => {});
    for (const t of [99, 100, 101]) k.at(t, () => seen.push(q.length));
    await k.run(1000);
    expect(seen).toEqual([0, 1, 1]);
    expect(q.get()).toBe('a');
    expect(q.get()).toBeUndefined();
  });

  it('addRateLimited backs off exponentially until forget', async () => {
    const { q } = makeQueue();
    expect(q.addRateLimited('a')).toBe(5);
    expect(q.addRateLimited('a')).toBe(10);
    expect(q.addRateLimited('a')).toBe(20);
    expect(q.numRequeues('a')).toBe(3);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    expect(q.addRateLimited('a')).toBe(5);
  });

  it('shutdown drops queued and delayed work', async () => {
    const { k, q } = makeQueue();
    q.add('a');
    q.addAfter('b', 10);
    q.shutdown();
    await k.run(100);
    expect(q.get()).toBeUndefined();
    q.add('c');
    expect(q.get()).toBeUndefined();
  });
});
