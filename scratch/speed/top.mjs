// top self-time functions of a .cpuprofile (argv[2]), n rows (argv[3])
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const n = Number(process.argv[3] ?? 30);
const self = new Map();
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
let total = 0;
for (const node of p.nodes) {
  const t = dt.get(node.id) ?? 0;
  total += t;
  const cf = node.callFrame;
  const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*speed\//, '')}:${cf.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + t);
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, n);
for (const [k, t] of rows) console.log((100 * t / total).toFixed(1).padStart(5) + '%  ' + k);
