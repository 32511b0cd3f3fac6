// for each node whose function name matches argv[3]: self ms and the call stack (5 frames up), grouped; profile argv[2]
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const want = new RegExp(process.argv[3]); const depth = Number(process.argv[4] ?? 6);
const parent = new Map(); const byId = new Map(p.nodes.map((n) => [n.id, n]));
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const incl = (m) => (dt.get(m.id) ?? 0) + (m.children ?? []).reduce((s, c) => s + incl(byId.get(c)), 0);
const name = (n) => `${n.callFrame.functionName || '(anon)'}@${n.callFrame.url.replace(/.*\/(src|properties|examples|faults|node_modules)\//, '$1/')}`;
const by = new Map();
for (const n of p.nodes) {
  if (!want.test(n.callFrame.functionName)) continue;
  let up = parent.get(n.id); if (up && want.test(up.callFrame.functionName)) continue;
  const st = []; for (let i = 0; i < depth && up; i++, up = parent.get(up.id)) st.push(name(up));
  const k = st.join(' < ');
  by.set(k, (by.get(k) ?? 0) + incl(n) / 1000);
}
for (const [k, t] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(t.toFixed(0).padStart(6) + ' ms  ' + k);
