/**
 * Auto-match at scale: 10,000 receipts against 100,000 card lines in one company,
 * synthetic but shaped like real data (seeded, so every run sees the same company):
 * - 1,500 merchants with registered names ("SRI MAJU HARDWARE TRADING SDN BHD") and the
 *   card descriptor a network makes of each (upper case, legal form and filler dropped, an
 *   optional processor code, cut at 22 characters, an optional city or store number);
 * - receipts over two years, log-normal totals, some with OCR noise in the merchant;
 * - 70 % of receipts have a card line: mostly the exact amount, some rounding, foreign-card
 *   fees and restaurant tips, posted 0-5 days later;
 * - decoys: the same amount at another merchant another week, the same merchant at another
 *   amount a few days off; then ordinary spending and a few refunds up to 100,000 lines.
 * Prints the median of 5 runs of autoMatch, a baseline measured in the same run (sorting the
 * lines by amount, which any index needs) and the ratio, then precision and recall.
 * Goal: <= 5 s.
 *   node --import tsx bench/matching-scale.ts [--receipts 10000] [--lines 100000]
 */
import { autoMatch } from '../domain/src/matching/index';
import type { ReceiptInput, TransactionInput } from '../domain/src/matching/index';
import { fmt, median, percentile, row, runs } from './lib';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => Number(args[args.indexOf(name) + 1] || fallback) || fallback;
const RECEIPTS = args.includes('--receipts') ? arg('--receipts', 10_000) : 10_000;
const LINES = args.includes('--lines') ? arg('--lines', 100_000) : 100_000;
const RUNS = 5;
const THRESHOLD = 75;

/** mulberry32: small, fast, seeded. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = prng(20240601);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
const chance = (p: number) => rand() < p;
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const SYLLABLES = ['KA', 'LI', 'MA', 'RA', 'SEN', 'TAN', 'WO', 'NG', 'HUA', 'JA', 'YA', 'MAJ', 'BA', 'RU', 'IN', 'DAH', 'SRI', 'ME', 'GA', 'PU', 'TRA', 'SI', 'NAR', 'CA', 'HA', 'BIN', 'TANG', 'E', 'MAS', 'PER', 'MAI', 'HAR', 'MO', 'NI', 'SEN', 'TO', 'SA', 'KO', 'LAM', 'PA', 'CHU', 'AN', 'LEO', 'KIM', 'HOCK', 'SENG', 'YEW', 'LOK', 'FU', 'DA', 'ZEN', 'VI', 'RO', 'NE', 'TI', 'QU', 'BE', 'DO', 'GU', 'PHO'];
const CATEGORIES = ['RESTORAN', 'RESTAURANT', 'CAFE', 'KOPITIAM', 'HARDWARE', 'STATIONERY', 'MINI MARKET', 'PHARMACY', 'BAKERY', 'ELECTRICAL', 'FRESH MART', 'BOOKSTORE', 'AUTO PARTS', 'KITCHEN', 'OPTICAL', ''];
const LEGAL = ['SDN BHD', 'SDN. BHD.', 'S/B', 'ENTERPRISE', 'TRADING', 'TRADING SDN BHD', 'SERVICES SDN BHD', 'LLC', 'LTD', ''];
const FILLER = new Set(['SDN', 'BHD', 'S/B', 'ENTERPRISE', 'TRADING', 'SERVICES', 'LLC', 'LTD']);
const CITIES = ['KUALA LUMPUR', 'PETALING JAYA', 'SHAH ALAM', 'JOHOR BAHRU', 'PENANG', 'IPOH', 'MELAKA', 'KUCHING', 'SUBANG JAYA', 'KLANG'];
const RESTAURANTS = new Set(['RESTORAN', 'RESTAURANT', 'CAFE', 'KOPITIAM', 'KITCHEN']);

interface Merchant {
  name: string;
  descriptor: string;
  restaurant: boolean;
}

function word(): string {
  let w = '';
  for (let k = int(2, 3); k > 0; k--) w += pick(SYLLABLES);
  return w;
}

/** A registered name and what a card network prints for it. */
function merchant(): Merchant {
  const category = pick(CATEGORIES);
  const words = [word(), ...(chance(0.6) ? [word()] : []), ...(category ? [category] : [])];
  const name = [...words, pick(LEGAL)].filter(Boolean).join(' ');
  const trading = name.replace(/\./g, '').split(' ').filter((w) => !FILLER.has(w)).join(' ');
  const roll = rand();
  const prefix = roll < 0.2 ? 'SQ *' : roll < 0.3 ? 'POS ' : roll < 0.35 && RESTAURANTS.has(category) ? 'TST* ' : '';
  let descriptor = `${prefix}${trading}`.slice(0, 22).trimEnd();
  if (chance(0.4)) descriptor += ` ${pick(CITIES)}`;
  else if (chance(0.2)) descriptor += ` #${int(1000, 9999)}`;
  return { name, descriptor, restaurant: RESTAURANTS.has(category) };
}

