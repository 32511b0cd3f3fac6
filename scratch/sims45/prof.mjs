import fs from 'node:fs';
const p = JSON.parse(fs.readFileSync(process.argv[2]));
const byId = new Map(p.nodes.map(n => [n.id, n]));
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map(); const dt = p.timeDeltas; 
const cnt = new Map(); for (let i=0;i<p.samples.length;i++) cnt.set(p.samples[i], (cnt.get(p.samples[i])??0) + (dt[i]??0));
const total = [...cnt.values()].reduce((a,b)=>a+b,0);
const key = n => `${n.callFrame.functionName||'(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
const selfBy = new Map(), incl = new Map();
for (const [id, t] of cnt) { const n = byId.get(id); const k = key(n); selfBy.set(k,(selfBy.get(k)??0)+t);
  const seen = new Set(); let cur = id; while (cur!==undefined) { const kk = key(byId.get(cur)); if(!seen.has(kk)){seen.add(kk); incl.set(kk,(incl.get(kk)??0)+t);} cur = parent.get(cur);} }
const top = (m, n) => [...m].sort((a,b)=>b[1]-a[1]).slice(0,n).map(([k,v])=>`${(100*v/total).toFixed(1).padStart(5)}% ${k}`).join('\n');
console.log('total ms', (total/1000).toFixed(0)); console.log('SELF\n'+top(selfBy, +process.argv[3]||30)); console.log('INCL\n'+top(incl, +process.argv[4]||50));
