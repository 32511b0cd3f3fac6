// line ticks of functions whose name matches argv[3] in a .cpuprofile
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const re = new RegExp(process.argv[3]);
const lines = new Map();
for (const n of p.nodes) { if (!re.test(n.callFrame.functionName)) continue; for (const t of n.positionTicks ?? []) { const k = `${n.callFrame.functionName} ${n.callFrame.url.split('/').slice(-1)}:${t.line}`; lines.set(k, (lines.get(k) ?? 0) + t.ticks); } }
for (const [k, t] of [...lines].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(t, k);
