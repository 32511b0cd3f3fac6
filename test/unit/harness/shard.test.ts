import { describe, expect, it } from 'vitest';
import { inShard, parseShard, shardProblem, shardSize } from '../../../src/harness/shard.js';

describe('inShard', () => {
  it('splits the run indices into disjoint shards whose union is every run', () => {
    for (const count of [1, 2, 3, 7]) {
      const owners = Array.from({ length: 100 }, (_, i) => Array.from({ length: count }, (_, index) => index).filter((index) => inShard(i, { index, count })));
      for (const o of owners) expect(o).toHaveLength(1);
    }
  });

  it('keeps every run without a shard', () => {
    expect([0, 1, 99].every((i) => inShard(i, undefined))).toBe(true);
  });
});

describe('shardSize', () => {
  it('adds up to the total over all shards, and matches inShard', () => {
    for (const runs of [0, 1, 10, 101]) {
      for (const count of [1, 3, 4]) {
        let sum = 0;
        for (let index = 0; index < count; index++) {
          const size = shardSize(runs, { index, count });
          expect(size).toBe(Array.from({ length: runs }, (_, i) => i).filter((i) => inShard(i, { index, count })).length);
          sum += size;
        }
        expect(sum).toBe(runs);
      }
    }
  });
});

describe('shardProblem', () => {
  it('accepts valid shards and names the fix for bad ones', () => {
    expect(shardProblem({ index: 0, count: 2 }, 'x')).toBeUndefined();
    expect(shardProblem({ index: 2, count: 2 }, 'x')).toMatch(/shard\.index must be an integer in \[0, 1\] \(0-based\)/);
    expect(shardProblem({ index: 0, count: 0 }, 'x')).toMatch(/shard\.count must be a safe integer ≥ 1/);
  });
});

describe('parseShard', () => {
  it('parses the 1-based CLI form', () => {
    expect(parseShard('1/4')).toEqual({ index: 0, count: 4 });
    expect(parseShard(' 4 / 4 ')).toEqual({ index: 3, count: 4 });
  });
  it('rejects malformed or out-of-range shards with the expected form', () => {
    for (const bad of ['0/4', '5/4', 'a/b', '1', '1/0']) expect(() => parseShard(bad)).toThrow(/expects "i\/n" with 1 ≤ i ≤ n/);
  });
});
