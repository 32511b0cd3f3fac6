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
