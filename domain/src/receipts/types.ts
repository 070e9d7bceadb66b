/** Shapes shared by receipt reading: what OCR gives us and what extraction returns. */

export interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** One recognised word; `confidence` is 0..100 as OCR engines report it (0..1 is accepted too). */
export interface OcrWord {
  text: string;
  confidence: number;
  bbox?: OcrBox;
}

export interface OcrResult {
  text: string;
  /** Mean word confidence, 0..100. */
  confidence: number;
  words?: OcrWord[];
}

/**
 * The OCR port: infra implements it with a tesseract.js worker pool. `recognize` takes an
 * encoded image (PNG or JPEG bytes); the pool starts lazily and `close` frees its workers.
 */
export interface OcrEngine {
  recognize(image: Uint8Array): Promise<OcrResult>;
  close(): Promise<void>;
}

/** A value read from a receipt with how sure the reader is (0..1). */
export interface Extracted<T> {
  value: T;
  confidence: number;
}

export interface ExtractedMoney {
  cents: number;
  confidence: number;
}

export interface ReceiptFields {
  /** ISO date `YYYY-MM-DD` of the purchase. */
  date: Extracted<string> | null;
  /** Final amount paid, positive cents. */
  total: ExtractedMoney | null;
  merchant: Extracted<string> | null;
  tax: ExtractedMoney | null;
  /** A short summary of what was bought (the first item lines). */
  description: Extracted<string> | null;
  /**
   * Where total, date and merchant were read: the box of the line each value came from, in the
   * OCR words' pixel coordinates. Only for fields read from words with boxes.
   */
  boxes?: Partial<Record<'total' | 'date' | 'merchant', OcrBox>>;
  /** Day or month first for this receipt's numeric dates, and which evidence decided (date-order.ts). */
  dateOrder?: { order: 'day-first' | 'month-first'; evidence: 'receipt' | 'merchant' | 'company' | 'default' };
}

/** First and last posting day (ISO) of a company's card lines. */
export interface DatePeriod {
  from: string;
  to: string;
}

export interface ExtractOptions {
  /**
   * A hint: read ambiguous numeric dates (both parts ≤ 12) month first (true) or day first
   * (false), e.g. from the merchant's earlier receipts. The receipt's own evidence wins: a
   * numeric date on it that reads only one way (28/12/2017, 12/28/2017) decides the order.
   * Default: day first.
   */
  monthFirst?: boolean;
  /**
   * The company's locale (BCP 47, e.g. `en-US`, `en-MY`): a hint for ambiguous numeric dates
   * when neither `monthFirst` is given nor the receipt shows its order (a day above 12).
   * Month first for the locales that print it (US, Philippines, Canada in English, a few others).
   */
  locale?: string;
  /**
   * The company's merchants whose earlier receipts proved an order (normalised name → order,
   * `merchantDateOrders` in date-order.ts): used when this receipt proves none, above the
   * company's hint.
   */
  merchantDateOrders?: Readonly<Record<string, 'day-first' | 'month-first'>>;
  /**
   * The company's period: the first and last posting day (ISO) of its card lines. A date read
   * outside it (give or take a quarter) is doubtful, and its year is mended when one learned OCR
   * slip puts it inside (date-period.ts).
   */
  period?: DatePeriod;
  /** The day the receipt is read, one day ahead (ISO): a date after it is doubtful (date-period.ts). */
  notAfter?: string;
}
