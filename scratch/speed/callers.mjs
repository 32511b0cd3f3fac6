// self time of a function (argv[3], name match) by caller: a .cpuprofile (argv[2])
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const want = process.argv[3];
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
const dt = new Map();
let total = 0;
for (let i = 0; i < p.samples.length; i++) { dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0)); total += p.timeDeltas[i] ?? 0; }
const name = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*speed\//, '')}:${n.callFrame.lineNumber + 1}`;
const by = new Map();
for (const n of p.nodes) {
  if (n.callFrame.functionName !== want) continue;
  // inclusive time of this node
  const incl = (m) => (dt.get(m.id) ?? 0) + (m.children ?? []).reduce((s, c) => s + incl(p.nodes.find((x) => x.id === c)), 0);
  let up = parent.get(n.id);
  while (up && up.callFrame.functionName === want) up = parent.get(up.id);
  const k = up ? name(up) : '?';
  by.set(k, (by.get(k) ?? 0) + incl(n));
}
for (const [k, t] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log((100 * t / total).toFixed(1).padStart(5) + '%  ' + k);
