import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paddleLineReading } from './paddle-line-host';
import { decodeCtc, loadClasses, REC_HEIGHT, repairDigits, respace, toInput } from './paddle-lines';

/** A model's output for a made-up class list: each step's likeliest class given, the rest low. */
function probs(steps: ReadonlyArray<number | [number, number]>, n: number): Float32Array {
  const out = new Float32Array(steps.length * n).fill(0.001);
  steps.forEach((s, t) => {
    const [k, p] = Array.isArray(s) ? s : [s, 0.9];
    out[t * n + k] = p;
  });
  return out;
}

const CLASSES = ['', '0', '1', '2', '9', '.', 'T', 'O', 'A', 'L', '中', ' '];
const idx = (c: string): number => CLASSES.indexOf(c);
const all = new Uint8Array(CLASSES.length).fill(1);
const latin = Uint8Array.from(CLASSES, (c) => (c === '中' ? 0 : 1));

/** Steps for a text: each character one step, `gap` blank steps after it (a space: `wide` blanks). */
function spell(text: string, gap = 1, wide = 6): number[] {
  const steps: number[] = [];
  for (const ch of text) {
    if (ch === ' ') {
      for (let i = 0; i < wide - gap; i++) steps.push(0);
      continue;
    }
    steps.push(idx(ch));
    for (let i = 0; i < gap; i++) steps.push(0);
  }
  return steps;
}

describe('decodeCtc (greedy CTC over the allowed classes)', () => {
  it('merges repeats, drops blanks, and keeps a doubled letter split by a blank', () => {
    const steps = [idx('T'), idx('T'), 0, idx('O'), 0, idx('O'), idx('O'), 0];
    const line = decodeCtc(probs(steps, CLASSES.length), steps.length, CLASSES.length, CLASSES, all);
    expect(line.chars.map((c) => c.char).join('')).toBe('TOO');
    expect(line.confidence).toBeCloseTo(90, 0);
  });

  it('never chooses a class outside the allowed set: the likeliest allowed one is taken', () => {
    const n = CLASSES.length;
    const p = probs([idx('中'), 0], n);
    p[idx('1')] = 0.3;
    expect(decodeCtc(p, 2, n, CLASSES, all).text).toBe('中');
    expect(decodeCtc(p, 2, n, CLASSES, latin).text).toBe('1');
  });

  it('puts word gaps back where the blank run is well above the usual one nearby', () => {
    const steps = spell('TOTAL 12.00');
    expect(decodeCtc(probs(steps, CLASSES.length), steps.length, CLASSES.length, CLASSES, all).text).toBe('TOTAL 12.00');
  });

  it('keeps double-width print together: the usual gap is the local one, not the line\'s', () => {
    // "TOTAL" in normal type (gap 1), the amount in double-width type (gap 3), a column gap of 12.
    const steps = [...spell('TOTAL', 1), ...Array(10).fill(0), ...spell('19.90', 3)];
    expect(decodeCtc(probs(steps, CLASSES.length), steps.length, CLASSES.length, CLASSES, all).text).toBe('TOTAL 19.90');
  });

  it('places each character on the line as a share of its width', () => {
    const steps = [0, 0, idx('1'), 0, 0, 0, 0, 0, 0, idx('2')];
    const line = decodeCtc(probs(steps, CLASSES.length), steps.length, CLASSES.length, CLASSES, all);
    expect(line.text).toBe('1 2');
    const one = line.chars.find((c) => c.char === '1')!;
    expect(one.from).toBeCloseTo(0.2, 5);
    expect(one.to).toBeCloseTo(0.3, 5);
  });

  it('reads nothing from all blanks', () => {
    const line = decodeCtc(probs([0, 0, 0], CLASSES.length), 3, CLASSES.length, CLASSES, all);
    expect(line).toEqual({ text: '', confidence: 0, chars: [] });
  });
});

describe('repairDigits', () => {
  it.each([
    ['TOTAL 250.OO', 'TOTAL 250.00'],
    ['RM1O.5O', 'RM10.50'],
    ['O.5O', '0.50'],
    ['Date:2018-O3-21', 'Date:2018-03-21'],
    ['SUBTOTAL RM53.6O', 'SUBTOTAL RM53.60'],
    ['l2.9O each', '12.90 each'],
  ])('reads look-alike letters in a number as digits: %s', (read, want) => {
    expect(repairDigits(read)).toBe(want);
  });

  it.each(['SH01 B028 T1', 'Tota1 incl', 'ROOM 2O1A', 'TOTAL', 'Olive Oil 1L'])('leaves words alone: %s', (read) => {
    expect(repairDigits(read)).toBe(read);
  });
});

describe('loadClasses', () => {
  it('is blank, the list in order, then the space', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    writeFileSync(join(dir, 'keys.txt'), 'a\r\nb\nc\n');
    expect(loadClasses(join(dir, 'keys.txt'))).toEqual(['', 'a', 'b', 'c', ' ']);
  });
});

