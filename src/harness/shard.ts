/**
 * One slice of a check's runs, for splitting a CI job: shard `index` (0-based) of `count`.
 * @public
 */
export interface Shard {
  index: number;
  count: number;
}

/**
 * Whether run `runIndex` (0-based, in the order fast-check generates runs from the seed) belongs
 * to the shard. Runs are dealt round-robin, so every shard gets early (small, fast-check biases
 * them) and late runs alike, and the shards of one seed together are exactly the unsharded run.
 * @public
 */
export function inShard(runIndex: number, shard: Shard | undefined): boolean {
  if (!shard || shard.count <= 1) return true;
  return runIndex % shard.count === shard.index;
}

/** How many of `runs` runs a shard executes. @public */
export function shardSize(runs: number, shard: Shard | undefined): number {
  if (!shard || shard.count <= 1) return runs;
  return Math.floor(runs / shard.count) + (shard.index < runs % shard.count ? 1 : 0);
}

/**
 * Checks a shard, returning a message naming `where` and the fix, or undefined when valid.
 * @internal
 */
export function shardProblem(shard: Shard, where: string): string | undefined {
  if (!Number.isSafeInteger(shard.count) || shard.count < 1) return `${where}: shard.count must be a safe integer ≥ 1 (at most 2^53 − 1), got ${String(shard.count)}. Pass e.g. { shard: { index: 0, count: 4 } }.`;
  if (!Number.isSafeInteger(shard.index) || shard.index < 0 || shard.index >= shard.count)
    return `${where}: shard.index must be an integer in [0, ${shard.count - 1}] (0-based), got ${String(shard.index)}. Shards of one check are { index: 0, count: n } … { index: n - 1, count: n }.`;
  return undefined;
}

/**
 * Parses the CLI form `i/n` (1-based, like vitest's `--shard=1/3`) into a {@link Shard}.
 * @throws TypeError with a message saying what is wrong and the expected form
 * @public
 */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new TypeError(`steadystate: --shard expects "i/n" with 1 ≤ i ≤ n (e.g. 1/4), got ${JSON.stringify(text)}`);
  const i = Number(m[1]);
  const n = Number(m[2]);
  if (!Number.isSafeInteger(i) || !Number.isSafeInteger(n)) throw new TypeError(`steadystate: --shard expects "i/n" with whole numbers up to 2^53 − 1 (${Number.MAX_SAFE_INTEGER}), got ${JSON.stringify(text)}: larger ones cannot be told apart`);
  if (n < 1 || i < 1 || i > n) throw new TypeError(`steadystate: --shard expects "i/n" with 1 ≤ i ≤ n (e.g. 1/4), got ${JSON.stringify(text)}`);
  return { index: i - 1, count: n };
}
