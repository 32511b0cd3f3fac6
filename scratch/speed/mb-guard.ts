// Microbenchmark: the loop guard's install + release per simulation (µs), cold and warm
import { guardLoops } from '../../src/harness/loop-guard.js';
const k = {} as never;
for (const n of [1, 10, 100, 1000, 10000, 100000, 100000]) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) guardLoops(k, () => undefined, () => undefined).release();
  const c = process.cpuUsage(c0);
  console.log(n, 'µs per install+release', ((c.user + c.system) / n).toFixed(1));
}
