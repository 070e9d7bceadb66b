/**
 * How much a word says about which merchant it is. These are word classes, not merchants:
 * the lists hold grammar, corporate filler and shop categories in the languages our users'
 * receipts come in (English, Malay, a little German/French), never a brand or a city.
 */

/** Grammar and web noise: carries almost nothing. */
const STOP = new Set(['THE', 'AND', 'OF', 'AT', 'DE', 'DU', 'LA', 'LE', 'DAN', 'UND', 'ET', 'BY', 'FOR', 'A', 'AN']);

/**
 * Corporate filler: words of a registered name that card descriptors usually leave out
 * ("SHELL ISNI PETRO TRADING" is "SHELL ISNI PETRO" on the card, "DOMMAL FOOD SERVICES" is
 * "DOMMAL FOOD"). Missing them must cost little; matching them must prove little.
 */
const FILLER = new Set([
  'TRADING', 'TRADERS', 'TRADER', 'SERVICES', 'SERVICE', 'SVCS', 'SVC', 'INTERNATIONAL', 'INTL', 'ENTERPRISE', 'ENTERPRISES',
  'ENT', 'HOLDINGS', 'HOLDING', 'GROUP', 'INDUSTRIES', 'INDUSTRY', 'MARKETING', 'MANAGEMENT', 'SOLUTIONS', 'RESOURCES',
  'VENTURES', 'VENTURE', 'CONCEPTS', 'CONCEPT', 'PARTNERS', 'ASSOCIATES', 'GLOBAL', 'WORLDWIDE', 'NETWORK', 'MALAYSIA',
  'SINGAPORE', 'INDONESIA', 'AMERICA', 'USA', 'US', 'UK', 'COMPANY', 'CORPORATION', 'SYARIKAT', 'PERNIAGAAN', 'RETAIL',
  'DISTRIBUTION', 'DISTRIBUTORS', 'OPERATIONS', 'BRANCH', 'HQ', 'OUTLET', 'PERUSAHAAN', 'NIAGA', 'USAHA',
]);

/**
 * Shop categories: shared by many merchants, so a match on them alone is weak evidence,
 * but a receipt and a descriptor of the same shop will usually both carry them.
 */
const GENERIC = new Set([
  'RESTAURANT', 'RESTORAN', 'REST', 'CAFE', 'COFFEE', 'KOPITIAM', 'KEDAI', 'MAKAN', 'BAKERY', 'BAR', 'GRILL', 'KITCHEN',
  'FOOD', 'FOODS', 'MART', 'MINIMART', 'MINI', 'MARKET', 'SUPERMARKET', 'HYPERMARKET', 'STORE', 'STORES', 'SHOP', 'STATION',
  'PETROL', 'GAS', 'FUEL', 'HARDWARE', 'STATIONERY', 'PHARMACY', 'FARMASI', 'CLINIC', 'KLINIK', 'HOTEL', 'ELECTRICAL',
  'ELECTRONICS', 'TRAVEL', 'TRAVELS', 'AUTO', 'MOTOR', 'MOTORS', 'CENTRE', 'CENTER', 'PLAZA', 'MALL', 'BOOKS', 'BOOKSTORE',
  'FRESH', 'OFFICE', 'SUPPLIES', 'SUPPLY', 'GIFT', 'GIFTS', 'HOME', 'TAXI', 'PARKING', 'BEAUTY', 'SALON', 'FASHION',
  'BOUTIQUE', 'DELI', 'PIZZA', 'BURGER', 'SUSHI', 'NOODLE', 'NOODLES', 'CHICKEN', 'BBQ', 'TEA', 'JUICE', 'DRINKS', 'WINE',
  'LIQUOR', 'DENTAL', 'MEDICAL', 'OPTICAL', 'LAUNDRY', 'CAR', 'WASH', 'TYRE', 'TIRE', 'SPORTS', 'PET', 'FLORIST', 'PRINT',
  'PRINTING', 'COPY', 'DEPOT', 'EXPRESS', 'NEW', 'CITY', 'GENERAL', 'STAR', 'GOLDEN', 'ONE', 'ENGINEERING',
  'CONSTRUCTION', 'MACHINERY', 'MATERIALS', 'BUILDING', 'FURNITURE', 'TEXTILE', 'TEXTILES', 'JEWELLERY', 'GOLDSMITH',
  'MOBILE', 'PHONE', 'COMPUTER', 'COMPUTERS', 'CAKE', 'CAKES', 'SEAFOOD', 'STEAMBOAT', 'HALAL',
  // Malay shop categories: "KEDAI UBAT" is a pharmacy, "KEDAI RUNCIT" a grocery.
  'UBAT', 'JAMU', 'RUNCIT', 'KOPI', 'MINUMAN', 'PASARAYA', 'BORONG', 'BENGKEL', 'PERABOT', 'KAIN', 'KASUT', 'JAHIT',
  'ELEKTRIK', 'GUNTING', 'DOBI', 'TAYAR', 'PERKAKASAN', 'BUKU', 'BAKERI', 'ROTI', 'KUIH', 'BUAH', 'SAYUR', 'IKAN',
  'DAGING', 'AYAM', 'PERUBATAN', 'KOMPUTER', 'TELEFON', 'BINAAN', 'MOTOSIKAL',
]);

/** Words that say "a meal was served here": the only places where a tip is expected. */
const RESTAURANT = new Set([
  'RESTAURANT', 'RESTORAN', 'REST', 'RESTAURANTE', 'CAFE', 'COFFEE', 'KOPITIAM', 'MAMAK', 'MAKAN', 'BISTRO', 'BRASSERIE',
  'DINER', 'GRILL', 'KITCHEN', 'KITCHENETTE', 'BAR', 'PUB', 'TAVERN', 'PIZZA', 'PIZZERIA', 'SUSHI', 'RAMEN', 'NOODLE',
  'NOODLES', 'BURGER', 'BURGERS', 'STEAKHOUSE', 'STEAK', 'BBQ', 'EATERY', 'CANTINA', 'TAQUERIA', 'TRATTORIA', 'OSTERIA',
  'BRAUHAUS', 'GASTHAUS', 'IZAKAYA', 'DIMSUM', 'CHICKEN', 'NASI', 'MEE', 'BAKUTEH', 'CATERING', 'EATS', 'DINING',
]);

/** Processor codes that only restaurants use (Toast). */
const RESTAURANT_PROCESSORS = new Set(['TST', 'TOAST']);

/**
 * Weight of a word by its class. Very short words say little too, whatever they are: single
 * letters are initials or cut-off tails, two letters ("MR", "GL", "TK") are shared by many
 * unrelated names.
 */
export function wordWeight(word: string): number {
  if (STOP.has(word)) return 0.1;
  if (FILLER.has(word)) return 0.15;
  if (word.length === 1) return 0.3;
  if (GENERIC.has(word)) return 0.4;
  if (word.length === 2) return 0.6;
  return 1;
}

/** True when the words or the processor code say the merchant serves meals (tips plausible). */
export function looksLikeRestaurant(words: readonly string[], processor: string | null = null): boolean {
  if (processor !== null && RESTAURANT_PROCESSORS.has(processor)) return true;
  return words.some((w) => RESTAURANT.has(w));
}
