/**
 * General knowledge of US card merchants: which kind of spending a brand or a shop word
 * stands for. Concepts are not a company's categories: each company names its own, and the
 * model learns from the company's history which of its categories a concept lands in (and,
 * for a concept its history never met, falls back on the category's name: see
 * {@link conceptsOfCategoryName}). Lists hold national brands and shop words, never a
 * company's own suppliers.
 */

export const CONCEPTS = [
  'fuel', 'meals', 'lodging', 'airfare', 'ground', 'materials', 'tools', 'rental', 'office', 'software', 'telecom',
  'utilities', 'vehicle', 'government', 'shipping', 'parking', 'safety', 'groceries', 'medical', 'insurance', 'advertising',
] as const;
export type Concept = (typeof CONCEPTS)[number];

/** Phrases (one or more words of a merchant key) per concept. Longer phrases win. */
const PHRASES: Record<Concept, string[]> = {
  fuel: [
    'SHELL', 'EXXON', 'EXXONMOBIL', 'MOBIL', 'CHEVRON', 'TEXACO', 'BP', 'AMOCO', 'ARCO', 'CITGO', 'CONOCO', 'PHILLIPS 66', 'SUNOCO',
    'VALERO', 'MARATHON', 'SPEEDWAY', 'CIRCLE K', 'QT', 'QUIKTRIP', 'RACETRAC', 'RACEWAY', 'WAWA', 'SHEETZ', 'CASEYS', 'KUM GO',
    'LOVES', 'PILOT', 'FLYING J', 'TA TRAVEL', 'PETRO', 'MURPHY USA', 'MURPHY EXPRESS', 'SINCLAIR', 'GULF', 'HESS', 'MAVERIK',
    'HOLIDAY STATIONSTORES', 'KWIK TRIP', 'KWIK STAR', 'STEWARTS', 'CUMBERLAND FARMS', 'THORNTONS', 'BUCEES', '7 ELEVEN',
    'COSTCO GAS', 'SAMS FUEL', 'SAMSCLUB FUEL', 'WEX', 'FLEETCOR', 'FUEL', 'GAS', 'GASOLINE', 'DIESEL', 'PETROLEUM', 'OIL CO',
    'FUEL STOP', 'TRAVEL CENTER', 'TRUCK STOP', 'STRIPES', 'ALLSUPS', 'ONCUE', 'GATE', 'CENEX', 'MAPCO', 'ROYAL FARMS',
  ],
  meals: [
    'MCDONALDS', 'BURGER KING', 'WENDYS', 'TACO BELL', 'CHIPOTLE', 'SUBWAY', 'STARBUCKS', 'DUNKIN', 'PANERA', 'PANERA BREAD',
    'CHICK FIL A', 'CHICKFILA', 'SONIC', 'ARBYS', 'JACK IN THE BOX', 'WHATABURGER', 'IN N OUT', 'FIVE GUYS', 'POPEYES', 'KFC',
    'DOMINOS', 'PIZZA HUT', 'PAPA JOHNS', 'LITTLE CAESARS', 'JIMMY JOHNS', 'JERSEY MIKES', 'FIREHOUSE SUBS', 'QDOBA', 'MOES',
    'OLIVE GARDEN', 'APPLEBEES', 'CHILIS', 'IHOP', 'DENNYS', 'WAFFLE HOUSE', 'CRACKER BARREL', 'OUTBACK', 'TEXAS ROADHOUSE',
    'BUFFALO WILD WINGS', 'RAISING CANES', 'ZAXBYS', 'WINGSTOP', 'CULVERS', 'DAIRY QUEEN', 'BOJANGLES', 'HARDEES', 'CARLS JR',
    'EL POLLO LOCO', 'DEL TACO', 'PANDA EXPRESS', 'TIM HORTONS', 'EINSTEIN BROS', 'BRUEGGERS', 'SHAKE SHACK', 'SMASHBURGER',
    'POTBELLY', 'NOODLES', 'SWEETGREEN', 'CAVA', 'DOORDASH', 'GRUBHUB', 'UBER EATS', 'UBEREATS', 'POSTMATES', 'SEAMLESS',
    'RESTAURANT', 'RESTAURANTS', 'CAFE', 'COFFEE', 'DINER', 'GRILL', 'KITCHEN', 'BISTRO', 'EATERY', 'PIZZA', 'PIZZERIA', 'BURGER',
    'BURGERS', 'TACOS', 'TAQUERIA', 'CANTINA', 'BBQ', 'BARBECUE', 'SMOKEHOUSE', 'STEAKHOUSE', 'SUSHI', 'RAMEN', 'DELI', 'BAKERY',
    'BAGEL', 'BAGELS', 'DONUTS', 'DONUT', 'TAVERN', 'PUB', 'BREWING', 'BREWERY', 'CATERING', 'WINGS', 'SANDWICH', 'SANDWICHES',
    'CHICKEN', 'BREAD', 'TOAST',
  ],
  lodging: [
    'MARRIOTT', 'COURTYARD', 'RESIDENCE INN', 'FAIRFIELD INN', 'SPRINGHILL SUITES', 'TOWNEPLACE', 'HILTON', 'HAMPTON INN',
    'HAMPTON', 'HOMEWOOD SUITES', 'EMBASSY SUITES', 'DOUBLETREE', 'HOME2 SUITES', 'TRU BY HILTON', 'HYATT', 'HYATT PLACE',
    'HOLIDAY INN', 'HOLIDAY INN EXPRESS', 'CROWNE PLAZA', 'CANDLEWOOD', 'STAYBRIDGE', 'IHG', 'BEST WESTERN', 'LA QUINTA',
    'MOTEL 6', 'SUPER 8', 'DAYS INN', 'RAMADA', 'WYNDHAM', 'COMFORT INN', 'COMFORT SUITES', 'QUALITY INN', 'SLEEP INN',
    'CHOICE HOTELS', 'RED ROOF', 'EXTENDED STAY', 'WOODSPRING', 'SHERATON', 'WESTIN', 'RADISSON', 'AIRBNB', 'VRBO',
    'EXPEDIA', 'HOTELS COM', 'BOOKING COM', 'HOTEL', 'HOTELS', 'INN', 'SUITES', 'MOTEL', 'LODGE', 'RESORT',
  ],
  airfare: [
    'UNITED', 'UNITED AIRLINES', 'DELTA', 'DELTA AIR', 'AMERICAN AIRLINES', 'AMERICAN AIR', 'AA', 'SOUTHWEST', 'SOUTHWEST AIR',
    'SOUTHWES', 'JETBLUE', 'ALASKA AIR', 'ALASKA AIRLINES', 'SPIRIT AIRL', 'SPIRIT AIRLINES', 'FRONTIER', 'FRONTIER AIRLINES',
    'ALLEGIANT', 'HAWAIIAN', 'SUN COUNTRY', 'AIR CANADA', 'WESTJET', 'AIRLINES', 'AIRLINE', 'AIRWAYS', 'AIR', 'AIRFARE',
  ],
  ground: ['UBER', 'UBER TRIP', 'LYFT', 'TAXI', 'CAB', 'AMTRAK', 'GREYHOUND', 'HERTZ', 'AVIS', 'BUDGET', 'ENTERPRISE RENT', 'NATIONAL CAR', 'ALAMO'],
  materials: [
    'HOME DEPOT', 'THE HOME DEPOT', 'LOWES', 'MENARDS', '84 LUMBER', 'LUMBER', 'SHERWIN WILLIAMS', 'BENJAMIN MOORE', 'PPG',
    'FERGUSON', 'ABC SUPPLY', 'BUILDERS FIRSTSOURCE', 'BMC', 'BEACON', 'SRS', 'WHITE CAP', 'HD SUPPLY', 'FASTENAL', 'ACE HARDWARE',
    'TRUE VALUE', 'DO IT BEST', 'CARTER LUMBER', 'MCCOY', 'MCCOYS', 'ALLIED', 'CED', 'GRAYBAR', 'REXEL', 'PLATT', 'WINSUPPLY',
    'HAJOCA', 'CONSOLIDATED', 'LANSING', 'FLOOR DECOR', 'TILE SHOP', 'MARTIN MARIETTA', 'VULCAN', 'CEMEX', 'QUIKRETE',
    'HARDWARE', 'SUPPLY', 'BUILDING', 'BUILDERS', 'CONCRETE', 'READY MIX', 'PLUMBING', 'ELECTRIC SUPPLY', 'PAINT', 'PAINTS',
    'MASONRY', 'STONE', 'ROOFING', 'DRYWALL', 'INSULATION', 'STEEL', 'METALS', 'GLASS', 'MILLWORK', 'SAND', 'GRAVEL', 'TRUSS',
  ],
  tools: [
    'HARBOR FREIGHT', 'MILWAUKEE', 'DEWALT', 'MAKITA', 'SNAP ON', 'MAC TOOLS', 'MATCO', 'NORTHERN TOOL', 'TOOL', 'TOOLS', 'HILTI',
    'BOSCH', 'RIDGID', 'RYOBI', 'KLEIN', 'ACME TOOLS', 'TOOLUP', 'ZORO',
  ],
  rental: [
    'SUNBELT', 'SUNBELT RENTALS', 'UNITED RENTALS', 'HERC', 'HERC RENTALS', 'BLUELINE', 'AHERN', 'EQUIPMENTSHARE', 'NATIONAL EQUIPMENT',
    'RENTAL', 'RENTALS', 'RENT', 'EQUIPMENT', 'HOME DEPOT TOOL RENTAL', 'MOBILE MINI', 'WILLSCOT', 'WILLIAMS SCOTSMAN', 'PORTA',
  ],
  office: [
    'OFFICE DEPOT', 'OFFICEMAX', 'OFFICE MAX', 'STAPLES', 'AMZN', 'AMZN MKTP', 'AMAZON', 'AMAZON COM', 'ULINE', 'QUILL', 'FEDEX OFFICE',
    'BEST BUY', 'WALMART', 'TARGET', 'COSTCO', 'SAMS CLUB', 'OFFICE', 'STATIONERY', 'PRINTING', 'PRINT', 'COPY',
  ],
  software: [
    'PROCORE', 'ADOBE', 'MSFT', 'MICROSOFT', 'INTUIT', 'QUICKBOOKS', 'QBOOKS', 'GOOGLE', 'GSUITE', 'GOOGLE WORKSPACE', 'DROPBOX',
    'ZOOM', 'ZOOM US', 'SLACK', 'ATLASSIAN', 'AUTODESK', 'BLUEBEAM', 'TRIMBLE', 'PLANGRID', 'BUILDERTREK', 'DOCUSIGN', 'SALESFORCE',
    'HUBSPOT', 'GITHUB', 'AWS', 'AMAZON WEB SERVICES', 'APPLE COM BILL', 'MAILCHIMP', 'CANVA', 'NOTION', 'ASANA', 'MONDAY COM',
    'SMARTSHEET', 'FIELDWIRE', 'COMPANYCAM', 'SOFTWARE', 'SAAS', 'CLOUD', 'CREATIVE CLD', 'SUBSCRIPTION', 'APP', 'ONLINE SERVICES',
  ],
  telecom: [
    'VERIZON', 'VERIZON WRLS', 'VZWRLSS', 'AT&T', 'ATT', 'T MOBILE', 'TMOBILE', 'SPRINT', 'COMCAST', 'XFINITY', 'SPECTRUM',
    'CHARTER', 'COX', 'CENTURYLINK', 'LUMEN', 'FRONTIER COMM', 'RINGCENTRAL', 'VONAGE', 'GOTO', 'STARLINK', 'US CELLULAR',
    'WIRELESS', 'WRLS', 'CELLULAR', 'TELECOM', 'COMMUNICATIONS', 'INTERNET', 'BROADBAND', 'PHONE',
  ],
  utilities: [
    'PG&E', 'PGE', 'CON ED', 'CONED', 'DUKE ENERGY', 'DOMINION', 'XCEL', 'XCEL ENERGY', 'ENTERGY', 'ONCOR', 'RELIANT', 'TXU',
    'CENTERPOINT', 'SOUTHERN CALIFORNIA EDISON', 'SCE', 'SDGE', 'GEORGIA POWER', 'FPL', 'APS', 'SRP', 'NV ENERGY', 'AUSTIN ENERGY',
    'WASTE MANAGEMENT', 'REPUBLIC SERVICES', 'UTIL', 'UTILS', 'UTILITY', 'UTILITIES', 'ELECTRIC', 'ENERGY', 'POWER', 'WATER', 'SEWER',
    'GAS CO', 'NATURAL GAS', 'WASTE', 'TRASH',
  ],
  vehicle: [
    'JIFFY LUBE', 'VALVOLINE', 'FIRESTONE', 'GOODYEAR', 'DISCOUNT TIRE', 'NTB', 'TIRE KINGDOM', 'MIDAS', 'MEINEKE', 'PEP BOYS',
    'AUTOZONE', 'OREILLY', 'O REILLY', 'ADVANCE AUTO', 'NAPA', 'CARQUEST', 'SAFELITE', 'TAKE 5', 'GREASE MONKEY', 'MAACO',
    'CARMAX', 'BRAKES PLUS', 'LES SCHWAB', 'BIG O TIRES', 'TIRE', 'TIRES', 'AUTO', 'AUTOMOTIVE', 'LUBE', 'OIL CHANGE', 'REPAIR',
    'COLLISION', 'BODY SHOP', 'MUFFLER', 'BRAKE', 'TRANSMISSION', 'CAR WASH', 'TOWING', 'PARTS',
  ],
  government: [
    'CITY OF', 'COUNTY OF', 'STATE OF', 'TOWN OF', 'VILLAGE OF', 'DEPT', 'DEPARTMENT', 'DMV', 'SECRETARY OF STATE', 'IRS', 'TREAS',
    'PERMIT', 'PERMITS', 'LICENSE', 'LICENSES', 'LICENSING', 'LICENCE', 'REGISTRATION', 'INSPECTION', 'COURT', 'CLERK', 'GOV',
    'MUNICIPAL', 'BUILDING DEPT', 'FEES', 'FEE', 'OSHA', 'TDLR',
  ],
  shipping: ['UPS', 'UPS STORE', 'THE UPS STORE', 'FEDEX', 'FED EX', 'USPS', 'POSTAL', 'POST OFFICE', 'DHL', 'STAMPS COM', 'PIRATE SHIP', 'SHIPSTATION', 'SHIPPING', 'COURIER', 'FREIGHT', 'POSTAGE'],
  parking: [
    'PARKMOBILE', 'PARK MOBILE', 'SPOTHERO', 'LAZ PARKING', 'SP PLUS', 'ABM PARKING', 'IMPARK', 'PREMIUM PARKING', 'PASSPORT PARKING',
    'PAYBYPHONE', 'NTTA', 'EZPASS', 'E ZPASS', 'E Z PASS', 'SUNPASS', 'FASTRAK', 'TXTAG', 'IPASS', 'PIKEPASS', 'PEACH PASS',
    'TOLL', 'TOLLS', 'TOLLWAY', 'TOLL ROAD', 'TURNPIKE', 'PARKING', 'PARK', 'GARAGE', 'METER', 'AUTOCHARGE',
  ],
  safety: ['GRAINGER', 'NORTHERN SAFETY', 'SAFETY', 'PPE', 'AIRGAS', 'MSA', 'CINTAS', 'LAB SAFETY', 'FIRST AID', 'ZORO SAFETY', 'HI VIZ'],
  groceries: ['KROGER', 'SAFEWAY', 'ALBERTSONS', 'PUBLIX', 'HEB', 'H E B', 'WHOLE FOODS', 'TRADER JOES', 'ALDI', 'MEIJER', 'WINCO', 'GROCERY', 'MARKET', 'SUPERMARKET'],
  medical: ['CVS', 'WALGREENS', 'RITE AID', 'PHARMACY', 'CLINIC', 'URGENT CARE', 'MEDICAL', 'HOSPITAL', 'DENTAL'],
  insurance: ['GEICO', 'PROGRESSIVE', 'STATE FARM', 'ALLSTATE', 'LIBERTY MUTUAL', 'TRAVELERS', 'NATIONWIDE', 'HARTFORD', 'INSURANCE', 'INS'],
  advertising: ['FACEBK', 'FACEBOOK', 'META ADS', 'GOOGLE ADS', 'YELP', 'ANGI', 'HOMEADVISOR', 'THUMBTACK', 'NEXTDOOR', 'LINKEDIN', 'ADVERTISING', 'ADS', 'MARKETING', 'SIGNS', 'SIGN'],
};

