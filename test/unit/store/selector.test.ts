import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../../src/store/errors.js';
import { matchesSelector, parseSelector, type LabelSelector } from '../../../src/store/selector.js';

const matches = (sel: LabelSelector, labels: Record<string, string> | undefined) => matchesSelector(parseSelector(sel), labels);

describe('parseSelector (string syntax)', () => {
  it('parses equality, inequality, set and existence requirements', () => {
    expect(parseSelector('a=1,b==2,c!=3,d in (x, y),e notin (z),f,!g')).toEqual([
      { key: 'a', op: 'in', values: ['1'] },
      { key: 'b', op: 'in', values: ['2'] },
      { key: 'c', op: 'notin', values: ['3'] },
      { key: 'd', op: 'in', values: ['x', 'y'] },
      { key: 'e', op: 'notin', values: ['z'] },
      { key: 'f', op: 'exists', values: [] },
      { key: 'g', op: '!exists', values: [] },
    ]);
  });

  it('tolerates spaces everywhere', () => {
    expect(parseSelector('  a = 1 ,  d   in   ( x ,y )  , ! g ,  f  ')).toEqual([
      { key: 'a', op: 'in', values: ['1'] },
      { key: 'd', op: 'in', values: ['x', 'y'] },
      { key: 'g', op: '!exists', values: [] },
      { key: 'f', op: 'exists', values: [] },
    ]);
  });

  it('accepts prefixed keys and dotted values', () => {
    expect(parseSelector('app.kubernetes.io/name=web,example.com/tier in (v1.2, v1.3)')).toEqual([
      { key: 'app.kubernetes.io/name', op: 'in', values: ['web'] },
      { key: 'example.com/tier', op: 'in', values: ['v1.2', 'v1.3'] },
    ]);
  });

  it('accepts an empty value (a=) and an empty selector', () => {
    expect(parseSelector('a=')).toEqual([{ key: 'a', op: 'in', values: [''] }]);
    expect(parseSelector('')).toEqual([]);
    expect(parseSelector('  ')).toEqual([]);
    expect(parseSelector(undefined)).toEqual([]);
  });

  it('parses the numeric comparisons a>1 and a<1', () => {
    expect(parseSelector('a>1, b < -2')).toEqual([
      { key: 'a', op: 'gt', values: ['1'] },
      { key: 'b', op: 'lt', values: ['-2'] },
    ]);
  });

  it.each(['a=b=c', 'a in (x', 'a in x)', 'a in ()', 'a in (x (y))', 'a b', '=b', '!', 'a!b', 'a>x', 'a in (x y)', '(a)'])('rejects %j with 422 Invalid', (sel) => {
    const err = (() => {
      try {
        parseSelector(sel);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(InvalidError);
  });
});

describe('parseSelector (object form)', () => {
  it('turns matchLabels and matchExpressions into requirements', () => {
    expect(
      parseSelector({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'env', operator: 'NotIn', values: ['dev'] },
          { key: 'x', operator: 'Exists' },
          { key: 'y', operator: 'DoesNotExist' },
        ],
      }),
    ).toEqual([
      { key: 'app', op: 'in', values: ['web'] },
      { key: 'tier', op: 'in', values: ['a', 'b'] },
      { key: 'env', op: 'notin', values: ['dev'] },
      { key: 'x', op: 'exists', values: [] },
      { key: 'y', op: '!exists', values: [] },
    ]);
  });

  it('rejects an unknown operator instead of treating it as DoesNotExist', () => {
    expect(() => parseSelector({ matchExpressions: [{ key: 'a', operator: 'Gt' as never, values: ['1'] }] })).toThrow(InvalidError);
    expect(() => parseSelector({ matchExpressions: [{ key: 'a', operator: 'toString' as never }] })).toThrow(InvalidError);
  });

  it('rejects In/NotIn without values and Exists/DoesNotExist with values', () => {
    expect(() => parseSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] })).toThrow(InvalidError);
    expect(() => parseSelector({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] })).toThrow(InvalidError);
    expect(() => parseSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toThrow(InvalidError);
  });

  it('does not share the values array with the caller', () => {
    const values = ['a'];
    const reqs = parseSelector({ matchExpressions: [{ key: 'k', operator: 'In', values }] });
    values.push('b');
    expect(reqs[0]!.values).toEqual(['a']);
  });
});

describe('matchesSelector', () => {
  const labels = { app: 'web', tier: 'frontend', replicas: '3', empty: '' };

  it('=, == require the label with that value', () => {
    expect(matches('app=web', labels)).toBe(true);
    expect(matches('app==web', labels)).toBe(true);
    expect(matches('app=db', labels)).toBe(false);
    expect(matches('missing=x', labels)).toBe(false);
    expect(matches('empty=', labels)).toBe(true);
  });

  it('!= matches a different value or a missing label', () => {
    expect(matches('app!=db', labels)).toBe(true);
    expect(matches('missing!=x', labels)).toBe(true);
    expect(matches('app!=web', labels)).toBe(false);
  });

  it('in / notin', () => {
    expect(matches('tier in (backend, frontend)', labels)).toBe(true);
    expect(matches('tier in (backend)', labels)).toBe(false);
    expect(matches('missing in (x)', labels)).toBe(false);
    expect(matches('tier notin (backend)', labels)).toBe(true);
    expect(matches('tier notin (frontend, x)', labels)).toBe(false);
    expect(matches('missing notin (x)', labels)).toBe(true);
  });

  it('key / !key', () => {
    expect(matches('app', labels)).toBe(true);
    expect(matches('empty', labels)).toBe(true);
    expect(matches('missing', labels)).toBe(false);
    expect(matches('!missing', labels)).toBe(true);
    expect(matches('!app', labels)).toBe(false);
  });

  it('> / < compare integer label values; a missing or non-integer label does not match', () => {
    expect(matches('replicas>2', labels)).toBe(true);
    expect(matches('replicas>3', labels)).toBe(false);
    expect(matches('replicas<4', labels)).toBe(true);
    expect(matches('app>1', labels)).toBe(false);
    expect(matches('missing<10', labels)).toBe(false);
  });

  it('all requirements must hold (AND)', () => {
    expect(matches('app=web,tier=frontend', labels)).toBe(true);
    expect(matches('app=web,tier=backend', labels)).toBe(false);
    expect(matches({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend'] }] }, labels)).toBe(true);
    expect(matches({ matchLabels: { app: 'web', tier: 'x' } }, labels)).toBe(false);
  });

  it('no requirements match everything, including objects without labels', () => {
    expect(matches('', labels)).toBe(true);
    expect(matches({}, undefined)).toBe(true);
    expect(matches('!app', undefined)).toBe(true);
    expect(matches('app', undefined)).toBe(false);
  });
});
