import { parseArgs } from 'node:util';

/** Flags of a hunt script: `--name value` strings and `--flag` booleans; anything else is an error. */
export type FlagSpec = Record<string, { type: 'string' | 'boolean' }>;

/** Parses `argv` by `spec` (node's util.parseArgs, strict): string values and booleans apart. */
export function parseFlags(argv: string[], spec: FlagSpec): { values: Record<string, string | undefined>; booleans: Record<string, boolean> } {
  const { values } = parseArgs({ args: argv, options: spec, strict: true, allowPositionals: false });
  const strings: Record<string, string | undefined> = {};
  const booleans: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(values)) {
    if (typeof v === 'string') strings[k] = v;
    else if (typeof v === 'boolean') booleans[k] = v;
  }
  return { values: strings, booleans };
}

/** Seeds from `3-8` (inclusive range), `1,2,5`, or a mix (`1,3-5`). */
export function parseSeeds(spec: string): number[] {
  const seeds: number[] = [];
  for (const part of spec.split(',').filter(Boolean)) {
    const m = /^(\d+)-(\d+)$/.exec(part);
    if (m) {
      const [a, b] = [Number(m[1]), Number(m[2])];
      if (b < a) throw new Error(`seed range ${part} runs backwards`);
      for (let s = a; s <= b; s++) seeds.push(s);
    } else if (/^\d+$/.test(part)) seeds.push(Number(part));
    else throw new Error(`--seeds: ${part} is neither a seed nor a range a-b`);
  }
  return seeds;
}

/** The flags the false-alarm hunts share (hunt-fp-rate, hunt-hosted): runs per seed, seeds, target filter, ablation, JSON output. */
export interface HuntArgs {
  runs: number;
  seeds: number[];
  only: string[];
  ablation: boolean;
  json: string | undefined;
}

/** Parses the shared hunt flags (and `extra` ones, returned in `values`) with the hunt's defaults. */
export function parseHuntArgs(argv: string[], defaults: { runs: number; seeds: string; only: string }, extra: FlagSpec = {}): HuntArgs & { values: Record<string, string | undefined> } {
  const { values: v, booleans } = parseFlags(argv, { runs: { type: 'string' }, seeds: { type: 'string' }, only: { type: 'string' }, 'no-ablation': { type: 'boolean' }, json: { type: 'string' }, ...extra });
  return { runs: Number(v['runs'] ?? defaults.runs), seeds: parseSeeds(v['seeds'] ?? defaults.seeds), only: (v['only'] ?? defaults.only).split(',').filter(Boolean), ablation: !booleans['no-ablation'], json: v['json'], values: v };
}
