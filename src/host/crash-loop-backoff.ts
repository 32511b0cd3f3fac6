/** Options of a hosted process's restarts after it ends itself. @public */
export interface RestartBackoffOptions {
  /** Delay before the first restart (virtual ms). @defaultValue 10_000 (kubelet's CrashLoopBackOff) */
  initialMs?: number;
  /** Upper bound of the doubling delay. @defaultValue 300_000 (5 min) */
  maxMs?: number;
  /** An incarnation that ran this long resets the delay to `initialMs`. @defaultValue 600_000 (10 min) */
  resetAfterMs?: number;
}

/** @internal */
export type ResolvedRestartBackoff = Required<RestartBackoffOptions>;

/** Resolves and validates restart backoff options; `where` names the API in messages. @internal */
export function resolveRestartBackoff(o: RestartBackoffOptions | undefined, where: string): ResolvedRestartBackoff {
  const r = { initialMs: o?.initialMs ?? 10_000, maxMs: o?.maxMs ?? 300_000, resetAfterMs: o?.resetAfterMs ?? 600_000 };
  for (const [k, v] of Object.entries(r)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new TypeError(`${where}: restartBackoff.${k} must be a finite number ≥ 0 (virtual ms), got ${JSON.stringify(v)}`);
  }
  if (r.maxMs < r.initialMs) throw new TypeError(`${where}: restartBackoff.maxMs (${r.maxMs}) must be at least initialMs (${r.initialMs})`);
  return r;
}

/**
 * kubelet's CrashLoopBackOff for one replica: the n-th consecutive death waits
 * `initialMs · 2^(n-1)`, capped at `maxMs`; an incarnation that ran `resetAfterMs` starts the
 * count again.
 * @internal
 */
export class CrashLoopBackoff {
  private deaths = 0;
  constructor(private readonly o: ResolvedRestartBackoff) {}

  /** The delay before restarting an incarnation that started at `startedAt` and died at `now`. */
  next(startedAt: number, now: number): number {
    if (now - startedAt >= this.o.resetAfterMs) this.deaths = 0;
    this.deaths++;
    return Math.min(this.o.maxMs, this.o.initialMs * 2 ** Math.min(this.deaths - 1, 30));
  }
}
