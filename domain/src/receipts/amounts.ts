/**
 * Money amounts as OCR prints them on receipts: `RM 30.90`, `$8.20`, `1,007.50`, `12,50`,
 * `-0.02`, and the usual slips: `RM96. 20` (a space after the point), `RMS.25` (S for 5),
 * `RHO.47` (RH for RM, O for 0), `§8.20` ($ read as §).
 */

export interface AmountToken {
  /** Signed cents. */
  cents: number;
  /** Character offsets of the whole token (currency included) in the line. */
  start: number;
  end: number;
  /** A currency mark (RM, $, €, …) was printed before it. */
  currency: boolean;
  /** Letters had to be read as digits: less trustworthy. */
  repaired: boolean;
}

/** Currency marks and their usual OCR mangling (RM → RN, RH, RI, KM, or R with the M lost; $ → §, S$). */
const CURRENCY = String.raw`(?:[RrKk][MmNnHhIi1l]|MYR|USD|EUR|GBP|SGD|S\$|US\$|A\$|C\$|\$|§|€|£|¥|R(?=\s?\d))`;
/** Characters OCR prints for digits; only trusted inside an otherwise numeric token. */
const DIGITISH = '0-9OoQDSsIl|Bb';
const AMOUNT = new RegExp(
  String.raw`(?<![\w.,/:-])([-~–]\s?)?(${CURRENCY}\s?)?`
  + String.raw`([${DIGITISH}]{1,3}(?:,\s?[0-9]{3})+|[${DIGITISH}]{1,3}(?:\.[0-9]{3})+(?=,)|[${DIGITISH}]{1,7})`
  + String.raw`\s?([.,])\s?([0-9Oo]{2})(?![0-9a-z%_]|[.,]\d)`,
  'g',
);

/**
 * "Total RM 88 17": the decimal point lost at the end of a line. Only after a currency mark and
 * only as the line's last token, where totals are printed; plain "12 50" could be a quantity
 * and a price.
 */
const LOST_POINT = new RegExp(String.raw`(?<![\w.,/:-])(${CURRENCY})\s?([0-9]{1,5}) ([0-9]{2})\s*$`);

const DIGIT_FOR: Record<string, string> = {
  O: '0', o: '0', Q: '0', D: '0', S: '5', s: '5', I: '1', l: '1', '|': '1', B: '8', b: '6',
};

/** Finds the money amounts on one line, left to right. */
export function findAmounts(line: string): AmountToken[] {
  const out: AmountToken[] = [];
  for (const m of line.matchAll(AMOUNT)) {
    const token = toToken(m);
    if (token) out.push(token);
  }
  const lost = out.length === 0 ? LOST_POINT.exec(line) : null;
  if (lost) {
    const start = lost.index;
    const cents = Number(lost[2]) * 100 + Number(lost[3]);
    // Every digit was read; only the point is inferred, so it is not a letter-for-digit repair.
    out.push({ cents, start, end: start + lost[0].trimEnd().length, currency: true, repaired: false });
  }
  return out;
}

function toToken(m: RegExpExecArray | RegExpMatchArray): AmountToken | null {
  const [whole, sign, currency, intPart = '', decimalMark, fracPart = ''] = m;
  const start = m.index ?? 0;
  const hasCurrency = currency !== undefined;
  // Without a currency mark, a token must start with a real digit: "SOLD.00" is not money.
  if (!hasCurrency && !/^[0-9]/.test(intPart)) return null;
  // A space inside the number is only believable next to the decimal point ("96. 20", "7 .40")
  // or after a thousands comma ("1, 030.65"), never on both sides of the point.
  if (/\s[.,]\s/.test(whole)) return null;
  const intDigits = intPart.replace(/[,.\s]/g, '');
  const repairedInt = [...intDigits].map((c) => DIGIT_FOR[c] ?? c).join('');
  const repairedFrac = fracPart.replace(/[Oo]/g, '0');
  if (!/^\d+$/.test(repairedInt) || !/^\d\d$/.test(repairedFrac)) return null;
  // "1.234,56" needs the comma as decimal mark; "12,345" without decimals never reaches here.
  if (decimalMark === '.' && intPart.includes('.')) return null;
  const units = Number(repairedInt);
  const cents = units * 100 + Number(repairedFrac);
  const negative = sign !== undefined && /[-–]/.test(sign);
  return {
    cents: negative ? -cents : cents,
    start,
    end: start + whole.length,
    currency: hasCurrency,
    repaired: repairedInt !== intDigits || repairedFrac !== fracPart,
  };
}

/** The line with its amounts cut out, so labels can be read on their own. */
export function withoutAmounts(line: string, amounts: readonly AmountToken[]): string {
  let out = '';
  let at = 0;
  for (const a of amounts) {
    out += `${line.slice(at, a.start)} `;
    at = a.end;
  }
  return out + line.slice(at);
}
