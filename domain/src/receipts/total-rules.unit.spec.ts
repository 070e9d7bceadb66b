import { describe, expect, it } from 'vitest';
import { findAmounts } from './amounts';
import { extractReceiptFields } from './extract';
import { labelledAmount, moneyLines } from './money-lines';
import { receiptLines } from './ocr-text';

/** Receipt texts written for these tests in the shapes OCR gives: uneven spacing, typos. */
const r = (lines: string[]): string => lines.join('\n');
const cents = (line: string): number[] => findAmounts(line).map((a) => a.cents);

describe('amounts with spaces OCR puts inside them', () => {
  it('reads a thousands comma followed by a space', () => {
    expect(cents('RM 1, 030.65')).toEqual([103065]);
    expect(cents('TOTAL AMOUNT 2, 418.00')).toEqual([241800]);
  });

  it('reads a space before the decimal point', () => {
    expect(cents('NET TOTAL 7 .40')).toEqual([740]);
    expect(cents('TOTAL RM12 .95')).toEqual([1295]);
  });

  it('still refuses a point with spaces on both sides, and keeps lists apart', () => {
    expect(cents('TOTAL 7 . 40')).toEqual([]);
    expect(cents('6.23 & 6.22, Plaza Seri Setia')).toEqual([623, 622]);
    expect(cents('2 x 4.50 9.00')).toEqual([450, 900]);
  });

  it('takes a spaced thousands total on the line under its label', () => {
    const f = extractReceiptFields(r([
      'SYARIKAT PERNIAGAAN LIM & SONS',
      'Lot 3, Taman Perindustrian Jaya, 81100 Johor Bahru',
      'CASH BILL   Date 05/12/2017',
      'CEMENT 50KG 10 x 19.50 195.00',
      'STEEL BAR 12MM 40 x 20.89 835.65',
      'TOTAL AMOUNT',
      'RM 1, 030.65',
    ]));
    expect(f.total?.cents).toBe(103065);
  });
});

describe('a service charge or tip in the receipt arithmetic', () => {
  it('corroborates a total that is subtotal + service charge + tax', () => {
    // The total is printed twice and OCR misread the second copy (28.99): only the first adds up
    // (no change line, so cash says nothing).
    const f = extractReceiptFields(r([
      'RESTORAN SELERA KAMPUNG',
      'No 4, Jalan Merdeka, 75000 Melaka',
      '11/09/2018 19:40',
      'NASI GORENG KAMPUNG 2 13.00',
      'SIRAP BANDUNG 2 5.00',
      'Sub Total 18.00',
      'Service Charge 10% 1.80',
      'GST 6% 1.19',
      'Total 20.99',
      'Cash 50.00',
      'TOTAL 28.99',
    ]));
    expect(f.total?.cents).toBe(2099);
  });
});

describe('the total printed after a rounding adjustment', () => {
  it('prefers the plain TOTAL under the rounding line to an inclusive total above it', () => {
    // OCR misread the inclusive total (85.53 for 65.53); the rounded TOTAL and the card agree.
    const f = extractReceiptFields(r([
      'SAKURA JAPANESE KITCHEN SDN. BHD.',
      'NO: 3, JALAN USJ 10/1, 47620 SUBANG JAYA',
      'Tax Invoice    Date: 02/03/2018',
      '1x 12.80 12.80 SR',
      '2x 19.80 39.60 SR',
      'Total (Excluding GST): 52.40',
      'Serv. Charge (10%): 5.24',
      'GST Payable: 3.46',
      'Total (Inclusive of GST): 81.10',
      'Rounding Adj: 0.00',
      'TOTAL: 61.10',
      'VISA 61.10',
    ]));
    expect(f.total?.cents).toBe(6110);
  });

  it('reads TOTAL under ROUNDING as the final total', () => {
    const lines = moneyLines(receiptLines(r(['TOTAL 18.97', 'ROUNDING -0.02', 'TOTAL 18.95'])));
    expect(lines.map((l) => l.kind)).toEqual(['total', 'rounding', 'final']);
  });
});

