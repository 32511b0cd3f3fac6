import type { Kernel } from '../sim/kernel.js';
import type { ScheduledEvent } from '../sim/scheduler.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * client-go's rate-limiting workqueue: a set (duplicate keys collapse), a key is never handed
 * to two workers at once (re-added while processing → processed again after `done`), delayed
 * adds keep the earliest ready time, and failures back off through the rate limiter.
 * @internal
 */
export class WorkQueue {
  private items: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiting = new Map<string, { at: number; ev: ScheduledEvent }>();
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
    if (this.shutDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
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
    this.processing.add(key);
    this.dirty.delete(key);
    return key;
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
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
    if (cur) cur.ev.cancelled = true;
    const ev = this.kernel.at(at, () => {
      this.waiting.delete(key);
      this.add(key);
    });
    this.waiting.set(key, { at, ev });
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
    return this.processing.has(key);
  }

  /** Stops accepting work and cancels delayed adds (a crashed process loses its queue). */
  shutdown(): void {
    this.shutDown = true;
    for (const w of this.waiting.values()) w.ev.cancelled = true;
    this.waiting.clear();
    this.items = [];
    this.head = 0;
    this.dirty.clear();
  }
}
