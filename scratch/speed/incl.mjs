// inclusive time per file and per function (each counted once per sample)
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const mode = process.argv[3] ?? 'file';
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const inc = new Map(); let total = 0;
for (const [id, t] of dt) {
  total += t;
  const seen = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const cf = byId.get(x).callFrame;
    const f = cf.url.replace(/.*speed\//, '');
    const k = mode === 'file' ? f : `${cf.functionName || '(anon)'} ${f}`;
    if (seen.has(k)) continue; seen.add(k);
    inc.set(k, (inc.get(k) ?? 0) + t);
  }
}
for (const [k, t] of [...inc].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[4] ?? 50))) console.log((100 * t / total).toFixed(1).padStart(5) + '%  ' + k);
