import { overLoopback } from '../bench/kube-rest.js';
const t0 = performance.now();
setTimeout(() => { console.log('timeout'); process.exit(1); }, 10000);
console.log('lb50', await overLoopback(50), performance.now() - t0);
process.exit(0);
