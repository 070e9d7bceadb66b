import { describe, expect, it } from 'vitest';
import { merchantSimilarity } from './similarity';
import { levenshtein, ocrFold, wordSimilarity } from './words';

const GOOD = 0.85;
const DIFFERENT = 0.4;

describe('merchantSimilarity: the same shop as a card network prints it', () => {
  it.each([
    ['upper case', 'Pappa Rich Bmc', 'PAPPA RICH BMC'],
    ['SDN BHD dropped', 'SUN WONG KUT SDN BHD', 'SQ *SUN WONG KUT #7717'],
    ['LLC dropped', "Joe's Pizza LLC", 'TST* JOES PIZZA NEW YORK NY'],
    ['LTD dropped, city added', 'TIMELESS KITCHENETTE LTD', 'TIMELESS KITCHENETTE KUALA LUMPUR'],
    ['SQ * prefix', 'CHEF LEE SDN BHD', 'SQ *CHEF LEE'],
    ['TST* prefix', 'BLUE HILL CAFE', 'TST* BLUE HILL CAFE'],
    ['POS prefix', 'BHPETROL PALEKBANG', 'POS BHPETROL PALEKBANG JOHOR BAHRU'],
    ['store number', 'INDAH GIFT & HOME DECO', 'INDAH GIFT & HOME DECO #8487'],
    ['STORE nnnn', 'Starbucks', 'STARBUCKS STORE 10423 SEATTLE WA'],
    ['city and state appended', 'Blue Bottle Coffee Inc.', 'SQ *BLUE BOTTLE COFFEE OAKLAND CA'],
    ['corporate filler left out', 'SHELL ISNI PETRO TRADING', 'SHELL ISNI PETRO'],
    ['filler and legal form left out', 'DOMMAL FOOD SERVICES SDN BHD', 'DOMMAL FOOD #9721'],
    ['spelled-out letters', 'MR. D.I.Y. (M) SDN BHD', 'MR D I Y M KUALA LUMPUR'],
  ])('%s', (_what, receipt, descriptor) => {
    expect(merchantSimilarity(receipt, descriptor)).toBeGreaterThanOrEqual(GOOD);
  });

  it.each([
    ['cut at 22 characters with a processor code', 'LIM SENG THO HARDWARE TRADING', 'SQ *LIM SENG THO HARDW'],
    ['cut mid-word, then a city', "NANDO'S CHICKENLAND MALAYSIA SDN BHD", "SQ *NANDO'S CHICKENLAN KUALA LUMPUR"],
    ['cut to one letter, then a city', 'GL HANDICRAFT & TAII ORING', 'GL HANDICRAFT & TAII O SHAH ALAM'],
    ['cut inside a word, then a city', 'GL HANDICRAFT & TAILORING', 'GL HANDICRAFT & TAILOR SHAH ALAM'],
    ['cut to two letters after filler', 'SYARIKAT PERNIAGAAN GIN KEE', 'SYARIKAT PERNIAGAAN GI KUALA LUMPUR'],
    ['cut after the 22nd character, then a city', 'LEONG HENG SHELL SERVICE STATION', 'LEONG HENG SHELL SERVI SHAH ALAM'],
    ['cut at a word boundary', 'KEDAI PAPAN YEW CHUAN', 'SQ *KEDAI PAPAN YEW CH'],
  ])('truncation: %s', (_what, receipt, descriptor) => {
    expect(merchantSimilarity(receipt, descriptor)).toBeGreaterThanOrEqual(GOOD);
  });

  it.each([
    ['0/O and 1/I', 'LlM SENG TH0 HARDWARE', 'LIM SENG THO HARDWARE'],
    ['1/I and 8/B', 'PAPPAR1CH 8MC', 'SQ *PAPPARICH BMC'],
    ['5/S', 'WATSON5 PERSONAL CARE', 'WATSONS PERSONAL CARE'],
    ['a dropped letter', 'KEDAI PAPN YEW CHUAN', 'KEDAI PAPAN YEW CHUAN'],
    ['a typo in a long word', 'AMTECH ELECTRICL SUPPLIES', 'AMTECH ELECTRICAL SUPP KUALA LUMPUR'],
    ['a word split in two', 'NANDOS CHICKEN LAND', 'NANDOS CHICKENLAND'],
  ])('OCR: %s', (_what, receipt, descriptor) => {
    expect(merchantSimilarity(receipt, descriptor)).toBeGreaterThanOrEqual(GOOD);
  });

  it('keeps names sharing only corporate filler below the plausible range', () => {
    expect(merchantSimilarity('SYARIKAT PERNIAGAAN XYZ', 'SYARIKAT PERNIAGAAN GI KUALA LUMPUR')).toBeLessThan(0.5);
  });

  it('copes with word order', () => {
    expect(merchantSimilarity('CHEF LEE', 'LEE CHEF')).toBeGreaterThanOrEqual(GOOD);
  });

  it('reads a vowel-dropped abbreviation', () => {
    expect(merchantSimilarity('KLANG FRESH MARKET', 'KLANG FRESH MKT')).toBeGreaterThanOrEqual(GOOD);
  });
});

