/**
 * Counting in time windows, for rate properties.
 * @internal
 */

/** The densest window of `windowMs` over sorted times: its start, and the indices it holds. */
export function densestWindow(times: readonly number[], windowMs: number): { start: number; from: number; to: number; count: number } {
  let best = { start: times[0] ?? 0, from: 0, to: 0, count: 0 };
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= windowMs) j++;
    const count = i - j + 1;
    if (count > best.count) best = { start: times[j]!, from: j, to: i, count };
  }
  return best;
}

/** Groups items by a key, keeping first-seen order. */
export function groupBy<T>(xs: Iterable<T>, key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    let a = m.get(k);
    if (!a) m.set(k, (a = []));
    a.push(x);
  }
  return m;
}
