/**
 * Discrete-event queue ordered by (time, sequence number). The sequence number is the insertion
 * order, so two events at the same virtual time always run in the order they were scheduled.
 * A binary heap keeps push/pop at O(log n) however many timers a world holds.
 * @internal
 */
export interface ScheduledEvent {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class Scheduler {
  private heap: ScheduledEvent[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  schedule(at: number, fn: () => void): ScheduledEvent {
    const ev: ScheduledEvent = { at, seq: this.seq++, fn, cancelled: false };
    const h = this.heap;
    h.push(ev);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p]!;
      if (before(parent, ev)) break;
      h[i] = parent;
      i = p;
    }
    h[i] = ev;
    return ev;
  }

  /** Time of the next live event, or undefined when none is left. */
  peekTime(): number | undefined {
    this.dropCancelled();
    return this.heap[0]?.at;
  }

  pop(): ScheduledEvent | undefined {
    this.dropCancelled();
    return this.popRaw();
  }

  clear(): void {
    this.heap = [];
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) this.popRaw();
  }

  private popRaw(): ScheduledEvent | undefined {
    const h = this.heap;
    const top = h[0];
    if (top === undefined) return undefined;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      const n = h.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && before(h[r]!, h[l]!) ? r : l;
        if (before(last, h[c]!)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

function before(a: ScheduledEvent, b: ScheduledEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
