/** The AI features' pure core: categorisation, duplicates, recurring charges. */
export { describe as describeDescriptor, merchantKey } from './categorize/merchant';
export type { Descriptor } from './categorize/merchant';
export { conceptsOf, conceptsOfCategoryName, CONCEPTS } from './categorize/lexicon';
export type { Concept } from './categorize/lexicon';
export { lineFeatures } from './categorize/features';
export type { LineInput } from './categorize/features';
export type { LinearModel } from './categorize/model';
export {
  buildMemory, countInEntry, emptyEntry, feedbackInEntry, fitTemperature, foldOf, groupedOutOfFold, predictCategory, trainCategorizer, FEEDBACK_WEIGHT,
} from './categorize/categorizer';
export type { CategorizerModel, CategoryRef, LabelledLine, OutOfFold, PayeeEntry, PayeeMemory, Prediction } from './categorize/categorizer';
export { DEFAULT_MAX_DAYS, duplicatesOf, findDuplicateGroups, pairConfidence, pairKey as duplicatePairKey } from './duplicates/duplicates';
export type { DuplicateCandidate, DuplicateGroup, DuplicateOptions, DuplicatePair } from './duplicates/duplicates';
// Whole concept files: a function added to one is exported with no edit here.
export * from './recurring/recurring';
export * from './learning/events';
