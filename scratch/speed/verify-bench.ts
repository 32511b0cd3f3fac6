import { guardIntrinsics } from '../../src/host/intrinsics.js';
const g = guardIntrinsics();
for (let r = 0; r < 3; r++) {
  let t0 = performance.now(); let x = 0;
  for (let i = 0; i < 20000; i++) if (g.verify()) x++;
  const v = (performance.now() - t0) / 20;
  t0 = performance.now();
  for (let i = 0; i < 200000; i++) if (g.quick()) x++;
  const q = (performance.now() - t0) / 200;
  console.log(`verify ${v.toFixed(2)} µs, quick ${q.toFixed(3)} µs`, x > 0);
}
