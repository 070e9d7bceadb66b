/** Receipt-to-transaction matching: pure functions, no I/O. */
export { normalizeMerchant, merchantWords, stripProcessorPrefix, foldText } from './normalize';
export type { ProcessorSplit } from './normalize';
export { merchantSimilarity } from './similarity';
export { wordSimilarity, ocrFold } from './words';
export { scoreMatch, dayNumber } from './score';
export type { MatchEvidence, MatchScore, ReceiptInput, TransactionInput } from './score';
export { DEFAULT_MATCH_OPTIONS } from './factors';
export type { AmountKind, MatchOptions } from './factors';
export { autoMatch, DEFAULT_AUTO_MATCH_THRESHOLD } from './assign';
export type { AutoMatchOptions, MatchProposal } from './assign';
export { isoOfDay, receiptBlock, receiptDayRange } from './blocking';
export { prepareReceipt } from './score';
export { resolveOptions } from './factors';
export type { PreparedReceipt } from './score';
export type { ResolvedMatchOptions } from './factors';