describe('GST summary rows', () => {
  it('never takes a taxable base on a rate row as the total', () => {
    // The NET TOTAL amount was lost; the summary base (misread 472.45) must not stand in for it.
    const f = extractReceiptFields(r([
      'FIVE STAR TRADING',
      'No. 6, Jalan Setia 2, 43300 Seri Kembangan',
      'TAX INVOICE  05/06/2017',
      '9555339300051 X 1 45.00 SR',
      'NET TOTAL : as on',
      'GST Summary Amount(RM) Tax(RM)',
      'S = 6% 472.45 2.55',
    ]));
    expect(f.total?.cents).toBe(4500);
  });
});

describe('an amount under a grand-total label whose own label OCR mangled', () => {
  it('takes "Fawnent 130.00" under "Total Amt Rounded :"', () => {
    const text = r([
      'GL HANDICRAFT & TAILORING',
      '19, JALAN KANCIL, 55100 KUALA LUMPUR',
      'TAX INVOICE  27/03/2018',
      'BATIK SHIRT 1 122.64 122.64 SR',
      'Total Excl. of GST 122.64',
      'Total Amt Rounded :',
      'Fawnent 130.00',
      'Change Due 0.00',
    ]);
    expect(extractReceiptFields(text).total?.cents).toBe(13000);
  });

  it('does not borrow an item line under a column header', () => {
    const all = moneyLines(receiptLines(r(['Item Amount', 'Milo 5.00'])));
    expect(labelledAmount(all, 0)).toBeNull();
  });
});

describe('two sums that agree against one misread printed total', () => {
  it('keeps the rounded total that cash minus change confirms over a misread rounded line', () => {
    // OCR read the rounded total 60.30 as S0.30 (50.30); 60.31 - 0.01 and 70.30 - 10.00 both give 60.30.
    const f = extractReceiptFields(r([
      'INDAH HOME DECO',
      '27, JALAN DEDAP 13, 81100 JOHOR BAHRU',
      '19/10/2018 14:02',
      'VASE 1 25.00',
      'PHOTO FRAME 1 35.31',
      'TOTAL AMT RM 60.31',
      'ROUNDING ADJ -0.01',
      'RM S0.30',
      'CASH RM 70.30',
      'CHANGE RM 10.00',
    ]));
    expect(f.total?.cents).toBe(6030);
  });

  it('takes cash minus change when the GST summary adds up to it too', () => {
    // "Total Incl. GST 3.90" read as 3.80: 4.00 - 0.10 and 3.68 + 0.22 both give 3.90.
    const f = extractReceiptFields(r([
      'MINI MART SEJAHTERA',
      'NO 8, JALAN MAWAR, 43000 KAJANG',
      '08/01/2018 09:15',
      'MINERAL WATER 1.5L 1 3.90 SR',
      'Total Incl. GST@6% RM 3.80',
      'CASH RM 4.00',
      'CHANGE RM 0.10',
      'GST Summary Amt (RM) Tax(RM)',
      'GST S@6% 3.68 0.22',
    ]));
    expect(f.total?.cents).toBe(390);
  });

  it('does not let exact cash (change 0.00) outvote the printed total', () => {
    const f = extractReceiptFields(r([
      'MINI MART SEJAHTERA',
      '08/01/2018 09:15',
      'MINERAL WATER 1.5L 1 3.90 SR',
      'Total Incl. GST@6% RM 3.90',
      'CASH RM 3.80',
      'CHANGE RM 0.00',
      'GST S@6% 3.58 0.22',
    ]));
    expect(f.total?.cents).toBe(390);
  });
});

describe('a decimal point lost at the end of a line', () => {
  it('reads "RM 88 17" after a currency mark as 88.17', () => {
    expect(cents('Total RH 88 17')).toEqual([8817]);
    expect(cents('Sub-total KM7 90')).toEqual([790]);
  });

  it('leaves bare digit pairs and mid-line pairs alone', () => {
    expect(cents('Pump 07 12 50')).toEqual([]);
    expect(cents('RM 88 17 litres')).toEqual([]);
    expect(cents('Total RM 12.50 RM 3 00')).toEqual([1250]);
  });

  it('lets the card amount confirm the total that lost its point', () => {
    const f = extractReceiptFields(r([
      'SHELL STATION JALAN IPOH',
      '21/02/2018 11:19',
      '39.54 Litre Pump # 07',
      'Total RM 88 17',
      'Visa RM 88.17',
      'Total Gross C RM 86.17',
    ]));
    expect(f.total?.cents).toBe(8817);
  });
});
