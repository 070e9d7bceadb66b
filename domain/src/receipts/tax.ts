/**
 * The tax amount (GST, SST, VAT …). Tax lines also carry rates (6%), registration numbers
 * (GST ID 0010…) and taxable bases (AMT EXCL GST), so only the last amount of a tax line
 * counts, lines that name a base or an ID are skipped, and the tax must be a small part of
 * the total.
 */
import { labelledAmount } from './money-lines';
import type { MoneyLine } from './money-lines';
import { clamp01, exactWord, hasPhrase } from './ocr-text';
import type { ExtractedMoney } from './types';

const TAX_WORDS = ['GST', 'SST', 'VAT', 'TAX', 'MWST', 'TVA', 'IVA', 'PPN'];
const NOT_TAX = ['ID', 'REG', 'NO', 'INVOICE', 'TAXABLE', 'EXCL', 'EXCLUDING', 'SUMMARY', 'CODE', 'RELIEF', 'ACT'];
/** Taxes above this share of the total are misreads (no sales tax comes near 40 %). */
const MAX_TAX_SHARE = 0.4;

interface TaxCandidate {
  cents: number;
  score: number;
}

export function extractTax(all: readonly MoneyLine[], totalCents: number | undefined): ExtractedMoney | null {
  const candidates: TaxCandidate[] = [];
  all.forEach((ml, at) => {
    if (ml.kind !== 'tax' || !TAX_WORDS.some((w) => ml.words.includes(w))) return;
    if (NOT_TAX.some((w) => hasPhrase(ml.words, w, exactWord))) return;
    const amount = labelledAmount(all, at)?.amount;
    if (!amount || amount.cents <= 0) return;
    if (totalCents !== undefined && amount.cents > totalCents * MAX_TAX_SHARE) return;
    const rateShown = /%|@/.test(ml.line.text);
    const score = (rateShown ? 2 : 1) + (hasPhrase(ml.words, 'TOTAL', exactWord) ? 1 : 0) - (amount.repaired ? 1 : 0);
    candidates.push({ cents: amount.cents, score });
  });
  const best = candidates.sort((a, b) => b.score - a.score)[0];
  if (!best) return null;
  return { cents: best.cents, confidence: Math.round(clamp01(0.35 + 0.12 * best.score) * 100) / 100 };
}
