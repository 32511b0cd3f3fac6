// µs per setByModuleLoader call from a program frame under a deep stack (as a hosted timer is set)
import { setByModuleLoader } from '../../src/host/stack.js';
function deep(n: number): number {
  if (n > 0) return deep(n - 1);
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < 20000; i++) if (setByModuleLoader()) x++;
  return (performance.now() - t0) / 20000 * 1000 + x;
}
console.log(`setByModuleLoader ${deep(40).toFixed(2)} µs per call`);