/** One OCR slip in a merchant name: a look-alike character or a dropped letter. */
function ocrNoise(name: string): string {
  const swaps: Record<string, string> = { O: '0', I: '1', S: '5', B: '8', L: '1' };
  const k = int(0, name.length - 1);
  const c = name[k] ?? '';
  if (swaps[c] !== undefined && chance(0.7)) return name.slice(0, k) + swaps[c] + name.slice(k + 1);
  return /[A-Z]/.test(c) ? name.slice(0, k) + name.slice(k + 1) : name;
}

const START = Date.UTC(2023, 0, 1);
const iso = (day: number) => new Date(START + day * 86_400_000).toISOString().slice(0, 10);
/** Log-normal receipt totals around RM 40, a third of them round (x.00 or x.50). */
function total(): number {
  const c = Math.max(100, Math.round(Math.exp(Math.log(4000) + 1.1 * (rand() + rand() + rand() - 1.5) * 1.4)));
  return chance(0.33) ? Math.max(100, Math.round(c / 50) * 50) : c;
}
const DELAYS = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 5];

interface Company {
  receipts: ReceiptInput[];
  transactions: TransactionInput[];
  truth: Map<string, string>;
}

function company(): Company {
  const merchants = Array.from({ length: 1500 }, merchant);
  const receipts: ReceiptInput[] = [];
  const lines: Omit<TransactionInput, 'id'>[] = [];
  const truthLine = new Map<number, string>();
  const line = (m: Merchant, day: number, cents: number) => lines.push({ date: iso(day), description: m.descriptor, amountCents: -cents });
  for (let i = 0; i < RECEIPTS; i++) {
    const m = pick(merchants);
    const day = int(0, 729);
    const cents = total();
    const id = `r${String(i).padStart(5, '0')}`;
    receipts.push({ id, merchant: chance(0.1) ? ocrNoise(m.name) : m.name, date: iso(day), totalCents: cents });
    if (chance(0.7)) {
      const roll = rand();
      const card = roll < 0.86 ? cents
        : roll < 0.92 ? cents + pick([-2, -1, 1, 2])
          : roll < 0.97 ? Math.round(cents * (1 + int(10, 30) / 1000))
            : m.restaurant ? Math.round(cents * (1 + int(10, 20) / 100)) : cents;
      truthLine.set(lines.length, id);
      line(m, day + pick(DELAYS), card);
    }
    if (chance(0.3)) line(pick(merchants), day + pick([-1, 1]) * int(7, 30), cents);
    if (chance(0.3)) line(m, day + int(-5, 5), Math.round(cents * pick([0.5, 0.7, 0.8, 1.3, 1.45, 1.8])));
  }
  while (lines.length < LINES) {
    const m = pick(merchants);
    const refund = chance(0.01);
    lines.push({ date: iso(int(0, 734)), description: refund ? `REFUND ${m.descriptor}` : m.descriptor, amountCents: refund ? total() : -total() });
  }
  const order = lines.map((_, k) => k);
  for (let k = order.length - 1; k > 0; k--) {
    const j = Math.floor(rand() * (k + 1));
    [order[k], order[j]] = [order[j] ?? 0, order[k] ?? 0];
  }
  const transactions: TransactionInput[] = [];
  const truth = new Map<string, string>();
  order.forEach((k, n) => {
    const tx = { id: `t${String(n).padStart(6, '0')}`, ...(lines[k] as Omit<TransactionInput, 'id'>) };
    transactions.push(tx);
    const receiptId = truthLine.get(k);
    if (receiptId !== undefined) truth.set(receiptId, tx.id);
  });
  return { receipts, transactions, truth };
}

const built = performance.now();
const { receipts, transactions, truth } = company();
console.log(`Auto-match at scale: ${fmt(receipts.length)} receipts, ${fmt(transactions.length)} card lines in one company, ${fmt(truth.size)} with a true line (generated in ${fmt(performance.now() - built)} ms)`);

const baseline = await runs(RUNS, () => {
  const t0 = performance.now();
  [...transactions].sort((a, b) => a.amountCents - b.amountCents);
  [...receipts].sort((a, b) => (a.totalCents ?? 0) - (b.totalCents ?? 0));
  return performance.now() - t0;
});
let proposals: ReturnType<typeof autoMatch> = [];
const times = await runs(RUNS, () => {
  const t0 = performance.now();
  proposals = autoMatch(receipts, transactions, { threshold: THRESHOLD });
  return performance.now() - t0;
});
const ms = median(times);
const base = median(baseline);
row(`autoMatch, threshold ${THRESHOLD}, median of ${RUNS} (ms)`, fmt(ms), `runs ${times.map((t) => fmt(t)).join(', ')}; p100 ${fmt(percentile(times, 100))} ms; goal <= 5,000 ms: ${ms <= 5000 ? 'met' : 'NOT met'}`);
row('baseline: sort lines and receipts by amount (ms)', fmt(base, 1), 'same run, median of 5');
row('ratio autoMatch / baseline', `${fmt(ms / base, 1)}x`);
const correct = proposals.filter((p) => truth.get(p.receiptId) === p.transactionId).length;
row(`proposals at ${THRESHOLD}: precision / recall`, `${(correct / Math.max(1, proposals.length)).toFixed(3)} / ${(correct / truth.size).toFixed(3)}`,
  `${fmt(correct)} correct of ${fmt(proposals.length)}; recall counts tips (never auto-matched) as misses`);
