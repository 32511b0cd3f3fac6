import fc, { type Arbitrary } from 'fast-check';

/** Options of {@link swarm}. @public */
export interface SwarmOptions {
  /**
   * `'swarm'`: each part is on with probability `1 / 2`, independently, and shrinks toward off.
   * `'all'`: every part is always on (a pinned set); only its content shrinks.
   * @defaultValue 'swarm'
   */
  mode?: 'swarm' | 'all';
}

/**
 * Swarm testing (Groce et al.): instead of turning every feature on in every run, each run
 * enables a random subset, so rare combinations and features that mask each other get explored.
 * Each part is a boolean that shrinks toward off (fast-check `option`, whose nil comes first
 * when shrinking), so a failing run sheds the parts it does not need before anything else.
 * @returns per part, in the given order: the generated value, or `null` when the part is off.
 * @example
 * ```ts
 * swarm([{ key: 'event-loss', arbitrary: eventLoss.arbitrary(ctx) }]);
 * ```
 * @public
 */
export function swarm<T>(parts: readonly { key: string; arbitrary: Arbitrary<T> }[], options: SwarmOptions = {}): Arbitrary<{ key: string; value: T | null }[]> {
  const mode = options.mode ?? 'swarm';
  if (parts.length === 0) return fc.constant([]);
  const each = parts.map((p) => (mode === 'all' ? p.arbitrary : fc.option(p.arbitrary, { nil: null, freq: 2 })).map((value) => ({ key: p.key, value })));
  return fc.tuple(...each);
}
