// total time (self+children) of the function matching argv[3], split by the caller chain (2 levels)
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const re = new RegExp(process.argv[3]);
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = new Map(); for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const name = (n) => `${n.callFrame.functionName || '(anon)'}@${n.callFrame.url.split('/').slice(-1)}:${n.callFrame.lineNumber + 1}`;
const total = (n) => (dt.get(n.id) ?? 0) + (n.children ?? []).reduce((s, c) => s + total(byId.get(c)), 0);
const out = new Map();
for (const n of p.nodes) {
  if (!re.test(n.callFrame.functionName)) continue;
  const par = byId.get(parent.get(n.id));
  if (par && re.test(par.callFrame.functionName)) continue; // recursion: count once at the top
  const chain = []; let q = par; for (let i = 0; i < Number(process.argv[4] ?? 2) && q; i++) { chain.push(name(q)); q = byId.get(parent.get(q.id)); }
  const k = chain.join(' < '); out.set(k, (out.get(k) ?? 0) + total(n));
}
for (const [k, t] of [...out].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log((t / 1000).toFixed(0).padStart(6), 'ms', k);
