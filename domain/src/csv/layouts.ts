/**
 * Known export layouts, most specific first. A layout is recognised by the normalised
 * header cells it must have; it fixes what the generic aliases cannot know: which of two
 * plausible columns is the merchant, the sign convention, the date convention.
 */
import type { AliasOverrides } from './header';
import type { AmountSign, DateOrder } from './types';

export type Region = 'us' | 'eu';

export interface Layout {
  id: string;
  /** Every one of these normalised header cells is present. */
  requires: readonly string[];
  /** And at least one of these, when given. */
  anyOf?: readonly string[];
  region: Region;
  /** Date order when the whole file is ambiguous; else the region decides. */
  dateOrder?: DateOrder;
  amountSign: AmountSign;
  aliases?: AliasOverrides;
  /** State column values (upper case) that mean the payment never happened. */
  voidStates?: readonly string[];
}

const NO_PERSON: AliasOverrides = { firstName: null, lastName: null, fullName: null };

export const LAYOUTS: readonly Layout[] = [
  {
    id: 'revolut',
    requires: ['type', 'product', 'starteddate', 'completeddate', 'description', 'amount', 'currency', 'state'],
    region: 'eu',
    amountSign: 'expense-negative',
    aliases: { ...NO_PERSON, date: ['starteddate'], postDate: ['completeddate'], fee: ['fee'], state: ['state'] },
    voidStates: ['REVERTED', 'DECLINED', 'FAILED', 'CANCELLED', 'CANCELED'],
  },
  {
    id: 'monzo',
    requires: ['transactionid', 'date', 'time', 'type', 'name', 'amount', 'currency'],
    region: 'eu',
    dateOrder: 'dmy',
    amountSign: 'expense-negative',
    aliases: {
      ...NO_PERSON, description: ['name', 'description'], externalId: ['transactionid'],
      category: ['category'], salesTax: null,
    },
  },
  {
    id: 'amex',
    requires: ['date', 'description', 'amount'],
    anyOf: ['cardmember', 'appearsonyourstatementas', 'extendeddetails'],
    region: 'us',
    dateOrder: 'mdy',
    amountSign: 'expense-positive',
    aliases: {
      fullName: ['cardmember'], firstName: null, lastName: null, externalId: ['reference'],
      postDate: ['dateprocessed'], description: ['description', 'appearsonyourstatementas'],
    },
  },
  {
    id: 'capital-one',
    requires: ['transactiondate', 'posteddate', 'cardno', 'description', 'debit', 'credit'],
    region: 'us',
    dateOrder: 'mdy',
    amountSign: 'expense-negative',
    aliases: { ...NO_PERSON },
  },
  {
    id: 'capital-one-bank',
    requires: ['accountnumber', 'transactiondate', 'transactionamount', 'transactiontype', 'transactiondescription'],
    region: 'us',
    dateOrder: 'mdy',
    amountSign: 'expense-negative',
    aliases: { ...NO_PERSON, direction: ['transactiontype'] },
  },
  {
    id: 'chase-card',
    requires: ['transactiondate', 'postdate', 'description', 'category', 'type', 'amount'],
    region: 'us',
    dateOrder: 'mdy',
    amountSign: 'expense-negative',
    aliases: { ...NO_PERSON },
  },
  {
    id: 'chase-checking',
    requires: ['details', 'postingdate', 'description', 'amount', 'type', 'balance'],
    region: 'us',
    dateOrder: 'mdy',
    amountSign: 'expense-negative',
    aliases: { ...NO_PERSON, description: ['description'], externalId: ['checkorslip'] },
  },
  {
    id: 'discover',
    requires: ['transdate', 'postdate', 'description', 'amount', 'category'],
    region: 'us',
    dateOrder: 'mdy',
    amountSign: 'expense-positive',
    aliases: { ...NO_PERSON },
  },
  {
    id: 'bank-of-america-card',
    requires: ['posteddate', 'referencenumber', 'payee', 'address', 'amount'],
    region: 'us',
    dateOrder: 'mdy',
    amountSign: 'expense-negative',
    aliases: { ...NO_PERSON, description: ['payee'], externalId: ['referencenumber'] },
  },
  {
    id: 'bank-of-america-checking',
    requires: ['date', 'description', 'amount', 'runningbal'],
    region: 'us',
    dateOrder: 'mdy',
    amountSign: 'expense-negative',
    aliases: { ...NO_PERSON },
  },
  {
    id: 'barclays',
    requires: ['number', 'date', 'account', 'amount', 'subcategory', 'memo'],
    region: 'eu',
    dateOrder: 'dmy',
    amountSign: 'expense-negative',
    aliases: { ...NO_PERSON, description: ['memo'], category: null, externalId: null },
  },
  {
    id: 'paperlink',
    requires: ['transactiondate', 'description', 'amount'],
    region: 'us',
    amountSign: 'expense-negative',
  },
];

export function findLayout(normalized: readonly string[]): Layout | undefined {
  const present = new Set(normalized);
  return LAYOUTS.find((l) => l.requires.every((h) => present.has(h))
    && (!l.anyOf || l.anyOf.some((h) => present.has(h))));
}

/** Wells Fargo exports have no header: date, amount, '*', check number, description. */
export const WELLS_FARGO = { id: 'wells-fargo', date: 0, amount: 1, star: 2, description: 4, width: 5 } as const;
