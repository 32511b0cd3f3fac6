import { check } from '../src/check.js';
import { webAppController } from '../examples/client-node/steadystate.js';
const t0 = performance.now();
const r = await check(webAppController, { runs: Number(process.argv[2] ?? 15), seed: Number(process.argv[3] ?? 42), faultWindowMs: 3000, settleMs: 6000, tailMs: 3000, shrink: false });
console.log('ms', Math.round(performance.now() - t0), r.ok, (r as any).property, (r as any).summary);
if (!r.ok) { const fs = await import("node:fs"); fs.writeFileSync("/tmp/failing-scenario.json", JSON.stringify((r as any).scenario)); console.log(JSON.stringify((r as any).scenario.faults)); }
process.exit(0);
