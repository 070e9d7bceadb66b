/**
 * The import's public entry for an event store that stages statements (infra's SQLite writer
 * thread): the port it implements and the pure pieces of a decision it runs there. Light on
 * purpose: a thread that loads it loads no HTTP code.
 */
export type { StageAnswer, StagedDecisionInput, StagedStatement, StatementStager } from './src/imports/stage-port';
export { candidateRow } from './src/imports/import-rows';
export { newId } from './src/core/ids';
