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
  const inf = new Informer(env, { controller: 'c', replica: 0, kind: 'Thing', resyncPeriodMs: 0 });
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
  });

  it('lists in key order, and its cache iterates in key order whatever order the watch brought objects in', async () => {
    const { kernel, store, inf, events } = setup();
    store.create('user', mk('c'));
    store.create('user', mk('a'));
    inf.start();
    expect(events).toEqual(['ADDED:a', 'ADDED:c']);
    store.create('user', mk('b'));
    store.create('user', mk('0'));
    await kernel.run(5);
    expect(events).toEqual(['ADDED:a', 'ADDED:c', 'ADDED:b', 'ADDED:0']);
    expect([...inf.values()].map((o) => o.metadata.name)).toEqual(['0', 'a', 'b', 'c']);
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
    const inf = new Informer(env, { controller: 'c', replica: 0, kind: 'Thing', resyncPeriodMs: 1000 });
    const syncs: number[] = [];
    inf.addHandler((e) => e.type === 'SYNC' && syncs.push(kernel.now()));
    store.create('user', mk('a'));
    inf.start();
    await kernel.run(3500);
    expect(syncs).toEqual([1000, 2000, 3000]);
  });

  // ---- the watch stream is ordered (issue 11): faults delay, lag and replay it, never reorder it

  /** Versions of `a` the handlers saw, in order (`rv` of each event object). */
  function versions(inf: Informer, key = 'a'): number[] {
    const out: number[] = [];
    inf.addHandler((e) => {
      if (e.object.metadata.name === key) out.push(Number(e.object.metadata.resourceVersion));
    });
    return out;
  }

  it('a delayed event holds back every later one of its stream: one object never goes back in time', async () => {
    const { kernel, store, seams, inf } = setup();
    store.create('user', mk('a'));
    inf.start();
    const seen = versions(inf);
    let first = true;
    seams.install({ onWatchEvent: () => (first ? ((first = false), { type: 'delay', ms: 500 }) : undefined) });
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 2 } }); // rv 2, delayed
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 3 } }); // rv 3, behind it
    store.create('user', mk('b'));
    await kernel.run(100);
    expect(seen).toEqual([]);
    expect(inf.get('b')).toBeUndefined(); // the stream is one: b waits too
    await kernel.run(1000);
    expect(seen).toEqual([2, 3]);
    expect(inf.get('a')!.metadata.resourceVersion).toBe('3');
  });

  it('a prompt event (benign variations: a controller sees its own write on time) brings what waits before it, in order', async () => {
    const { kernel, store, seams, inf } = setup();
    store.create('user', mk('a'));
    inf.start();
    const seen = versions(inf);
    let n = 0;
    seams.install({ onWatchEvent: () => (n++ === 0 ? { type: 'delay', ms: 500 } : n === 2 ? undefined : { type: 'prompt' }) });
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 2 } }); // rv 2, delayed 500 ms
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 3 } }); // rv 3, behind it
    await kernel.run(100);
    expect(seen).toEqual([]);
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 4 } }); // rv 4, prompt: 2 and 3 come with it
    await kernel.run(110);
    expect(seen).toEqual([2, 3, 4]);
    await kernel.run(1000);
    expect(seen).toEqual([2, 3, 4]);
  });

  it('a lag holds the stream k events behind, in order, until it ends', async () => {
    const { kernel, store, seams, inf } = setup();
    inf.start();
    seams.install({ onWatchEvent: (i) => (i.t < 1000 ? { type: 'lag', versions: 2, untilMs: 1000 } : undefined) });
    for (let v = 1; v <= 4; v++) {
      if (v === 1) store.create('user', mk('a'));
      else store.patch('user', 'Thing', { name: 'a' }, { spec: { v } });
      await kernel.run(kernel.now() + 10);
    }
    // 4 versions written, 2 held back: the cache shows the 2nd
    expect(inf.get('a')!.spec).toEqual({ v: 2 });
    await kernel.run(1100);
    expect(inf.get('a')!.spec).toEqual({ v: 4 });
  });

  it('a duplicate replays the stream in order and never shows an object older than the stream did', async () => {
    const { kernel, store, seams, inf } = setup();
    store.create('user', mk('a'));
    store.create('user', mk('b'));
    inf.start();
    const seenA = versions(inf, 'a');
    const seenB = versions(inf, 'b');
    let n = 0;
    seams.install({ onWatchEvent: () => (++n === 3 ? { type: 'duplicate', replay: 3, afterMs: 50 } : undefined) });
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 2 } }); // rv 3
    store.patch('user', 'Thing', { name: 'b' }, { spec: { v: 2 } }); // rv 4
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 3 } }); // rv 5: replays rv 3?, 4, 5
    await kernel.run(1000);
    // a's rv 3 is not replayed (a newer version of a was already on the stream); b's 4 and a's 5 are
    expect(seenA).toEqual([3, 5, 5]);
    expect(seenB).toEqual([4, 4]);
    expect(inf.get('a')!.metadata.resourceVersion).toBe('5');
  });

  it('a clean close is re-watched at once, an ERROR event after the back-off; neither loses an event', async () => {
    const { kernel, store, seams, env, inf } = setup();
    inf.start();
    let d: 'close' | 'error' | undefined = 'close';
    seams.install({ onWatchEvent: () => (d === 'close' ? ((d = undefined), { type: 'close' }) : d === 'error' ? ((d = undefined), { type: 'error', status: 500 }) : undefined) });
    store.create('user', mk('a'));
    await kernel.run(5);
    expect(inf.get('a')).toBeDefined(); // re-watched at once from the last version: the event is replayed
    d = 'error';
    store.patch('user', 'Thing', { name: 'a' }, { spec: { v: 2 } });
    await kernel.run(50);
    expect(inf.get('a')!.spec).toEqual({ v: 1 });
    await kernel.run(200);
    expect(inf.get('a')!.spec).toEqual({ v: 2 });
    expect(env.trace.entries.filter((e) => e.type === 'watch:event' && e['decision'] !== 'deliver').map((e) => e['decision'])).toEqual(['close', 'error']);
  });
});