describe('merchantSimilarity: different shops', () => {
  it.each([
    ['unrelated names', 'KEDAI PAPAN YEW CHUAN', 'MAXIS BILL'],
    ['a shared category word only', 'GIANT HYPERMARKET', 'CHECKERS HYPERMARKET J KUALA LUMPUR'],
    ['a shared brand word among others', 'SHELL ISNI PETRO TRADING', 'LEONG HENG SHELL SERVI SHAH ALAM'],
    ['a shared prefix only', 'PETRODELI ENTERPRISE', 'PETRONAS'],
    ['a shared filler word only', 'DOMMAL FOOD SERVICES', 'AMAZON WEB SERVICES'],
    ['a first word against a cut last word', 'HARDAH ELECTRICAL', 'SQ *MEHARMAS YATI HARD IPOH'],
    ['one substitution in a short name', 'YAPHO BAKERY', 'HAPHO BOOKSTORE'],
    ['similar beginnings', 'UNIHAKKA INTERNATIONAL SDN BHD', 'UNIQLO'],
    ['the same filler words, then another name', 'PERNIAGAAN ZHENG HUI', 'PERNIAGAAN LIM KEE'],
    ['a shared prefix with OCR slack, then another name', 'KEDAI UBAT CINA ZHENG', 'KEDAI UBAT LIM'],
  ])('%s', (_what, receipt, descriptor) => {
    expect(merchantSimilarity(receipt, descriptor)).toBeLessThan(DIFFERENT);
  });

  it('is 0 for empty input and stays within 0..1', () => {
    expect(merchantSimilarity('', 'STARBUCKS')).toBe(0);
    const s = merchantSimilarity('STARBUCKS', 'STARBUCKS');
    expect(s).toBe(1);
  });
});

describe('word helpers', () => {
  it('folds OCR look-alikes', () => {
    expect(ocrFold('H0TEL 5ENTRAL')).toBe(ocrFold('HOTEL SENTRAL'));
    expect(ocrFold('8ISTRO')).toBe(ocrFold('BISTRO'));
  });

  it('scores prefixes and typos', () => {
    expect(wordSimilarity('HARDWARE', 'HARDW', { bMayBeCut: true })).toBeGreaterThan(0.85);
    expect(wordSimilarity('HARDWARE', 'HARDW')).toBe(0);
    expect(wordSimilarity('HARDWARE', 'HARDWRE')).toBeCloseTo(0.875, 3);
    expect(wordSimilarity('123', '124')).toBe(0);
  });

  it('computes bounded Levenshtein distances', () => {
    expect(levenshtein('KITTEN', 'SITTING')).toBe(3);
    expect(levenshtein('KITTEN', 'SITTING', 1)).toBe(2);
    expect(levenshtein('', 'ABC')).toBe(3);
  });
});

describe('a mark at the receipt edge read as a letter before a word', () => {
  it('still finds the descriptor word whole at the end of the receipt word, one way only', () => {
    expect(wordSimilarity('TLIM', 'LIM')).toBeCloseTo(0.8, 5);
    expect(wordSimilarity('LIM', 'TLIM')).toBe(0);
    expect(wordSimilarity('TXLIM', 'LIM')).toBe(0);
    expect(wordSimilarity('TLI', 'LI')).toBe(0);
  });

  it('keeps the shop matched; a different shop stays apart', () => {
    // Invented: a hardware shop whose receipt picked up a margin mark before its first word.
    expect(merchantSimilarity('TLAM HOCK HARDWARE TRADING', 'SQ *LAM HOCK HARDWARE')).toBeGreaterThan(0.85);
    expect(merchantSimilarity('ILAM HOCK HARDWARE TRADING', 'LAM HOCK HARDWARE PENANG')).toBeGreaterThan(0.85);
    expect(merchantSimilarity('TLAM HOCK HARDWARE TRADING', 'LAM SENG MOTOR PARTS')).toBeLessThan(0.5);
    // Never above the same name read without the mark.
    for (const [noisy, clean, d] of [['TLAM HOCK HARDWARE TRADING', 'LAM HOCK HARDWARE TRADING', 'LAM SENG MOTOR PARTS'], ['XBAR CAFE', 'BAR CAFE', 'BAR LOUIE'], ['TLAM HOCK', 'LAM HOCK', 'SQ *LAM HOCK']] as const) {
      expect(merchantSimilarity(noisy, d)).toBeLessThanOrEqual(merchantSimilarity(clean, d));
    }
  });
});