describe('toInput', () => {
  it('scales a line to the model height, keeps its aspect, and maps white to 1 and black to -1', () => {
    const width = 60;
    const height = 24;
    const data = new Uint8Array(width * height).fill(255);
    for (let x = 0; x < width; x++) data[12 * width + x] = data[13 * width + x] = 0;
    const { tensor, width: w } = toInput({ data, width, height, channels: 1 });
    expect(w).toBe(120);
    expect(tensor).toHaveLength(3 * REC_HEIGHT * w);
    expect(tensor[0]).toBeCloseTo(1, 5);
    const plane = REC_HEIGHT * w;
    // The dark band (rows 12-13 of 24) lands at rows 25-26 of 48, in all three channels.
    const column = Array.from({ length: REC_HEIGHT }, (_, y) => tensor[plane + y * w + 60]!);
    expect(Math.min(...column)).toBeCloseTo(-1, 5);
    expect(column.indexOf(Math.min(...column))).toBeGreaterThanOrEqual(24);
    expect(column.indexOf(Math.min(...column))).toBeLessThanOrEqual(26);
  });
});

describe('paddleLineReading (a line reading as page words)', () => {
  it('splits at spaces, places words by their characters inside the crop, and keeps the line height', () => {
    const steps = spell('TOTAL 12.00');
    const line = decodeCtc(probs(steps, CLASSES.length), steps.length, CLASSES.length, CLASSES, all);
    const box = { x0: 100, y0: 500, x1: 300, y1: 520 };
    const crop = { x0: 40, y0: 497, x1: 360, y1: 523 };
    const reading = paddleLineReading({ ...line, crop }, box, 7);
    expect(reading.words.map((w) => w.text)).toEqual(['TOTAL', '12.00']);
    const [total, amount] = reading.words;
    expect(total!.bbox!.x0).toBeGreaterThanOrEqual(crop.x0);
    expect(total!.bbox!.x1).toBeLessThan(amount!.bbox!.x0);
    expect(amount!.bbox!.x1).toBeLessThanOrEqual(crop.x1);
    expect(total!.bbox!.y0).toBe(500);
    expect(amount!.bbox!.y1).toBe(520);
    expect(total!.confidence).toBe(90);
    expect(reading.ms).toBe(7);
  });

  it('puts a date and its time apart (the recogniser drops that space) with each its own box', () => {
    const classes = ['', ...'0123456789/:'.split(''), ' '];
    const steps: number[] = [];
    for (const ch of '23/03/20189:34') steps.push(classes.indexOf(ch), 0);
    const line = decodeCtc(probs(steps, classes.length), steps.length, classes.length, classes, new Uint8Array(classes.length).fill(1));
    const reading = paddleLineReading({ ...line, text: '23/03/2018 9:34', crop: { x0: 0, y0: 0, x1: 280, y1: 20 } }, { x0: 0, y0: 0, x1: 280, y1: 20 });
    expect(reading.words.map((w) => w.text)).toEqual(['23/03/2018', '9:34']);
    expect(reading.words[0]!.bbox!.x1).toBeLessThan(reading.words[1]!.bbox!.x0);
  });
});

describe('respace (word gaps from another reading of the line)', () => {
  const read = (text: string, gap = 1, wide = 6): ReturnType<typeof decodeCtc> => {
    const steps = spell(text, gap, wide);
    return decodeCtc(probs(steps, CLASSES.length), steps.length, CLASSES.length, CLASSES, all);
  };

  it('parts characters that fall in different words of the other reading, and joins those in one', () => {
    // The recogniser ran "TOTAL" and "12.00" together and split the amount; the page's words say otherwise.
    const steps = [...spell('TOTAL'), ...spell('12', 1), 0, 0, 0, 0, ...spell('.00', 1)];
    const line = decodeCtc(probs(steps, CLASSES.length), steps.length, CLASSES.length, CLASSES, all);
    expect(line.text).toBe('TOTAL12 .00');
    const at = (c: number): number => line.chars.filter((x) => x.char !== ' ')[c]!.from;
    const words = [{ from: 0, to: at(4) + 0.01 }, { from: at(5) - 0.01, to: 1 }];
    const spaced = respace(line, words);
    expect(spaced.text).toBe('TOTAL 12.00');
    expect(spaced.confidence).toBe(line.confidence);
  });

  it('counts a character outside every word for the nearest', () => {
    const line = read('TOTAL');
    const spaced = respace(line, [{ from: 0, to: 0.2 }, { from: 0.9, to: 1 }]);
    expect(spaced.text.replace(/ /g, '')).toBe('TOTAL');
    expect(spaced.text.split(' ').length).toBe(2);
  });

  it('keeps an amount it read as one token whole, whatever gaps the other reading put in it', () => {
    // The page reading parted the amount it could not read ("2 1 . 90"); the recogniser read 21.90.
    const line = read('TOTAL 21.90');
    expect(line.text).toBe('TOTAL 21.90');
    const at = (l: typeof line, c: number): number => l.chars.filter((x) => x.char !== ' ')[c]!.from;
    const parted = [[0, 4], [5, 5], [6, 6], [7, 7], [8, 9]].map(([a, b]) => ({ from: at(line, a!) - 0.005, to: at(line, b!) + 0.005 }));
    expect(respace(line, parted).text).toBe('TOTAL 21.90');
    // What the recogniser ran together is still parted by the page's words: only a whole amount is kept.
    const joined = read('TOTAL21.90', 1, 1);
    expect(joined.text).toBe('TOTAL21.90');
    expect(respace(joined, [{ from: 0, to: at(joined, 4) + 0.005 }, { from: at(joined, 5) - 0.005, to: 1 }]).text).toBe('TOTAL 21.90');
  });

  it('keeps the line as read when the other reading has no words on it', () => {
    const line = read('TOTAL 12.00');
    expect(respace(line, [])).toBe(line);
  });
});
