/**
 * The merchant: a line near the top that reads like a business name. Receipts put the name
 * first, then address, registration and tax numbers, phone, and a "TAX INVOICE" banner; logos
 * and handwriting come out of OCR as short junk. Each top line is scored (business suffixes
 * up, address/contact/document words down, junk down, later lines down) and the best one is
 * cleaned. The registered name (… SDN BHD, … LTD) beats a trading name printed above it,
 * because that is what card statements and tax records show.
 */
import { clamp01, wordConfidence } from './ocr-text';
import type { ReceiptLine } from './ocr-text';
import type { Extracted, OcrWord } from './types';

/** How many lines from the top can hold the name. */
const HEAD_LINES = 10;

const LEGAL = /\b(S[DO0]N\.?\s?B[HN]D\.?|BHD|BERHAD|S\/B|PTE\.?\s?LTD|LTD|LIMITED|LLC|L\.?L\.?P|INC|CORP(ORATION)?|GMBH|PLC|PTY|SARL|CO\.,?\s?LTD|ENTERPRISES?|TRADING)\b/;
const LEGAL_ONLY = /^\(?[A-Z]?\)?\s*(S[DO0]N\.?\s?B[HN]D\.?|BHD|BERHAD|S\/B|PTE\.?\s?LTD|LTD|LIMITED|LLC|INC|GMBH)\s*\.?$/;
const BUSINESS = new RegExp(String.raw`\b(RESTAURANT|RESTORAN|CAFE|KEDAI|SYARIKAT|HARDWARE|MARKET|SUPERMARKET|HYPERMARKET|MINIMARKET|MART|`
  + String.raw`STATIONERY|SUPPLIES|SUPPLY|STORES?|SHOP|BAKERY|BAKERIES|PHARMACY|FARMASI|STATION|SERVICES?|KITCHEN|FOOD|`
  + String.raw`HOLDINGS|INTERNATIONAL|INDUSTRIES|ELECTRICAL|ELECTRONICS|HOTEL|BOOKS?|BOOKSTORE|BISTRO|DELI|GRILL|PIZZA|`
  + String.raw`COFFEE|TEA|BAR|PUB|OUTLET|CENTRE|CENTER|DISTRIBUTION|MOTORS?|AUTO|PETROL|OIL|PRINT|PRINTING|OPTICAL|`
  + String.raw`CLINIC|MEDICAL|DENTAL|SALON|BEAUTY|FASHION|BOUTIQUE|FURNITURE|GALLERY|LAUNDRY|TRAVEL|WORKSHOP|FLORIST|SPORTS)\b`);
