import fs from 'node:fs';
const p = JSON.parse(fs.readFileSync(process.argv[2]));
const idle = new Set(p.nodes.filter(n => ['(idle)','(program)'].includes(n.callFrame.functionName)).map(n => n.id));
const buckets = new Map(); let t = p.startTime;
for (let i = 0; i < p.samples.length; i++) { t += p.timeDeltas[i]; const b = Math.floor((t - p.startTime) / 1e6); if (!idle.has(p.samples[i])) buckets.set(b, (buckets.get(b) ?? 0) + p.timeDeltas[i]); }
console.log([...buckets].sort((a,b)=>a[0]-b[0]).map(([b, us]) => `${b}s:${(us/1000).toFixed(0)}ms`).join(' '));
