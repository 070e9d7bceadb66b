/** Receipt reading rules: file checks, field extraction, combining OCR readings. */
export { extractReceiptFields } from './extract';
export { CONFIDENT_AT } from './learned/model';
export { combineReadings, needsAnotherReading, RETRY_BELOW, takeRereadFields } from './combine';
export { doubtfulFields, linesForSecondReader, linesToReread, REREAD_PER_FIELD } from './reread-lines';
export type { RereadField, RereadLine, RereadOptions } from './reread-lines';
export { sniffFile, receiptFileError, countPdfPages, RECEIPT_MAX_BYTES, RECEIPT_MAX_PIXELS, RECEIPT_MAX_PAGES } from './filetype';
export type { ReceiptFileErrorCode, ReceiptFileKind, ReceiptFileLimits, SniffedFile } from './filetype';
export { merchantSimilarity, normaliseMerchant } from './merchant-similarity';
export { checkYear, inPeriod, OUTSIDE_PERIOD_CONFIDENCE, PERIOD_SLACK_DAYS } from './date-period';
export type { DateBounds, DatePeriod } from './date-period';
export { companyDateOrder, DATE_ORDER_SETTINGS, decideDateOrder, merchantDateOrders, merchantOrderOf, provenOrder } from './date-order';
export type { DateOrder, DateOrderDecision, DateOrderEvidence, DateOrderSetting, PastReceipt } from './date-order';
export type {
  ExtractOptions, Extracted, ExtractedMoney, OcrBox, OcrEngine, OcrResult, OcrWord, ReceiptFields,
} from './types';