const ADDRESS = /\b(JALAN|JLN|LORONG|LRG|TAMAN|TMN|LOT|BLOK|BLOCK|FLOOR|LEVEL|ROAD|RD|STREET|AVENUE|AVE|LANE|SUITE|UNIT|KAWASAN|BANDAR|PERSIARAN|SEKSYEN|SECTION|KUALA LUMPUR|SELANGOR|JOHOR|PENANG|PAHANG|KEDAH|PERAK|MELAKA|DARUL|EHSAN|BOX|NO)\b|\b\d{5}\b|\bNO\.?\s?\d|^(MALAYSIA|SINGAPORE|INDONESIA|THAILAND)\W*$/;
const CONTACT = /\b(TEL|TELEPHONE|FAX|PHONE|HP|MOBILE|EMAIL|E-MAIL|WWW|HTTPS?|COM|GST|SST|VAT|TIN|ABN|REG|ROC|BRN|UEN|ID|COMPANY NO|CO NO)\b|@|\(\s*\d{4,}[\d\s-]*[A-Z]?\s*\)/;
const DOCUMENT = /\b(TAX|INVOICE|RECEIPT|RECEIPTS|CASH SALE|BILL|CHECK|ORDER|TABLE|CASHIER|DATE|TIME|WELCOME|THANK|THANKS|OFFICIAL|COPY|DUPLICATE|REPRINT|TRANSACTION|MEMBER|POS|TERMINAL|QTY|TOTAL|ITEM|PRICE|NUMBER|GOODS|SOLD|REFUND|REFUNDABLE|RETURNABLE|EXCHANGE|EXCHANGEABLE|PLEASE|VISIT|AGAIN|CUSTOMER|PREPAY)\b/;
const OWNER = /\b(OWNED BY|OWN BY|OPERATED BY|MANAGED BY|A DIVISION OF|A SUBSIDIARY OF|A MEMBER OF)\b/;
const OWNER_PREFIX = /^.*?\b(owned|own|operated|managed|division of|subsidiary of|member of)\b(\s+by)?\s*:?/i;
/** Characters that logos, stamps and noise turn into. */
const JUNK = /[^A-Za-z0-9\s&'.,()\-/@:#]/g;

interface MerchantCandidate {
  line: ReceiptLine;
  name: string;
  score: number;
}

export function extractMerchant(lines: readonly ReceiptLine[], words?: readonly OcrWord[]): Extracted<string> | null {
  const head = lines.slice(0, HEAD_LINES);
  const addressStarts = head.findIndex((l) => isAddress(l.text));
  const scored = [...head, ...ownerLines(lines)]
    .map((line) => scoreLine(line, words, addressStarts >= 0 && line.index > addressStarts))
    .filter((c): c is MerchantCandidate => c !== null);
  if (scored.length === 0) return null;
  const ranked = [...scored].sort((a, b) => b.score - a.score);
  const best = ranked[0]!;
  if (best.score < -4) return null;
  const name = withNeighbour(best, head);
  const margin = ranked[1] ? best.score - ranked[1].score : 2;
  const ocr = wordConfidence(best.line.text, words) ?? 0.8;
  const confidence = clamp01(0.3 + 0.06 * best.score + 0.05 * Math.min(margin, 3)) * (0.5 + 0.5 * ocr);
  return { value: name, confidence: Math.round(confidence * 100) / 100 };
}

/**
 * Franchises print the brand on top and the company at the bottom ("Owned by / Dommal Food
 * Services Sdn Bhd"); such a line counts as if it were the first line.
 */
function ownerLines(lines: readonly ReceiptLine[]): ReceiptLine[] {
  const out: ReceiptLine[] = [];
  lines.forEach((line, at) => {
    if (at < HEAD_LINES || !OWNER.test(line.label)) return;
    const own = cleanName(line.text.replace(OWNER_PREFIX, ''));
    const target = LEGAL.test(own.toUpperCase()) ? { ...line, text: own } : lines[at + 1];
    if (target && LEGAL.test(target.text.toUpperCase())) out.push({ ...target, index: 0 });
  });
  return out;
}

/** The name comes before the address; a short line inside the address block is a town. */
const AFTER_ADDRESS = -1.5;

function isAddress(text: string): boolean {
  const label = cleanName(text).toUpperCase();
  return ADDRESS.test(label) && !LEGAL.test(label);
}

function scoreLine(line: ReceiptLine, words?: readonly OcrWord[], afterAddress = false): MerchantCandidate | null {
  const name = cleanName(line.text);
  const letters = name.replace(/[^A-Za-z]/g, '').length;
  if (letters < 3) return null;
  const label = name.toUpperCase();
  let score = -0.45 * line.index + (afterAddress ? AFTER_ADDRESS : 0);
  if (LEGAL.test(label)) score += 4;
  else if (BUSINESS.test(label)) score += 1.5;
  if (ADDRESS.test(label)) score -= 4;
  if (CONTACT.test(label)) score -= 4;
  if (DOCUMENT.test(label)) score -= 4;
  score += caseScore(name) + shapeScore(name, line.text);
  const ocr = wordConfidence(line.text, words);
  if (ocr !== undefined) score += (ocr - 0.75) * 6;
  return { line, name, score };
}

/** Printed names are upper or title case; an all-lowercase line is handwriting or a web address. */
function caseScore(name: string): number {
  const letters = name.replace(/[^A-Za-z]/g, '');
  const upper = letters.replace(/[^A-Z]/g, '').length / letters.length;
  if (upper === 0) return -3;
  return upper > 0.8 ? 1 : 0;
}

/** Junk characters, fragments and digit-heavy lines are not names. */
function shapeScore(name: string, raw: string): number {
  const tokens = name.split(/\s+/);
  const wordlike = tokens.filter(isWordlike).length;
  const digits = name.replace(/\D/g, '').length;
  const letters = name.replace(/[^A-Za-z]/g, '').length;
  let score = 0;
  score -= Math.min(3, (raw.match(JUNK)?.length ?? 0));
  if (wordlike / tokens.length < 0.5) score -= 3;
  if (digits / (letters + digits) > 0.3) score -= 3;
  if (tokens.length > 8) score -= 2;
  if (letters < 5) score -= 1;
  return score;
}

/**
 * A token that could be part of a printed name: a word with a vowel, a short upper-case
 * abbreviation (MR, TK, BHD), or a legal suffix. OCR junk is mostly mixed-case fragments.
 */
function isWordlike(token: string): boolean {
  const letters = token.replace(/[^A-Za-z]/g, '');
  if (letters.length < 2) return /^[&\d]/.test(token);
  if (LEGAL.test(token.toUpperCase())) return true;
  if (/^[A-Z]{2,4}$/.test(letters)) return true;
  return /[AEIOUYaeiouy]/.test(letters) && !/[a-z][A-Z]/.test(letters.slice(1));
}

/**
 * Names wrap: "Nando's Chickenland Malaysia" / "Sdn Bhd". A bare legal suffix line joins the
 * line above; a name line followed by a bare suffix takes it along.
 */
function withNeighbour(best: MerchantCandidate, head: readonly ReceiptLine[]): string {
  const at = head.indexOf(best.line);
  const label = best.name.toUpperCase();
  const next = head[at + 1];
  if (next && !LEGAL.test(label) && LEGAL_ONLY.test(cleanName(next.text).toUpperCase())) {
    return `${best.name} ${cleanName(next.text)}`;
  }
  const prev = head[at - 1];
  if (prev && best.name.split(/\s+/).length <= 3 && LEGAL.test(label) && looksLikeName(cleanName(prev.text))) {
    return `${cleanName(prev.text)} ${best.name}`;
  }
  return best.name;
}

function looksLikeName(text: string): boolean {
  const label = text.toUpperCase();
  return /[A-Z]{3,}/.test(label) && !ADDRESS.test(label) && !CONTACT.test(label) && !DOCUMENT.test(label)
    && !LEGAL.test(label) && !/\d/.test(label);
}

/**
 * Drops what surrounds a name on the same line: junk at the ends, a registration number in
 * brackets, and a lead-in such as "WELCOME TO" or "OWNED BY:".
 */
export function cleanName(text: string): string {
  let s = text.replace(/^\W*(WELCOME TO|SELAMAT DATANG(\s+KE)?)\s+/i, '');
  const colon = s.indexOf(':');
  if (colon >= 0 && LEGAL.test(s.slice(colon + 1).toUpperCase())) s = s.slice(colon + 1);
  s = s.replace(/\(\s*(CO\.?\s*)?(REG\.?\s*)?(NO\.?\s*)?[:.]?\s*[A-Z]?\d[\dA-Z\s-]*\)?\s*$/i, '');
  s = s.replace(/^[^A-Za-z0-9(]+/, '').replace(/[^A-Za-z0-9).]+$/, '');
  return tidyLegalSuffix(s.replace(/\s+/g, ' ').trim());
}

/** "SDN BHD" as OCR misreads it: SON/SEN/S0N/SD for SDN, 3HD/8HD/BND for BHD (not the correct forms). */
const MISREAD_SDN_BHD = /\b(S[DEO0]N|SD|5DN)\.?\s?([B83][HN]D)\b\.?/gi;

/**
 * Conservative repairs of what a person would see: a misread "SDN BHD" spelled right (in the
 * case it was printed), and short debris after the legal suffix ("… SDN BHD TG", "… SEN 3HD
 * 9 5 ex") dropped. Everything else is left as read.
 */
export function tidyLegalSuffix(name: string): string {
  let out = name.replace(MISREAD_SDN_BHD, (whole, sdn: string, bhd: string) => {
    if (/^SDN$/i.test(sdn) && /^BHD$/i.test(bhd)) return whole;
    return whole === whole.toUpperCase() ? 'SDN BHD' : 'Sdn Bhd';
  });
  const suffix = [...out.matchAll(/\b(SDN BHD|BHD|BERHAD|S\/B|PTE\.?\s?LTD|LTD|LIMITED|LLC|INC|GMBH)\b\.?/gi)].pop();
  if (suffix) {
    const end = (suffix.index ?? 0) + suffix[0].length;
    const rest = out.slice(end);
    if (rest.trim().length > 0 && !/[A-Za-z]{3,}/.test(rest) && !/^\s*\(/.test(rest)) out = out.slice(0, end);
  }
  return out.trim();
}
