import { overMsw, overLoopback } from '../bench/kube-rest.js';
let t0 = performance.now();
console.log('msw50', await overMsw(50), performance.now() - t0);
t0 = performance.now();
console.log('lb50', await overLoopback(50), performance.now() - t0);
process.exit(0);
