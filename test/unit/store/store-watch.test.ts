import { describe, expect, it } from 'vitest';
import { GoneError, isStoreError } from '../../../src/store/errors.js';
import type { WatchEvent } from '../../../src/store/store.js';
import { collect, makeStore, ref, thrown, widget } from './helpers.js';

describe('ObjectStore.watch', () => {
  it('without a version: streams only live ADDED / MODIFIED / DELETED events of the kind', () => {
    const { store } = makeStore();
    store.create('user', widget('before'));
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    const a = store.create('user', widget('a'));
    store.create('user', { kind: 'Gadget', metadata: { name: 'g' } });
    store.update('user', { ...a, spec: { replicas: 2 } });
    store.delete('user', 'Widget', ref('a'));
    expect(c.summary()).toEqual(['ADDED a@2', 'MODIFIED a@4', 'DELETED a@5']);
    expect(c.events[1]!.object.spec).toEqual({ replicas: 2 });
    expect(c.events.map((e) => e.object.metadata.resourceVersion)).toEqual(['2', '4', '5']);
  });

  it('from a resourceVersion: replays the retained events newer than it, then streams live', () => {
    const { store } = makeStore();
    store.create('user', widget('a')); // 1
    store.create('user', widget('b')); // 2
    store.patch('user', 'Widget', ref('a'), { spec: { x: 1 } }); // 3
    store.delete('user', 'Widget', ref('b')); // 4
    const c = collect();
    store.watch('Widget', 1, c.fn);
    expect(c.summary()).toEqual(['ADDED b@2', 'MODIFIED a@3', 'DELETED b@4']);
    store.create('user', widget('c'));
    expect(c.summary()).toEqual(['ADDED b@2', 'MODIFIED a@3', 'DELETED b@4', 'ADDED c@5']);
  });

  it('from 0 replays everything retained; from the current version replays nothing', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    store.create('user', widget('b'));
    const all = collect();
    store.watch('Widget', 0, all.fn);
    expect(all.summary()).toEqual(['ADDED a@1', 'ADDED b@2']);
    const none = collect();
    store.watch('Widget', store.currentResourceVersion(), none.fn);
    expect(none.events).toEqual([]);
  });

  it('from a version in the future: sends nothing up to that version', () => {
    const { store } = makeStore();
    const c = collect();
    store.watch('Widget', 2, c.fn);
    store.create('user', widget('a')); // 1
    store.create('user', widget('b')); // 2
    store.create('user', widget('c')); // 3
    expect(c.summary()).toEqual(['ADDED c@3']);
  });

  it('filters by namespace (replay and live); an empty namespace means all', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    store.create('user', widget('b', {}, { namespace: 'other' }));
    const ns = collect();
    const all = collect();
    store.watch('Widget', 0, ns.fn, { namespace: 'other' });
    store.watch('Widget', 0, all.fn, { namespace: '' });
    store.create('user', widget('c', {}, { namespace: 'other' }));
    store.create('user', widget('d'));
    expect(ns.summary()).toEqual(['ADDED b@2', 'ADDED c@3']);
    expect(all.summary()).toEqual(['ADDED a@1', 'ADDED b@2', 'ADDED c@3', 'ADDED d@4']);
  });

  it('stop() ends the stream', () => {
    const { store } = makeStore();
    const c = collect();
    const w = store.watch('Widget', undefined, c.fn);
    store.create('user', widget('a'));
    w.stop();
    store.create('user', widget('b'));
    expect(c.summary()).toEqual(['ADDED a@1']);
  });

  it('no-op writes emit no event', () => {
    const { store } = makeStore();
    const a = store.create('user', widget('a', { replicas: 1 }, { finalizers: ['f'] }));
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    store.update('user', a);
    store.patch('user', 'Widget', ref('a'), { spec: { replicas: 1 } });
    store.updateStatus('user', a);
    store.delete('user', 'Widget', ref('a'));
    store.delete('user', 'Widget', ref('a')); // second delete: no-op
    expect(c.summary()).toEqual(['MODIFIED a@2']);
  });

  it('failed writes emit no event', () => {
    const { store } = makeStore();
    const a = store.create('user', widget('a'));
    store.patch('user', 'Widget', ref('a'), { spec: { x: 1 } });
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    expect(() => store.update('user', { ...a, spec: { x: 2 } })).toThrow();
    expect(() => store.create('user', widget('a'))).toThrow();
    expect(() => store.delete('user', 'Widget', ref('zz'))).toThrow();
    expect(c.events).toEqual([]);
  });

  it('the history is bounded: a version older than it gets 410 Gone (historyLimit)', () => {
    const { store } = makeStore({ historyLimit: 3 });
    for (let i = 1; i <= 5; i++) store.create('user', widget(`w${i}`)); // rv 1..5, retains 3..5
    const err = thrown(() => store.watch('Widget', 1, () => {}));
    expect(err).toBeInstanceOf(GoneError);
    expect((err as GoneError).code).toBe(410);
    expect((err as GoneError).reason).toBe('Gone');
    expect(isStoreError(err, 'Gone')).toBe(true);
    expect(() => store.watch('Widget', 0, () => {})).toThrow(GoneError);
    // the oldest evicted event is rv 2, so a watch from 2 is still complete
    const c = collect();
    store.watch('Widget', 2, c.fn);
    expect(c.summary()).toEqual(['ADDED w3@3', 'ADDED w4@4', 'ADDED w5@5']);
    // a live-only watch never gets 410
    expect(() => store.watch('Widget', undefined, () => {})).not.toThrow();
  });

  it('the bound is per kind: another kind\'s traffic does not evict this kind\'s history', () => {
    const { store } = makeStore({ historyLimit: 2 });
    store.create('user', widget('a')); // 1
    for (let i = 0; i < 10; i++) store.create('user', { kind: 'Gadget', metadata: { name: `g${i}` } });
    const c = collect();
    store.watch('Widget', 0, c.fn);
    expect(c.summary()).toEqual(['ADDED a@1']);
    expect(() => store.watch('Gadget', 0, () => {})).toThrow(GoneError);
  });

  it('the default history keeps 1000 events', () => {
    const { store } = makeStore();
    for (let i = 0; i < 1001; i++) store.create('user', { kind: 'W', metadata: { name: `w${i}` } });
    expect(() => store.watch('W', 0, () => {})).toThrow(GoneError);
    const c = collect();
    store.watch('W', 1, c.fn);
    expect(c.events).toHaveLength(1000);
  });

  it('keeps working after many evictions (history array compaction)', () => {
    const { store } = makeStore({ historyLimit: 5 });
    for (let i = 0; i < 3000; i++) store.create('user', { kind: 'W', metadata: { name: `w${i}` } });
    const c = collect();
    store.watch('W', 2995, c.fn);
    expect(c.events.map((e) => e.rv)).toEqual([2996, 2997, 2998, 2999, 3000]);
    expect(() => store.watch('W', 2994, () => {})).toThrow(GoneError);
  });

  it('compact() forces 410 for every older version, for one kind or for all', () => {
    const { store } = makeStore();
    store.create('user', widget('a')); // 1
    store.create('user', { kind: 'Gadget', metadata: { name: 'g' } }); // 2
    store.compact('Widget');
    expect(() => store.watch('Widget', 0, () => {})).toThrow(GoneError);
    expect(() => store.watch('Widget', 1, () => {})).toThrow(GoneError);
    expect(() => store.watch('Gadget', 0, () => {})).not.toThrow();
    const c = collect();
    store.watch('Widget', 2, c.fn); // the current version is fine
    store.create('user', widget('b'));
    expect(c.summary()).toEqual(['ADDED b@3']);
    store.compact();
    expect(() => store.watch('Gadget', 2, () => {})).toThrow(GoneError);
    expect(() => store.watch('Gadget', 3, () => {})).not.toThrow();
  });

  it('compact() does not disturb running watches', () => {
    const { store } = makeStore();
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    store.create('user', widget('a'));
    store.compact();
    store.create('user', widget('b'));
    expect(c.summary()).toEqual(['ADDED a@1', 'ADDED b@2']);
  });

  it('bookmark() sends a BOOKMARK with the current resourceVersion to every watcher of the kind', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    store.create('user', widget('b', {}, { namespace: 'other' }));
    const all = collect();
    const ns = collect();
    const gadgets = collect();
    store.watch('Widget', undefined, all.fn);
    store.watch('Widget', undefined, ns.fn, { namespace: 'default' });
    store.watch('Gadget', undefined, gadgets.fn);
    store.bookmark('Widget');
    for (const c of [all, ns]) {
      expect(c.events).toHaveLength(1);
      expect(c.events[0]!.type).toBe('BOOKMARK');
      expect(c.events[0]!.rv).toBe(2);
      expect(c.events[0]!.object.metadata.resourceVersion).toBe('2');
    }
    expect(gadgets.events).toEqual([]);
    store.bookmark('Nobody'); // no watchers: nothing happens
  });

  it('bookmarks are not retained in the history and do not bump the resourceVersion', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    store.bookmark('Widget');
    expect(store.currentResourceVersion()).toBe(1);
    const c = collect();
    store.watch('Widget', 0, c.fn);
    expect(c.summary()).toEqual(['ADDED a@1']);
  });

  it('a watcher that writes from its callback sees the events in order, and so does every other watcher', () => {
    const { store } = makeStore();
    const first: WatchEvent[] = [];
    const second = collect();
    store.watch('Widget', undefined, (ev) => {
      first.push(ev);
      if (ev.type === 'ADDED' && ev.object.metadata.name === 'a') store.create('user', widget('b'));
    });
    store.watch('Widget', undefined, second.fn);
    store.create('user', widget('a'));
    expect(first.map((e) => e.rv)).toEqual([1, 2]);
    expect(second.summary()).toEqual(['ADDED a@1', 'ADDED b@2']);
  });

  it('a watch started from a callback gets each event exactly once', () => {
    const { store } = makeStore();
    const late = collect();
    let started = false;
    store.watch('Widget', undefined, () => {
      if (!started) {
        started = true;
        store.watch('Widget', 0, late.fn);
      }
    });
    store.create('user', widget('a'));
    store.create('user', widget('b'));
    expect(late.summary()).toEqual(['ADDED a@1', 'ADDED b@2']);
  });

  it('a watcher stopped by an earlier callback receives nothing more', () => {
    const { store } = makeStore();
    const victim = collect();
    let handle: { stop(): void } | undefined;
    store.watch('Widget', undefined, () => handle?.stop());
    handle = store.watch('Widget', undefined, victim.fn);
    store.create('user', widget('a'));
    expect(victim.events).toEqual([]);
  });

  it('writes made during a replay are delivered after the replay, in order', () => {
    const { store } = makeStore();
    store.create('user', widget('a')); // 1
    store.create('user', widget('b')); // 2
    const seen: number[] = [];
    store.watch('Widget', 0, (ev) => {
      seen.push(ev.rv);
      if (ev.rv === 1) store.create('user', widget('c')); // 3, written while replaying
    });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('a write from onWrite keeps the history in resourceVersion order', () => {
    let once = false;
    const { store } = makeStore({
      onWrite: (w) => {
        if (!once && w.verb === 'create') {
          once = true;
          store.create('environment:echo', widget('echo'));
        }
      },
    });
    store.create('user', widget('a'));
    const c = collect();
    store.watch('Widget', 0, c.fn);
    expect(c.events.map((e) => e.rv)).toEqual([1, 2]);
  });
});
