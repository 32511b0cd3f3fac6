import { virtualTimestamp, VIRTUAL_EPOCH_MS } from '../../src/store/object.js';
let bad = 0;
const check = (ms: number) => { const want = new Date(VIRTUAL_EPOCH_MS + ms).toISOString(); if (virtualTimestamp(ms) !== want) { bad++; if (bad < 5) console.log(ms, virtualTimestamp(ms), want); } };
for (let ms = 0; ms < 200_000; ms += 1) check(ms);
for (let ms = 0; ms < 2 * 86_400_000; ms += 997) check(ms);
for (const ms of [86_399_999, 86_400_000, -1, -1000, 0.5, 1.5, 1e12, 3_599_999, 3_600_000]) check(ms);
const t0 = performance.now(); let x = 0; for (let ms = 0; ms < 1_000_000; ms++) x += virtualTimestamp(ms).length; const t1 = performance.now();
let y = 0; for (let ms = 0; ms < 1_000_000; ms++) y += new Date(VIRTUAL_EPOCH_MS + ms).toISOString().length; const t2 = performance.now();
console.log(`bad ${bad}; new ${((t1 - t0)).toFixed(0)} ns/call, toISOString ${((t2 - t1)).toFixed(0)} ns/call`);
