/**
 * Header cells to fields. Cells are compared normalised (case, accents, spaces and
 * punctuation ignored; a "(GBP)"-style suffix is read as the column's currency), against
 * aliases ranked best first. A layout may replace a field's aliases, or switch it off.
 */

export type Field =
  | 'date' | 'postDate' | 'description' | 'amount' | 'debit' | 'credit' | 'direction'
  | 'category' | 'jobNumber' | 'costCode' | 'firstName' | 'lastName' | 'fullName'
  | 'externalId' | 'salesTax' | 'currency' | 'fee' | 'state';

export type FieldMap = Partial<Record<Field, number>>;
export type AliasOverrides = Partial<Record<Field, readonly string[] | null>>;

export function normalizeHeader(cell: string): string {
  return cell
    .replace(/\([^)]*\)/g, ' ')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** "Amount (GBP)" → 'GBP'. */
export function headerCurrency(cell: string): string | undefined {
  return /\(\s*([A-Za-z]{3})\s*\)/.exec(cell)?.[1]?.toUpperCase();
}

/** The order fields are claimed in: a column serves one field only. */
const FIELD_ORDER: Field[] = [
  'date', 'postDate', 'amount', 'debit', 'credit', 'direction', 'description', 'firstName',
  'lastName', 'fullName', 'category', 'jobNumber', 'costCode', 'externalId', 'salesTax',
  'currency', 'fee', 'state',
];

export const GENERIC_ALIASES: Record<Field, readonly string[]> = {
  date: [
    'transactiondate', 'transdate', 'date', 'purchasedate', 'datetransaction', 'transactiondatetime',
    'starteddate', 'dateoperation', 'datedeloperation', 'buchungstag', 'buchungsdatum', 'datum',
    'umsatzdatum', 'transaktionsdatum', 'fecha', 'fechaoperacion', 'data', 'dataoperazione',
    'datacontabile', 'transactiedatum', 'posteddate', 'postingdate', 'postdate', 'bookingdate',
    'completeddate', 'valuedate', 'valutadatum', 'wertstellung', 'timestamp',
  ],
  postDate: [
    'posteddate', 'postingdate', 'postdate', 'completeddate', 'dateprocessed', 'bookingdate',
    'settlementdate', 'valuedate', 'valutadatum', 'wertstellung', 'datevaleur', 'fechavalor',
    'datavaluta', 'valutadatum',
  ],
  amount: [
    'amount', 'transactionamount', 'amt', 'betrag', 'umsatz', 'montant', 'bedrag', 'importe',
    'importo', 'valor', 'kwota', 'belopp', 'belob', 'belop', 'billingamount', 'chargeamount',
    'localamount', 'value',
  ],
  debit: [
    'debit', 'debits', 'debitamount', 'withdrawal', 'withdrawals', 'withdrawalamount', 'moneyout',
    'paidout', 'out', 'soll', 'lastschrift', 'ausgang', 'cargo', 'cargos', 'addebiti',
  ],
  credit: [
    'credit', 'credits', 'creditamount', 'deposit', 'deposits', 'depositamount', 'moneyin', 'paidin',
    'in', 'haben', 'gutschrift', 'eingang', 'abono', 'abonos', 'accrediti',
  ],
  direction: ['creditdebitindicator', 'debitcreditindicator', 'debitcredit', 'creditdebit', 'drcr', 'crdr', 'afbij', 'sollhaben'],
  description: [
    'description', 'transactiondescription', 'desc', 'merchant', 'merchantname', 'payee', 'payeename',
    'counterparty', 'beguenstigterzahlungspflichtiger', 'auftraggeberempfanger', 'empfanger',
    'zahlungsempfanger', 'narrative', 'transactiondetails', 'particulars', 'memo', 'beschreibung',
    'libelle', 'libelleoperation', 'omschrijving', 'naamomschrijving', 'concepto', 'descripcion',
    'descrizione', 'causale', 'tekst', 'opis', 'text', 'verwendungszweck', 'buchungstext',
    'mededelingen', 'details',
  ],
  firstName: [
    'firstname', 'first', 'fname', 'givenname', 'forename', 'cardholderfirstname', 'employeefirstname',
    'userfirstname', 'memberfirstname', 'vorname', 'prenom',
  ],
  lastName: [
    'lastname', 'last', 'lname', 'surname', 'familyname', 'cardholderlastname', 'employeelastname',
    'userlastname', 'memberlastname', 'nachname', 'apellido', 'apellidos',
  ],
  fullName: [
    'name', 'fullname', 'cardholder', 'cardholdername', 'cardholdersname', 'cardmember',
    'cardmembername', 'employee', 'employeename', 'user', 'username', 'member', 'membername',
    'spender', 'purchaser', 'karteninhaber', 'titulaire',
  ],
  category: ['category', 'categoryname', 'expensecategory', 'spendingcategory', 'kategorie', 'categorie', 'categoria'],
  jobNumber: ['jobnumber', 'jobno', 'jobnum', 'job', 'jobcode', 'jobid', 'projectnumber', 'projectcode', 'project'],
  costCode: ['costcode', 'costcodename', 'costcenter', 'costcentre', 'glcode', 'kostenstelle'],
  externalId: [
    'transactionid', 'externaltransactionid', 'externalid', 'transid', 'referencenumber', 'refno',
    'transactionreference', 'transactionnumber', 'fitid', 'id',
  ],
  salesTax: ['salestax', 'tax', 'taxamount', 'vat', 'vatamount', 'gst', 'mwst', 'tva', 'iva'],
  currency: ['currency', 'currencycode', 'ccy', 'curr', 'wahrung', 'waehrung', 'devise', 'moneda', 'divisa', 'valuta'],
  fee: [],
  state: [],
};

/**
 * Claims columns for fields. For each field the best-ranked alias present wins; a column
 * claimed by an earlier field is not reused.
 */
export function mapHeader(normalized: string[], overrides: AliasOverrides = {}): FieldMap {
  const map: FieldMap = {};
  const used = new Set<number>();
  for (const field of FIELD_ORDER) {
    const aliases = field in overrides ? overrides[field] : GENERIC_ALIASES[field];
    if (!aliases) continue;
    for (const alias of aliases) {
      const index = normalized.findIndex((h, i) => h === alias && !used.has(i));
      if (index >= 0) {
        map[field] = index;
        used.add(index);
        break;
      }
    }
  }
  // "Date, Name, Amount": with no description column, a bare Name is the payee.
  if (map.description === undefined && map.fullName !== undefined && normalized[map.fullName] === 'name') {
    map.description = map.fullName;
    delete map.fullName;
  }
  return map;
}

/** Date, description, and an amount (one signed column or debit/credit columns). */
export function isComplete(map: FieldMap): boolean {
  return map.date !== undefined && map.description !== undefined
    && (map.amount !== undefined || map.debit !== undefined || map.credit !== undefined);
}
