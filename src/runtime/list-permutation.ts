/**
 * The permutation a list-order decision applies (`{ type: 'shuffle', seed }`): a seeded
 * Fisher-Yates shuffle in place, with an LCG stream. Seed 0 behaves as 1 (the fault never asks for
 * it: 0 means store order). Systematic mode uses it to choose seeds that move the first item.
 * @internal
 */
export function permuteList<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0 || 1;
  for (let i = items.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    const tmp = items[i]!;
    items[i] = items[j]!;
    items[j] = tmp;
  }
  return items;
}
