import { describe, expect, it } from 'vitest';
import { normalizeMerchant, stripProcessorPrefix, wordEndsInRaw } from './normalize';

describe('normalizeMerchant', () => {
  it('upper-cases, folds accents and drops punctuation', () => {
    expect(normalizeMerchant('Café de Flore')).toBe('CAFE DE FLORE');
    expect(normalizeMerchant("Nando's Chickenland")).toBe('NANDOS CHICKENLAND');
    expect(normalizeMerchant('Müller GmbH')).toBe('MULLER');
  });

  it('drops legal forms in their usual spellings', () => {
    expect(normalizeMerchant('SUN WONG KUT SDN BHD')).toBe('SUN WONG KUT');
    expect(normalizeMerchant('MIZU MENTAI SDN. BHD.')).toBe('MIZU MENTAI');
    expect(normalizeMerchant('MAKASSAR FRESH MARKET S/B')).toBe('MAKASSAR FRESH MARKET');
    expect(normalizeMerchant('ACME WIDGETS, LLC')).toBe('ACME WIDGETS');
    expect(normalizeMerchant('Tesco Stores Ltd.')).toBe('TESCO STORES');
    expect(normalizeMerchant('BLUE BOTTLE COFFEE INC')).toBe('BLUE BOTTLE COFFEE');
    expect(normalizeMerchant('SMITH & CO')).toBe('SMITH');
  });

  it('keeps words that are only sometimes legal forms when they are part of the name', () => {
    expect(normalizeMerchant('LIMITED EDITION STORE')).toBe('LIMITED EDITION STORE');
    expect(normalizeMerchant('PETRODELI ENTERPRISE')).toBe('PETRODELI ENTERPRISE');
    expect(normalizeMerchant('SHELL ISNI PETRO TRADING')).toBe('SHELL ISNI PETRO TRADING');
  });

  it('joins spelled-out letters and drops parenthesised asides', () => {
    expect(normalizeMerchant('MR. D.I.Y. (M) SDN BHD')).toBe('MR DIY');
    expect(normalizeMerchant('MR D I Y M KUALA LUMPUR')).toBe('MR DIYM KUALA LUMPUR');
    expect(normalizeMerchant('CHECKERS HYPERMARKET SDN BHD (JALAN KLANG LAMA)')).toBe('CHECKERS HYPERMARKET');
  });

  it('cuts processor codes (SQ *, TST*, POS, PAYPAL *, PP*, SP *, CKO*, IZ *, ZETTLE*) but not merchants that use a star', () => {
    expect(normalizeMerchant('SQ *BLUE BOTTLE')).toBe('BLUE BOTTLE');
    expect(normalizeMerchant('SQ*BLUE BOTTLE')).toBe('BLUE BOTTLE');
    expect(normalizeMerchant("TST* JOE'S PIZZA")).toBe('JOES PIZZA');
    expect(normalizeMerchant('TST*JOES PIZZA')).toBe('JOES PIZZA');
    expect(normalizeMerchant('POS BHPETROL PALEKBANG')).toBe('BHPETROL PALEKBANG');
    expect(normalizeMerchant('PAYPAL *EBAY')).toBe('EBAY');
    expect(normalizeMerchant('PP*SPOTIFY')).toBe('SPOTIFY');
    expect(normalizeMerchant('SP * ALLBIRDS')).toBe('ALLBIRDS');
    expect(normalizeMerchant('CKO*DELIVEROO')).toBe('DELIVEROO');
    expect(normalizeMerchant('IZ *CAFE NERO')).toBe('CAFE NERO');
    expect(normalizeMerchant('ZETTLE_*BAKERY')).toBe('BAKERY');
    expect(normalizeMerchant('GRAB* RIDE')).toBe('GRAB RIDE');
    expect(normalizeMerchant('UBER *EATS')).toBe('UBER EATS');
    expect(normalizeMerchant('GOOGLE *CLOUD')).toBe('GOOGLE CLOUD');
  });

  it('cuts bank wording before the merchant', () => {
    expect(normalizeMerchant('PURCHASE AUTHORIZED ON 03/14 SQ *BLUE BOTTLE')).toBe('BLUE BOTTLE');
    expect(normalizeMerchant('CHECKCARD 0314 SHELL OIL 57444')).toBe('SHELL OIL');
  });

  it('drops store numbers, long digit runs and reference codes, keeps short numbers of the name', () => {
    expect(normalizeMerchant('INDAH GIFT & HOME DECO #8487')).toBe('INDAH GIFT HOME DECO');
    expect(normalizeMerchant('STARBUCKS STORE 10423')).toBe('STARBUCKS');
    expect(normalizeMerchant('SHELL OIL 57444')).toBe('SHELL OIL');
    expect(normalizeMerchant('AMZN MKTP US*2K4LM8ZX0')).toBe('AMZN MKTP US');
    expect(normalizeMerchant('TRIPLE SIX POINT 666 KUALA LUMPUR')).toBe('TRIPLE SIX POINT 666 KUALA LUMPUR');
    expect(normalizeMerchant('7-ELEVEN')).toBe('7 ELEVEN');
  });

  it('drops web noise', () => {
    expect(normalizeMerchant('NETFLIX.COM')).toBe('NETFLIX');
    expect(normalizeMerchant('WWW.AGODA.COM')).toBe('AGODA');
  });

  it('never returns nothing for a name made of noise', () => {
    expect(normalizeMerchant('SDN BHD')).toBe('SDN BHD');
    expect(normalizeMerchant('')).toBe('');
  });
});

describe('stripProcessorPrefix', () => {
  it('says which code it cut', () => {
    expect(stripProcessorPrefix('SQ *CHEF LEE')).toEqual({ processor: 'SQ', rest: 'CHEF LEE' });
    expect(stripProcessorPrefix('TST* BAR')).toEqual({ processor: 'TST', rest: 'BAR' });
    expect(stripProcessorPrefix('POS B & BEST')).toEqual({ processor: 'POS', rest: 'B & BEST' });
    expect(stripProcessorPrefix('GRAB* RIDE')).toEqual({ processor: null, rest: 'GRAB* RIDE' });
  });
});

describe('wordEndsInRaw', () => {
  it('locates normalised words in the raw descriptor, processor code included', () => {
    // "POS B & BEST RESTAURAN" is 22 characters: the last word ends at the card's cut.
    expect(wordEndsInRaw('POS B & BEST RESTAURAN', ['B', 'BEST', 'RESTAURAN'])).toEqual([5, 12, 22]);
    expect(wordEndsInRaw('MR D I Y M KUALA LUMPUR', ['MR', 'DIYM', 'KUALA', 'LUMPUR'])).toEqual([2, 10, 16, 23]);
  });
});
