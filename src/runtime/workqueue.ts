import type { Kernel } from '../sim/kernel.js';
import type { ScheduledEvent } from '../sim/scheduler.js';
import type { RateLimiter } from './rate-limiter.js';

/** A key's state bits in {@link WorkQueue}: waiting to be processed (again), being processed. */
const DIRTY = 1;
const PROCESSING = 2;

/**
 * client-go's rate-limiting workqueue: a set (duplicate keys collapse), a key is never handed
 * to two workers at once (re-added while processing → processed again after `done`), delayed
 * adds keep the earliest ready time, and failures back off through the rate limiter.
 * @internal
 */
export class WorkQueue {
  private items: string[] = [];
  private head = 0;
  /**
   * DIRTY and PROCESSING bits per key. A key's entry is kept at 0 rather than deleted: a hash
   * table that keeps emptying reallocates on every delete, and a queue cycles each key through
   * these states on every reconcile.
   */
  private readonly state = new Map<string, number>();
  /** The pending delayed add of each key (undefined once it fired, for the same reason). */
  private readonly waiting = new Map<string, ScheduledEvent | undefined>();
  private shutDown = false;

  constructor(
    private readonly kernel: Kernel,
    private readonly limiter: RateLimiter,
    /** Called whenever an item may have become available. */
    private readonly onReady: () => void,
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  add(key: string): void {
    const s = this.state.get(key) ?? 0;
    if (this.shutDown || (s & DIRTY) !== 0) return;
    this.state.set(key, s | DIRTY);
    if ((s & PROCESSING) !== 0) return;
    this.items.push(key);
    this.onReady();
  }

  /** Next key to process, or undefined when the queue is empty. */
  get(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++]!;
    if (this.head > 512 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.state.set(key, PROCESSING);
    return key;
  }

  done(key: string): void {
    const s = this.state.get(key) ?? 0;
    this.state.set(key, s & DIRTY);
    if ((s & DIRTY) !== 0) {
      this.items.push(key);
      this.onReady();
    }
  }

  addAfter(key: string, ms: number): void {
    if (this.shutDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.kernel.now() + ms;
    const cur = this.waiting.get(key);
    if (cur && cur.at <= at) return;
    if (cur) cur.cancelled = true;
    const ev = this.kernel.at(at, () => {
      this.waiting.set(key, undefined);
      this.add(key);
    });
    this.waiting.set(key, ev);
  }

  addRateLimited(key: string): number {
    const d = this.limiter.when(key, this.kernel.now());
    this.addAfter(key, d);
    return d;
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiter.retries(key);
  }

  isProcessing(key: string): boolean {
    return ((this.state.get(key) ?? 0) & PROCESSING) !== 0;
  }

  /** Stops accepting work and cancels delayed adds (a crashed process loses its queue). */
  shutdown(): void {
    this.shutDown = true;
    for (const ev of this.waiting.values()) if (ev) ev.cancelled = true;
    this.waiting.clear();
    this.items = [];
    this.head = 0;
    for (const [key, s] of this.state) if ((s & DIRTY) !== 0) this.state.set(key, s & ~DIRTY);
  }
}
