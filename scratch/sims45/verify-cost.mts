import { guardIntrinsics } from '../../src/host/intrinsics.js';
const g = guardIntrinsics();
const N = 100000; let ok = 0;
for (let i = 0; i < 10000; i++) ok += g.verify() ? 1 : 0;
let c0 = process.cpuUsage(); for (let i = 0; i < N; i++) ok += g.verify() ? 1 : 0; let c = process.cpuUsage(c0);
console.log('verify us', ((c.user + c.system) / N).toFixed(2));
c0 = process.cpuUsage(); for (let i = 0; i < N; i++) ok += g.quick() ? 1 : 0; c = process.cpuUsage(c0);
console.log('quick us', ((c.user + c.system) / N).toFixed(2), ok);
