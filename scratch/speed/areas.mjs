// self time (ms) by area of each .cpuprofile given: node internals, tsx/esbuild, src/<dir>, properties, GC, idle…
import { readFileSync } from 'node:fs';
for (const f of process.argv.slice(2)) {
  const p = JSON.parse(readFileSync(f, 'utf8'));
  const dt = new Map();
  for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const by = new Map(); let total = 0;
  for (const node of p.nodes) {
    const t = (dt.get(node.id) ?? 0) / 1000; if (!t) continue;
    const u = node.callFrame.url; const fn = node.callFrame.functionName;
    let a;
    if (!u) a = fn.startsWith('(') ? fn : '(native) ' + fn;
    else if (u.startsWith('node:')) a = 'node:' + (u.split(/[:/]/)[1] ?? '');
    else if (/node_modules\/(tsx|esbuild|get-tsconfig)/.test(u)) a = 'tsx/esbuild';
    else if (/node_modules\//.test(u)) a = 'nm:' + u.replace(/.*node_modules\//, '').split('/')[0];
    else { const m = u.match(/\/(src|properties|faults|examples|bench|scratch)\/([^/]+)/); a = m ? (m[1] === 'src' ? 'src/' + m[2] : m[1]) : u.replace(/.*\//, ''); }
    if (a !== '(idle)') total += t;
    by.set(a, (by.get(a) ?? 0) + t);
  }
  console.log(`== ${f.replace(/.*\//, '')}: ${total.toFixed(0)} ms busy (idle ${(by.get('(idle)') ?? 0).toFixed(0)})`);
  for (const [k, t] of [...by].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.N ?? 14))) console.log('  ' + t.toFixed(0).padStart(6) + ' ms  ' + k);
}
