import { InvalidError } from './errors.js';

/** A parsed field selector: the fields an object must have (absent: any). @internal */
export interface FieldSelector {
  name?: string;
  namespace?: string;
}

/**
 * Parses a field selector. Only `metadata.name=` and `metadata.namespace=` (or `==`),
 * comma-separated, are supported, as most clients need; an empty selector matches everything.
 * @throws InvalidError on anything else
 * @internal
 */
export function parseFieldSelector(sel: string | undefined): FieldSelector {
  const out: FieldSelector = {};
  if (!sel) return out;
  for (const part of sel.split(',')) {
    const m = part.trim().match(/^metadata\.(name|namespace)\s*==?\s*(.*)$/);
    if (!m) throw new InvalidError(`field selector "${part}" is not supported (only metadata.name= and metadata.namespace=)`);
    out[m[1] as 'name' | 'namespace'] = m[2]!;
  }
  return out;
}
