/**
 * The query side's feature modules, in the order their routes are matched (history first: its
 * as-of middleware answers the lists' `asOf` reads). The operations are read from here.
 */
import type { Operation } from '@paperlink/domain/http/operation';
import { operationsOf } from '@paperlink/domain/http/module';
import { accountQueries } from './accounts/module';
import { masterDataQueries } from './masterdata/module';
import { historyQueries } from './history/module';
import { transactionQueries } from './transactions/module';
import { receiptQueries } from './receipts/module';
import { matchQueries } from './matches/module';
import { analyticsQueries } from './analytics/module';
import { reportQueries } from './exports/module';
import { aiQueries } from './ai/module';
import { auditQueries } from './audit/module';
import { systemQueries } from './system/module';

export { accountQueries, masterDataQueries, historyQueries, transactionQueries, receiptQueries, matchQueries, analyticsQueries, reportQueries, aiQueries, auditQueries, systemQueries };

export const queryModules = [accountQueries, masterDataQueries, transactionQueries, receiptQueries, matchQueries, analyticsQueries, reportQueries, aiQueries, historyQueries, auditQueries, systemQueries] as const;

/** Every route of the query side (reads), with the schemas its handler parses with. */
export const queryOperations: Operation[] = operationsOf(queryModules);
