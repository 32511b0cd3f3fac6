// NODE_OPTIONS=--import: polls /proc/self/task every 20 ms; at exit prints each thread's CPU ms in tid order (main first) to fd 2
import { readdirSync, readFileSync, writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
if (isMainThread && (process.env.THR_ALL || process.env.STEADYSTATE_OUTPUT_CHANNEL !== undefined)) {
  const seen = new Map();
  const poll = () => { try { for (const tid of readdirSync('/proc/self/task')) { const s = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); seen.set(Number(tid), (Number(f[11]) + Number(f[12])) * 10); } } catch {} };
  setInterval(poll, 10).unref();
  process.on('exit', () => { poll(); writeSync(2, 'THREADS ' + [...seen].sort((a, b) => a[0] - b[0]).map(([tid, ms]) => `${tid - process.pid}:${ms}`).join(' ') + '\n'); });
}
