/**
 * A split proposed from the lines of a receipt: item lines read from the OCR text, each put in
 * one of the company's categories by its words, grouped, and scaled to the card amount (tax,
 * tip and rounding spread in proportion). When the lines do not give two categories, an even
 * split in two is proposed and `details` says why.
 */
import { moneyLines } from '../../receipts/money-lines';
import { receiptLines } from '../../receipts/ocr-text';
import type { SplitPartInput, SplitSource } from './split';

export interface CostCodeName {
  name: string;
  category: string;
}

export interface ProposalInput {
  /** The transaction's signed amount in cents. */
  amountCents: number;
  /** What the transaction carries now (may be empty strings). */
  category: string;
  jobNumber: string;
  costCode: string;
  /** The company's master data. */
  categories: readonly string[];
  jobNumbers: readonly string[];
  costCodes: readonly CostCodeName[];
  /** The matched receipt's OCR text, when a receipt is matched and was read. */
  receipt?: { id: string; text: string } | null;
}

export interface ProposedItem {
  text: string;
  amountCents: number;
  category: string | null;
}

export interface SplitProposal {
  source: SplitSource;
  receiptId?: string;
  parts: SplitPartInput[];
  items: ProposedItem[];
  details: string;
}

/**
 * Words that say what kind of purchase an item line is, and words a category's name holds when
 * it is that kind (a company names its own categories: "MEALS", "Food & Drink").
 */
const KINDS: ReadonlyArray<{ names: readonly string[]; words: readonly string[] }> = [
  { names: ['meal', 'food', 'dining', 'restaurant', 'entertain', 'catering', 'drink'], words: ['coffee', 'latte', 'espresso', 'cappuccino', 'mocha', 'tea', 'sandwich', 'burger', 'pizza', 'salad', 'soup', 'lunch', 'dinner', 'breakfast', 'beer', 'wine', 'soda', 'coke', 'water', 'juice', 'fries', 'chicken', 'beef', 'taco', 'burrito', 'bowl', 'wrap', 'muffin', 'bagel', 'donut', 'cookie', 'snack', 'meal', 'combo', 'steak', 'pasta', 'rice', 'noodle', 'dessert', 'cake', 'entree', 'appetizer', 'drink', 'beverage', 'tip', 'gratuity', 'chips'] },
  { names: ['fuel', 'gas', 'petrol', 'diesel'], words: ['fuel', 'gas', 'gasoline', 'diesel', 'unleaded', 'unl', 'regular', 'premium', 'petrol', 'gallons', 'gal', 'pump', 'def'] },
  { names: ['lodging', 'hotel', 'accommodation'], words: ['room', 'night', 'nights', 'lodging', 'hotel', 'suite', 'occupancy', 'resort', 'stay', 'accommodation'] },
  { names: ['parking', 'toll'], words: ['parking', 'park', 'garage', 'valet', 'toll', 'tolls'] },
  { names: ['airfare', 'air', 'flight', 'travel'], words: ['airfare', 'flight', 'baggage', 'bag', 'seat', 'fare', 'ticket'] },
  { names: ['tool'], words: ['drill', 'saw', 'hammer', 'wrench', 'driver', 'bit', 'bits', 'blade', 'blades', 'tool', 'tools', 'level', 'sander', 'grinder', 'battery', 'charger', 'pliers', 'ladder'] },
  { names: ['material', 'supply', 'supplies', 'lumber', 'hardware'], words: ['lumber', 'plywood', 'osb', 'stud', 'studs', 'screw', 'screws', 'nail', 'nails', 'bolt', 'bolts', 'anchor', 'drywall', 'concrete', 'cement', 'mortar', 'paint', 'primer', 'caulk', 'pipe', 'pvc', 'copper', 'wire', 'conduit', 'tape', 'glue', 'adhesive', 'insulation', 'shingle', 'shingles', 'rebar', 'gravel', 'sand', 'tile', 'grout', 'board', 'lbr', 'fitting', 'fittings', 'valve'] },
  { names: ['safety', 'ppe'], words: ['gloves', 'glove', 'glasses', 'goggles', 'vest', 'helmet', 'hardhat', 'respirator', 'mask', 'masks', 'earplugs', 'boots', 'harness', 'safety'] },
  { names: ['office'], words: ['paper', 'pen', 'pens', 'ink', 'toner', 'printer', 'stapler', 'staples', 'folder', 'folders', 'envelope', 'envelopes', 'notebook', 'binder', 'marker', 'markers', 'cartridge'] },
  { names: ['rental', 'equipment'], words: ['rental', 'rent', 'lift', 'excavator', 'skid', 'generator', 'compressor', 'scaffold', 'dumpster'] },
  { names: ['vehicle', 'repair', 'auto', 'maintenance'], words: ['oil', 'filter', 'tire', 'tires', 'brake', 'brakes', 'wiper', 'alignment', 'lube', 'coolant', 'antifreeze', 'labor'] },
  { names: ['shipping', 'postage', 'freight'], words: ['shipping', 'postage', 'freight', 'delivery', 'package', 'parcel', 'label'] },
];

const wordsOf = (s: string) => s.toLowerCase().match(/[a-z][a-z']+/g)?.map((w) => w.replace(/'/g, '')) ?? [];

/** Labels that mean the items have ended (totals, payment) or that are not items. */
const NOT_ITEM = new Set(['final', 'total', 'subtotal', 'excluding', 'payment', 'change', 'rounding', 'tax', 'charge', 'discount', 'count']);

