// Per-call cost of the loop guard's install + release (µs), to find the slow calls
import { guardLoops } from '../../src/harness/loop-guard.js';
const k = {} as never;
const out: number[] = [];
for (let i = 0; i < 3000; i++) {
  const t0 = process.hrtime.bigint();
  guardLoops(k, () => undefined, () => undefined).release();
  out.push(Number(process.hrtime.bigint() - t0) / 1000);
}
const slow = out.map((t, i) => [i, t] as const).filter(([, t]) => t > 50);
console.log('calls > 50 µs:', slow.length, slow.slice(0, 30).map(([i, t]) => `${i}:${t.toFixed(0)}`).join(' '));
const sorted = [...out].sort((a, b) => a - b);
console.log('median µs', sorted[1500]!.toFixed(1), 'total ms', (out.reduce((a, b) => a + b, 0) / 1000).toFixed(1));
