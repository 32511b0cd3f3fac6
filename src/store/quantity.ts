/**
 * Kubernetes resource quantities (`1Gi`, `500Mi`, `2`, `100m`, `1e3`): the value in base units,
 * for comparisons such as "a claim's storage request may only grow". Returns undefined for a
 * string that is not a quantity.
 * @internal
 */
export function parseQuantity(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/.exec(q.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2] !== undefined) return n * 10 ** Number(m[2].slice(1));
  return n * (SUFFIX[m[3] ?? ''] ?? 1);
}

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** apimachinery's `splitREString`, named in its ErrFormatWrong. */
const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/** apimachinery's parse errors (resource/quantity.go), as the API server words a decoding failure. @internal */
export const QUANTITY_ERRORS = {
  format: `quantities must match the regular expression '${SPLIT_RE}'`,
  suffix: "unable to parse quantity's suffix",
} as const;
const ERR_FORMAT = QUANTITY_ERRORS.format;
const ERR_SUFFIX = QUANTITY_ERRORS.suffix;

const DEC_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_BY_EXP = new Map(Object.entries(DEC_SUFFIX).map(([s, e]) => [e, s]));
const BIN_BY_EXP = new Map<number, string>([[0, ''], ...Object.entries(BIN_SUFFIX).map(([s, e]) => [e, s] as [number, string])]);
const MAX_INT64 = (1n << 63n) - 1n;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** apimachinery's parseQuantityString: sign, numerator without leading zeros, denominator, suffix. */
function scan(str: string): { positive: boolean; num: string; denom: string; suffix: string } | undefined {
  let pos = 0;
  const end = str.length;
  let positive = true;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  const num = str.slice(pos, i) || '0';
  if (i >= end) return { positive, num, denom: '', suffix: '' };
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, num, denom, suffix: '' };
    pos = i;
  }
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  // a character that is no suffix letter, sign or exponent digit
  if (pos < end) return undefined;
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