/** Words of a company's category name per concept ("Meals & Entertainment" -> meals). */
const NAME_WORDS: Record<Concept, string[]> = {
  fuel: ['FUEL', 'GAS', 'GASOLINE', 'PETROL', 'DIESEL', 'MILEAGE'],
  meals: ['MEAL', 'FOOD', 'DINING', 'RESTAURANT', 'ENTERTAINMENT', 'PER DIEM'],
  lodging: ['LODGING', 'HOTEL', 'ACCOMMODATION', 'ACCOMODATION', 'LODGE'],
  airfare: ['AIRFARE', 'AIR', 'FLIGHT', 'AIRLINE', 'AIRFARES'],
  ground: ['TRANSPORTATION', 'TAXI', 'RIDESHARE', 'CAR RENTAL', 'GROUND'],
  materials: ['MATERIAL', 'BUILDING', 'LUMBER', 'HARDWARE'],
  tools: ['TOOL', 'SMALL TOOL'],
  rental: ['RENTAL', 'RENT', 'HIRE', 'EQUIPMENT'],
  office: ['OFFICE', 'STATIONERY', 'ADMIN'],
  software: ['SOFTWARE', 'SUBSCRIPTION', 'SAAS', 'IT', 'TECHNOLOGY', 'COMPUTER'],
  telecom: ['TELECOM', 'PHONE', 'TELEPHONE', 'MOBILE', 'INTERNET', 'COMMUNICATION', 'WIRELESS', 'CELL'],
  utilities: ['UTILITY', 'UTILITIE', 'ELECTRIC', 'ELECTRICITY', 'WATER', 'POWER'],
  vehicle: ['VEHICLE', 'AUTO', 'REPAIR', 'MAINTENANCE', 'FLEET', 'TRUCK'],
  government: ['PERMIT', 'FEE', 'LICENSE', 'LICENCE', 'LICENSING', 'TAX', 'GOVERNMENT', 'REGISTRATION'],
  shipping: ['SHIPPING', 'POSTAGE', 'DELIVERY', 'FREIGHT', 'COURIER', 'MAIL'],
  parking: ['PARKING', 'TOLL'],
  safety: ['SAFETY', 'PPE'],
  groceries: ['GROCERY', 'GROCERIE'],
  medical: ['MEDICAL', 'HEALTH', 'PHARMACY'],
  insurance: ['INSURANCE'],
  advertising: ['ADVERTISING', 'MARKETING', 'ADVERTISEMENT'],
};

