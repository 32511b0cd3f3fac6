import { writeAtomic } from '../src/report/write-atomic.js';
import { writeFileSync, mkdtempSync } from 'node:fs';
const d = mkdtempSync('/tmp/x-'); writeFileSync(d + '/file', 'x');
try { writeAtomic(d + '/file/reports/a.json', 'x'); } catch (e) { console.log(e); }
