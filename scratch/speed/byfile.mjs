import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const self = new Map(); let total = 0;
for (const node of p.nodes) { const t = dt.get(node.id) ?? 0; total += t; const u = node.callFrame.url.replace(/.*speed\//, '') || node.callFrame.functionName; self.set(u, (self.get(u) ?? 0) + t); }
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 40))) console.log((100 * t / total).toFixed(1).padStart(5) + '%  ' + k);