/** Item lines of a receipt: lines with one price before the first total, in order. */
export function receiptItems(text: string): Array<{ text: string; amountCents: number }> {
  const lines = moneyLines(receiptLines(text.slice(0, 20_000)));
  const items: Array<{ text: string; amountCents: number }> = [];
  for (const ml of lines) {
    if (ml.kind === 'final' || ml.kind === 'total' || ml.kind === 'subtotal' || ml.kind === 'payment') break;
    if (NOT_ITEM.has(ml.kind) || ml.amounts.length === 0 || ml.words.length === 0) continue;
    const price = ml.amounts[ml.amounts.length - 1]!.cents;
    if (price <= 0) continue;
    items.push({ text: ml.line.text.slice(0, 120), amountCents: price });
  }
  return items.slice(0, 200);
}

/** The company category an item line belongs to, by its words, or null when nothing says. */
export function categoryOfItem(text: string, categories: readonly string[], costCodes: readonly CostCodeName[]): string | null {
  const words = new Set(wordsOf(text));
  if (words.size === 0) return null;
  const scores = new Map<string, number>();
  const add = (category: string, by: number) => scores.set(category, (scores.get(category) ?? 0) + by);
  for (const category of categories) {
    const own = wordsOf(category).filter((w) => w.length >= 3);
    // The category's own name on the line ("PARKING 2 HRS" in PARKING & TOLLS).
    for (const w of own) if (words.has(w) || words.has(w.replace(/s$/, ''))) add(category, 2);
    for (const kind of KINDS) {
      if (!own.some((w) => kind.names.some((n) => w.startsWith(n)))) continue;
      for (const w of kind.words) if (words.has(w)) add(category, 1);
    }
  }
  for (const cc of costCodes) {
    for (const w of wordsOf(cc.name).filter((x) => x.length >= 4)) if (words.has(w) && categories.includes(cc.category)) add(cc.category, 1);
  }
  let best: string | null = null;
  let bestScore = 0;
  let tie = false;
  for (const [category, score] of scores) {
    if (score > bestScore) [best, bestScore, tie] = [category, score, false];
    else if (score === bestScore) tie = true;
  }
  return tie ? null : best;
}

/** Spreads `totalCents` over weights, to the cent (largest remainder); signs follow the total. */
export function spread(totalCents: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const abs = Math.abs(totalCents);
  const sign = totalCents < 0 ? -1 : 1;
  if (sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (abs * w) / sum);
  const out = exact.map((x) => Math.floor(x + 1e-9));
  let left = abs - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, r: x - out[i]! })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) out[order[k]!.i]! += 1;
  return out.map((c) => c * sign);
}

/** The cost code to use for a category: the transaction's own when it belongs there, else the category's first. */
function costCodeFor(category: string, input: ProposalInput): string {
  const own = input.costCodes.find((c) => c.name === input.costCode);
  if (own && own.category === category) return own.name;
  return input.costCodes.find((c) => c.category === category)?.name ?? input.costCode;
}

export function proposeSplit(input: ProposalInput): SplitProposal {
  const jobNumber = input.jobNumber || input.jobNumbers[0] || '';
  const fallbackCategory = input.category || input.categories[0] || '';
  const items = input.receipt ? receiptItems(input.receipt.text) : [];
  const categorised: ProposedItem[] = items.map((it) => ({ ...it, category: categoryOfItem(it.text, input.categories, input.costCodes) }));
  const groups = new Map<string, number>();
  for (const it of categorised) {
    const c = it.category ?? fallbackCategory;
    if (c) groups.set(c, (groups.get(c) ?? 0) + it.amountCents);
  }
  const receiptRef = input.receipt ? { receiptId: input.receipt.id } : {};
  if (groups.size >= 2 && Math.abs(input.amountCents) >= groups.size) {
    const entries = [...groups.entries()].sort((a, b) => b[1] - a[1]);
    const cents = spread(input.amountCents, entries.map(([, c]) => c));
    const itemSum = entries.reduce((s, [, c]) => s + c, 0);
    const parts = entries.map(([category], i) => ({ amountCents: cents[i]!, category, jobNumber, costCode: costCodeFor(category, input) }));
    const scaled = itemSum === Math.abs(input.amountCents) ? 'they add up to the card amount' : `their ${(itemSum / 100).toFixed(2)} scaled to the card amount ${(Math.abs(input.amountCents) / 100).toFixed(2)} (tax, tip and rounding spread in proportion)`;
    return {
      source: 'receipt', ...receiptRef, parts, items: categorised,
      details: `Proposed from ${items.length} item lines of the matched receipt in ${parts.length} categories; ${scaled}.`,
    };
  }
  const why = !input.receipt
    ? 'No receipt is matched to this transaction'
    : items.length === 0
      ? 'The matched receipt has no item lines that could be read'
      : `The ${items.length} item lines of the matched receipt all fall in one category`;
  const cents = spread(input.amountCents, [1, 1]);
  const parts = cents.map((amountCents) => ({ amountCents, basisPoints: 5000, category: fallbackCategory, jobNumber, costCode: costCodeFor(fallbackCategory, input) }));
  return { source: 'even', ...receiptRef, parts, items: categorised, details: `${why}: an even split in two is proposed; change the categories, job numbers and cost codes of the parts.` };
}
