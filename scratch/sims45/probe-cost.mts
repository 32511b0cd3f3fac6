import { createHostProbe } from '../../src/host-probe.js';
import { syncBuiltinESMExports } from 'node:module';
const p = createHostProbe();
for (let i = 0; i < 50; i++) p.start()();
let c0 = process.cpuUsage(); for (let i = 0; i < 500; i++) p.start()(); let c = process.cpuUsage(c0);
console.log('probe start+stop us', ((c.user + c.system) / 500).toFixed(0));
c0 = process.cpuUsage(); for (let i = 0; i < 500; i++) syncBuiltinESMExports(); c = process.cpuUsage(c0);
console.log('syncBuiltinESMExports us', ((c.user + c.system) / 500).toFixed(0));
