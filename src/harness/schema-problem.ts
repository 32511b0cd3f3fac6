import type { z } from 'zod';

/** A JSON path in the style a user reads it: `scenario.workload[0].at`. @internal */
export function jsonPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(String(p)) ? `${out === '' ? '' : '.'}${String(p)}` : `[${JSON.stringify(String(p))}]`;
  return out === '' ? 'the value' : out;
}

/** One issue in words: `<path> <what is wrong>`. @internal */
export function issueText(issue: z.core.$ZodIssue, root: string, label = ''): string {
  const at = jsonPath(root, issue.path);
  return `${label}${at} ${issueMessage(issue)}`;
}

/** What is wrong, without the path. @internal */
export function issueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (a typo? remove ${issue.keys.length > 1 ? 'them' : 'it'} or fix the name)`;
    case 'invalid_type':
      if (!issue.message.startsWith('Invalid input')) return issue.message;
      return issue.input === undefined ? `is required (${article(issue.expected)})` : `must be ${article(issue.expected)}; got ${shown(issue.input)}`;
    case 'invalid_value':
      return issue.message.startsWith('Invalid input') ? `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}; got ${shown(issue.input)}` : issue.message;
    default:
      return issue.message;
  }
}

/**
 * A zod error as one paragraph: what is wrong at which JSON path (the first three problems), and
 * how many more there are.
 * @param where - names the call and the file, e.g. `steadystate.replay: reports/x.json`
 * @param root - the path prefix of the validated value, e.g. `scenario` (empty for a whole file)
 * @param label - put before each path, e.g. `field `
 * @internal
 */
export function schemaProblem(error: z.ZodError, where: string, root = '', label = ''): string {
  const issues = error.issues;
  const shownIssues = issues.slice(0, 3).map((i) => issueText(i, root, label));
  const more = issues.length > 3 ? `; and ${issues.length - 3} more problem${issues.length - 3 === 1 ? '' : 's'}` : '';
  return `${where}: ${shownIssues.join('; ')}${more}.`;
}

function article(expected: string): string {
  if (expected === 'array') return 'a list';
  if (expected === 'object' || expected === 'record') return 'an object';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** A value in a message: short JSON. @internal */
export function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  try {
    const s = JSON.stringify(v);
    return s.length > 60 ? `${s.slice(0, 60)}…` : s;
  } catch {
    return String(v);
  }
}
