import { describe, expect, it } from 'vitest';
import { Kernel } from '../../../src/sim/kernel.js';
import { Trace } from '../../../src/sim/trace.js';
import { ObjectStore } from '../../../src/store/store.js';
import { Seams } from '../../../src/runtime/seams.js';
import { Informer, type InformerEvent } from '../../../src/runtime/informer.js';
import type { RuntimeEnv } from '../../../src/runtime/env.js';

function setup(historyLimit = 1000) {
  const kernel = new Kernel();
  const store = new ObjectStore({ clock: kernel.clock, historyLimit });
  const seams = new Seams();
  const env: RuntimeEnv = { kernel, store, seams, trace: new Trace(), watchLatencyMs: 1, rewatchDelayMs: 100, traceReads: false };
  const inf = new Informer(env, { controller: 'c', replica: 0, kind: 'Thing', resyncPeriodMs: 0, keepVersions: 4 });
  const events: string[] = [];
  inf.addHandler((e: InformerEvent) => events.push(`${e.type}:${e.object.metadata.name}${e.tombstone ? ':tombstone' : ''}`));
  return { kernel, store, seams, env, inf, events };
}
const mk = (name: string) => ({ kind: 'Thing', metadata: { name }, spec: { v: 1 } });

describe('Informer', () => {
  it('lists existing objects as ADDED, then streams watch events after the latency', async () => {
    const { kernel, store, inf, events } = setup();
    store.create('user', mk('a'));
    inf.start();
    expect(events).toEqual(['ADDED:a']);
    store.create('user', mk('b'));
    expect(events).toEqual(['ADDED:a']);
    await kernel.run(1);
    expect(events).toEqual(['ADDED:a', 'ADDED:b']);
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 2 } });
    store.delete('user', 'Thing', { name: 'b' });
    await kernel.run(5);
    expect(events).toEqual(['ADDED:a', 'ADDED:b', 'MODIFIED:a', 'DELETED:b']);
    expect(inf.get('a')!.spec).toEqual({ v: 2 });
    expect(inf.get('a', 1)!.spec).toEqual({ v: 1 });
  });

  it('a dropped watch event leaves the cache stale until a relist, which emits the difference', async () => {
    const { kernel, store, seams, inf, events } = setup();
    inf.start();
    let drop = true;
    seams.install({ onWatchEvent: () => (drop ? { type: 'drop' } : undefined) });
    store.create('user', mk('a'));
    await kernel.run(10);
    expect(inf.get('a')).toBeUndefined();
    drop = false;
    inf.relist(false);
    expect(events).toEqual(['ADDED:a']);
  });

  it('a settle-style relist (notifyUnchanged false) repairs the cache without re-notifying unchanged objects', async () => {
    const { kernel, store, inf, events } = setup();
    store.create('user', mk('a'));
    inf.start();
    await kernel.run(5);
    inf.relist(false);
    expect(events).toEqual(['ADDED:a']);
    inf.relist();
    expect(events).toEqual(['ADDED:a', 'SYNC:a']);
  });

  it('re-watches from the last seen version after a disconnect, replaying what it missed', async () => {
    const { kernel, store, seams, inf, events } = setup();
    inf.start();
    let cut = true;
    seams.install({ onWatchEvent: () => (cut ? ((cut = false), { type: 'disconnect' }) : undefined) });
    store.create('user', mk('a')); // this event cuts the stream
    store.create('user', mk('b')); // not seen by the dead stream
    await kernel.run(50);
    expect(events).toEqual([]);
    await kernel.run(200);
    expect(events).toEqual(['ADDED:a', 'ADDED:b']);
  });

  it('relists on 410 Gone and delivers deletions it never saw as tombstones', async () => {
    const { kernel, store, seams, inf, events } = setup(2);
    store.create('user', mk('a'));
    store.create('user', mk('b'));
    inf.start();
    let cut = true;
    seams.install({ onWatchEvent: () => (cut ? ((cut = false), { type: 'disconnect' }) : undefined) });
    store.delete('user', 'Thing', { name: 'a' }); // cuts the stream
    store.create('user', mk('c'));
    store.create('user', mk('d'));
    store.create('user', mk('e')); // history (2 events) no longer covers the last seen version
    await kernel.run(500);
    // as client-go's Replace: unchanged objects are re-notified (SYNC), which repairs lost notifications
    expect(events).toEqual(['ADDED:a', 'ADDED:b', 'SYNC:b', 'ADDED:c', 'ADDED:d', 'ADDED:e', 'DELETED:a:tombstone']);
    expect(inf.get('a')).toBeUndefined();
    expect(inf.size).toBe(4);
  });

  it('resync re-emits every cached object as SYNC on its period', async () => {
    const kernel = new Kernel();
    const store = new ObjectStore({ clock: kernel.clock });
    const env: RuntimeEnv = { kernel, store, seams: new Seams(), trace: new Trace(), watchLatencyMs: 1, rewatchDelayMs: 100, traceReads: false };
    const inf = new Informer(env, { controller: 'c', replica: 0, kind: 'Thing', resyncPeriodMs: 1000, keepVersions: 0 });
    const syncs: number[] = [];
    inf.addHandler((e) => e.type === 'SYNC' && syncs.push(kernel.now()));
    store.create('user', mk('a'));
    inf.start();
    await kernel.run(3500);
    expect(syncs).toEqual([1000, 2000, 3000]);
  });
});