const phraseIndex = new Map<string, Concept>();
let longestPhrase = 1;
for (const concept of CONCEPTS) {
  for (const phrase of PHRASES[concept]) {
    if (!phraseIndex.has(phrase)) phraseIndex.set(phrase, concept);
    longestPhrase = Math.max(longestPhrase, phrase.split(' ').length);
  }
}

/** True when the word alone names a concept ("SAFETY", "INN"): it is not a city. */
export function isConceptWord(word: string): boolean {
  return phraseIndex.has(word);
}

/**
 * Concepts named by a merchant's words, longest phrase first ("UNITED RENTALS" is rental
 * before "UNITED" is an airline); each word counts once. A restaurant processor (Toast) is
 * evidence of a meal.
 */
export function conceptsOf(words: readonly string[], processor: string | null = null): Concept[] {
  const found: Concept[] = [];
  let i = 0;
  while (i < words.length) {
    let matched = 0;
    for (let n = Math.min(longestPhrase, words.length - i); n >= 1; n--) {
      const concept = phraseIndex.get(words.slice(i, i + n).join(' '));
      if (concept !== undefined) {
        if (!found.includes(concept)) found.push(concept);
        matched = n;
        break;
      }
    }
    i += Math.max(1, matched);
  }
  if ((processor === 'TST' || processor === 'TOAST') && !found.includes('meals')) found.push('meals');
  return found;
}

/** Singular of a category-name word, enough for names ("TOLLS" -> "TOLL", "UTILITIES" -> "UTILITIE"). */
const singular = (w: string): string => (w.length > 3 && w.endsWith('S') ? w.slice(0, -1) : w);

/** Concepts a company's category name speaks of ("PARKING & TOLLS" -> parking). */
export function conceptsOfCategoryName(name: string): Concept[] {
  const words = name.toUpperCase().split(/[^A-Z]+/).filter((w) => w.length > 0).map(singular);
  const text = ` ${words.join(' ')} `;
  return CONCEPTS.filter((c) => NAME_WORDS[c].some((w) => text.includes(` ${singular(w)} `)));
}
