import { describe, expect, it } from 'vitest';
import { extractReceiptFields } from './extract';

/**
 * A small generalisation set: receipt texts written for these tests in conventions other than
 * the Malaysian dev receipts (US, UK, German, French, Singapore) as well as Malaysian ones, with
 * the OCR slips the rules are meant to absorb. Every receipt must give its total, date and
 * merchant.
 */
interface Case { name: string; text: string[]; total: number; date: string; merchant: string; monthFirst?: boolean }

const CASES: Case[] = [
  { name: 'US grocery, month-first date, sales tax and deposit', monthFirst: true, total: 4687, date: '2019-07-04', merchant: 'GREENLEAF MARKET',
    text: ['GREENLEAF MARKET', '1420 Elm Street', 'Springfield, IL 62704', '(217) 555-0142', '07/04/2019 5:32 PM  Reg 3',
      'ORGANIC MILK 1GAL        5.99', 'BANANAS 2.31 lb @ 0.59    1.36', 'RIBEYE STEAK             24.50',
      'SOURDOUGH BREAD           4.25', 'SUBTOTAL                 36.10', 'SALES TAX 7.25%           2.62',
      'BOTTLE DEPOSIT            0.40', 'TOTAL                    $46.87', 'VISA ************4411   $46.87', 'THANK YOU FOR SHOPPING'] },
  { name: 'US diner, tip added under the first total', total: 6217, date: '2021-03-12', merchant: "JOE'S DINER",
    text: ["JOE'S DINER", '88 Main St, Austin TX 78701', 'Server: Amy   Table 14', 'Mar 12, 2021 8:14 PM',
      '2 Burger Deluxe           27.00', '1 Caesar Salad            11.50', '2 Iced Tea                 6.00',
      'Subtotal                  44.50', 'Tax                        3.67', 'Total                     48.17',
      'Tip                       14.00', 'Total                     62.17', 'Mastercard               62.17'] },
  { name: 'UK shop, £ and BALANCE DUE, VAT rate row', total: 2314, date: '2020-11-28', merchant: 'HARTLEY FOODSTORE',
    text: ['HARTLEY FOODSTORE', '12 High Street, Bristol BS1 4DJ', 'VAT No. GB 123 4567 89', 'Semi Skimmed Milk     £1.15',
      'Cheddar 400g          £3.50', 'Free Range Eggs x12   £2.79', 'Wine Rioja            £8.50', 'Chicken Breast 1kg    £7.20',
      'BALANCE DUE          £23.14', 'Card                 £23.14', 'VAT A 20.0%  7.08  1.42', '28/11/2020 14:03  Store 221'] },
  { name: 'German bakery, decimal commas, SUMME and Rückgeld', total: 1285, date: '2022-02-03', merchant: 'BÄCKEREI SCHMIDT GMBH',
    text: ['BÄCKEREI SCHMIDT GMBH', 'Hauptstraße 5', '80331 München', 'Tel. 089 123456', '2 x Brezel       1,80',
      'Bauernbrot     4,20', 'Kaffee groß     3,20', 'Kuchen          3,65', 'SUMME EUR      12,85', 'Bar            20,00',
      'Rückgeld        7,15', 'MwSt 7% 12,01 0,84', '03.02.2022 09:41'] },
  { name: 'French café, TOTAL TTC with a currency word', total: 2340, date: '2023-06-15', merchant: 'CAFE DE LA GARE',
    text: ['CAFE DE LA GARE', '3 Place de la Gare', '69002 Lyon', 'SIRET 123 456 789 00012', '15/06/2023 12:30',
      '1 Croque Monsieur    9,50', '1 Salade Nicoise    11,00', '1 Cafe               2,90', 'TOTAL TTC        23,40 EUR',
      'dont TVA 10%          2,13', 'CB                  23,40'] },
  { name: 'Singapore café, S$ amounts, service charge, GST and 5-cent rounding', total: 1890, date: '2019-09-09', merchant: 'KOPI CORNER PTE LTD',
    text: ['KOPI CORNER PTE LTD', 'Blk 123 Ang Mo Kio Ave 3 #01-45', 'Singapore 560123', 'GST Reg No: 201912345K', 'TAX INVOICE',
      'Date: 09-09-2019  Time: 13:02', '2 Kaya Toast Set       9.60', '1 Laksa                 6.50', 'Sub Total              16.10',
      'Svc Chg 10%             1.61', 'GST 7%                  1.24', 'Total S$18.95', 'Rounding Adj           -0.05', 'NETS S$18.90'] },
  { name: 'Malaysian restaurant, TOTAL after rounding under Total Sales (Inclusive of GST)', total: 3120, date: '2018-01-21', merchant: 'RESTORAN NASI KANDAR MAJU',
    text: ['RESTORAN NASI KANDAR MAJU', '(002233445-X)', 'No. 15, Jalan Tun Razak', '50400 Kuala Lumpur', 'Tel: 03-2145 6789',
      'TAX INVOICE', 'Date: 21/01/2018 21:14', 'NASI KANDAR AYAM   2   19.80', 'TEH O AIS          2    4.00',
      'ROTI CANAI         3    5.70', 'Total Sales (Excluding GST)   29.50', 'GST 6%   1.77', 'Total Sales (Inclusive of GST)   31.27',
      'Rounding Adjustment  -0.07', 'TOTAL  31.20', 'CASH  50.00', 'CHANGE  18.80'] },
  { name: 'Malaysian cash bill, spaced thousands amount under TOTAL AMOUNT', total: 103065, date: '2017-12-05', merchant: 'SYARIKAT PERNIAGAAN LIM & SONS',
    text: ['SYARIKAT PERNIAGAAN LIM & SONS', 'Co Reg: 123456-A', 'Lot 3, Taman Perindustrian Jaya', '81100 Johor Bahru', 'CASH BILL',
      'Date 05/12/2017', 'CEMENT 50KG 10 x 19.50 195.00', 'STEEL BAR 12MM 40 x 20.89 835.65', 'TOTAL AMOUNT', 'RM 1, 030.65',
      'Thank you'] },
  { name: 'Malaysian stall, RM glued to the amounts', total: 740, date: '2018-04-02', merchant: 'KEDAI MAKAN SELERA',
    text: ['KEDAI MAKAN SELERA', 'Jalan Ipoh, 51200 KL', '02/04/2018', 'MEE GORENG  RM5.40', 'TEH TARIK RM2.00', 'TOTAL RM7.40',
      'CASH RM10.00', 'CHANGE RM2.60'] },
  { name: 'Malaysian minimart, O for 0 inside the amounts', total: 2050, date: '2018-08-16', merchant: 'MINI MART HAPPY 99',
    text: ['MINI MART HAPPY 99', 'NO 2 JALAN SS2/10', '47300 PETALING JAYA', 'DATE: 16-08-2018', 'MILO 1KG   1   16.50',
      'BREAD      1    4.00', 'TOTAL: RM 2O.5O', 'CASH: RM 5O.OO', 'CHANGE: RM 29.5O'] },
  { name: 'Chinese restaurant, Grand Total with service charge and GST', total: 14225, date: '2018-10-27', merchant: 'GOLDEN DRAGON SEAFOOD RESTAURANT',
    text: ['GOLDEN DRAGON SEAFOOD RESTAURANT', 'No 8, Jalan Pudu 55100 KL', 'GST ID: 001234567890', 'Table: A3  Pax: 6',
      '27-10-2018 20:15', 'STEAMED FISH 1 68.00', 'KAILAN 1 18.00', 'FRIED RICE 2 36.00', 'Sub Total 122.00', 'Service Charge 10% 12.20',
      'GST 6% 8.05', 'Grand Total 142.25', 'Rounding 0.00', 'VISA 142.25'] },
  { name: 'Supermarket, Amount Due with cash and change', total: 1135, date: '2019-05-11', merchant: 'FRESHMART SUPERMARKET',
    text: ['FRESHMART SUPERMARKET', '221 Orchard Rd', '11 May 2019 10:05', 'APPLES 3.20', 'YOGURT 4.65', 'RICE 3.50', 'Amount Due 11.35',
      'Cash 20.00', 'Change 8.65'] },
  { name: 'Bookshop, member discount, Net Total then Total Rounded', total: 5370, date: '2018-02-14', merchant: 'BOOKS & MORE ENTERPRISE',
    text: ['BOOKS & MORE ENTERPRISE', '(JM0123456-U)', '12 Jalan Bunga Raya', '75100 Melaka', 'RECEIPT', '14/02/2018 3:02PM',
      'NOVEL A 1 39.90', 'NOTEBOOK 2 9.90 19.80', 'Subtotal 59.70', 'Member Discount 10% -5.97', 'Net Total 53.73', 'Rounding -0.03',
      'Total Rounded 53.70', 'Cash 100.00', 'Change 46.30'] },
  { name: 'Computer shop, Total Incl. GST and a GST summary', total: 8480, date: '2018-06-30', merchant: 'TECH ZONE TRADING',
    text: ['TECH ZONE TRADING', 'GST REG: 000987654321', 'NO. 3 JALAN PJU 1/42', '47301 PETALING JAYA SELANGOR', 'TAX INVOICE',
      'INV NO: T12345   30/06/2018', 'USB CABLE 2 x 15.00 30.00', 'MOUSE 1 x 50.00 50.00', 'Total Excl. GST 80.00', 'GST 6% 4.80',
      'Total Incl. GST 84.80', 'Credit Card 84.80', 'GST Summary Amount(RM) Tax(RM)', 'SR 6% 80.00 4.80'] },
  { name: 'Restaurant, OCR space before the decimal point in NET TOTAL', total: 740, date: '2018-03-03', merchant: 'RESTORAN MAJU JAYA',
    text: ['RESTORAN MAJU JAYA', 'NO 5 JALAN 3/4', '43000 KAJANG', '03/03/2018 12:00', 'NASI AYAM 7.00', 'GST 6% 0.42', 'ROUNDING ADJ -0.02', 'NET TOTAL 7 .40',
      'CASH 10.00', 'CHANGE 2.60'] },
];

describe('extractReceiptFields across receipt conventions', () => {
  it.each(CASES)('$name', ({ text, total, date, merchant, monthFirst }) => {
    const f = extractReceiptFields(text.join('\n'), undefined, { monthFirst });
    expect(f.total?.cents).toBe(total);
    expect(f.date?.value).toBe(date);
    expect(f.merchant?.value).toBe(merchant);
  });
});
