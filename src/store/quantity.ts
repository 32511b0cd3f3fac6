/**
 * Kubernetes resource quantities (`1Gi`, `500Mi`, `2`, `100m`, `1e3`): the value in base units,
 * for comparisons such as "a claim's storage request may only grow". Returns undefined for a
 * string that is not a quantity.
 * @internal
 */
export function parseQuantity(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/.exec(q.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2] !== undefined) return n * 10 ** Number(m[2].slice(1));
  return n * (SUFFIX[m[3] ?? ''] ?? 1);
}

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