/** apimachinery's suffixHandler.interpret: base, exponent and format of a suffix. */
function interpret(suffix: string): { base: 10 | 2; exponent: number; format: Format } | undefined {
  const dec = DEC_SUFFIX[suffix];
  if (dec !== undefined && Object.hasOwn(DEC_SUFFIX, suffix)) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BIN_SUFFIX[suffix];
  if (bin !== undefined && Object.hasOwn(BIN_SUFFIX, suffix)) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    // strconv.ParseInt(s, 10, 64), then int32()
    if (!/^[+-]?\d+$/.test(suffix.slice(1))) return undefined;
    const parsed = BigInt(suffix.slice(1));
    if (parsed > MAX_INT64 || parsed < -MAX_INT64 - 1n) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

/** Divides `v` by `base` while it divides evenly; the result and how many times. */
function removeFactors(v: bigint, base: bigint): [bigint, number] {
  let times = 0;
  while (v !== 0n && v % base === 0n) {
    v /= base;
    times++;
  }
  return [v, times];
}

/**
 * The string kube-apiserver serves for a quantity it decoded from `raw` (a JSON string or
 * number): apimachinery's ParseQuantity then MarshalJSON, exactly. A string already in canonical
 * form is served as sent (ParseQuantity keeps it: `+1`, `01` stay); any other is served in
 * canonical form (`2000m` → `2`, `2048Mi` → `2Gi`, `0.5` → `500m`, `1.5Gi` → `1536Mi`, `1e3` stays
 * `1e3`: the exponent format is kept). JSON null decodes to zero. `{ error }` is the decoding
 * error (the API server's message after "cannot be handled as a Kind: ").
 * @internal
 */
export function canonicalQuantity(raw: unknown): { value: string } | { error: string } {
  if (raw === null) return { value: '0' };
  if (typeof raw === 'object' || raw === undefined) return { error: ERR_FORMAT };
  const str = String(raw).trim();
  if (str.length === 0) return { error: ERR_FORMAT };
  if (str === '0') return { value: str };
  const s = scan(str);
  if (s === undefined) return { error: ERR_FORMAT };
  const it = interpret(s.suffix);
  if (it === undefined) return { error: ERR_SUFFIX };
  let format = it.format;
  const digits = s.num + s.denom;
  // ParseQuantity's fast path keeps the string it parsed when it is canonical already
  if (format === 'BinarySI') {
    const precision = 15 - s.num.length - Math.trunc((it.exponent * 3) / 10) - 1;
    if (s.denom.length === 0 && precision >= 0) {
      const value = BigInt(s.num);
      if (value << BigInt(it.exponent) <= MAX_INT64 && (value & 7n) !== 0n) return { value: str };
    }
  } else {
    const scale = it.exponent - s.denom.length;
    if (18 - digits.length >= 0 && scale >= -9 && scale % 3 === 0 && !digits.endsWith('000') && digits[0] !== '0') return { value: str };
  }
  // the exact value: unscaled × 10^exp10, sign apart
  let unscaled = BigInt(digits);
  let exp10 = -s.denom.length;
  if (it.base === 10) exp10 += it.exponent;
  else unscaled <<= BigInt(it.exponent);
  if (unscaled === 0n) return { value: '0' };
  // rounded up (away from zero) to nano: "if you want some resources, you should get some"
  if (exp10 < -9) {
    const drop = -9 - exp10;
    if (drop > unscaled.toString().length) unscaled = 1n;
    else {
      const div = 10n ** BigInt(drop);
      unscaled = (unscaled + div - 1n) / div;
    }
    exp10 = -9;
  }
  if (format === 'BinarySI') {
    // capped at 2^63-1; a fraction of one unit is shown as DecimalSI
    if (exp10 >= 0 && unscaled * 10n ** BigInt(exp10) > MAX_INT64) {
      unscaled = MAX_INT64;
      exp10 = 0;
    }
    if (exp10 < 0 && unscaled < 10n ** BigInt(-exp10)) format = 'DecimalSI';
  }
  const sign = s.positive ? '' : '-';
  // CanonicalizeBytes
  if (format === 'BinarySI') {
    const whole = exp10 >= 0 ? unscaled * 10n ** BigInt(exp10) : undefined;
    const exact = whole ?? (unscaled % 10n ** BigInt(-exp10) === 0n ? unscaled / 10n ** BigInt(-exp10) : undefined);
    if (exact !== undefined && exact >= 1024n) {
      const [mantissa, times] = removeFactors(exact, 1024n);
      return { value: `${sign}${mantissa}${BIN_BY_EXP.get(times * 10) ?? ''}` };
    }
    format = 'DecimalSI';
  }
  const [m, times] = removeFactors(unscaled, 10n);
  let mantissa = m;
  let exponent = exp10 + times;
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  let suffix = format === 'DecimalSI' ? DEC_BY_EXP.get(exponent) : undefined;
  // DecimalExponent, or a DecimalSI beyond E (no suffix): the exponent
  if (suffix === undefined) suffix = exponent === 0 ? '' : `e${exponent}`;
  return { value: `${sign}${mantissa}${suffix}` };
}

/**
 * The exact amount of a quantity in nano units (what apimachinery keeps: a finer non-zero value
 * is rounded away from zero to 1n; a binary one capped at 2^63-1), for comparisons and sums as
 * Quantity.Cmp/Add make them; undefined for one that does not parse.
 * @internal
 */
export function quantityNanos(raw: unknown): bigint | undefined {
  const r = canonicalQuantity(raw);
  if ('error' in r) return undefined;
  const s = scan(r.value);
  const it = s === undefined ? undefined : interpret(s.suffix);
  if (s === undefined || it === undefined) return undefined;
  let unscaled = BigInt(s.num + s.denom);
  let exp10 = 9 - s.denom.length;
  if (it.base === 10) exp10 += it.exponent;
  else unscaled <<= BigInt(it.exponent);
  // the served form is exact to nano: no rounding left
  const nanos = exp10 >= 0 ? unscaled * 10n ** BigInt(exp10) : unscaled / 10n ** BigInt(-exp10);
  return s.positive ? nanos : -nanos;
}
