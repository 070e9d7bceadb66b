/**
 * The command side's feature modules, in the order their routes are matched. The operations
 * (OpenAPI, the auditor's gate, the process roles) and the event types are read from here.
 */
import { operationsOf } from '@paperlink/domain/http/module';
import type { Operation } from './http/openapi';
import { accountCommands } from './accounts/module';
import { companyCommands } from './companies/module';
import { importCommands } from './imports/module';
import { transactionCommands } from './transactions/module';
import { receiptCommands } from './receipts/module';
import { matchCommands } from './matches/module';
import { masterDataCommands } from './masterdata/module';
import { settingsCommands } from './settings/module';
import { aiCommands } from './ai/module';

export { accountCommands, companyCommands, importCommands, transactionCommands, receiptCommands, matchCommands, masterDataCommands, settingsCommands, aiCommands };

export const commandModules = [accountCommands, companyCommands, importCommands, transactionCommands, receiptCommands, matchCommands, masterDataCommands, settingsCommands, aiCommands] as const;

/** Every route of the command side (writes), with the schemas its handler parses with. */
export const commandOperations: Operation[] = operationsOf(commandModules);

/** Command-side POSTs that append nothing (they compute an answer): reads for an auditor and for the process roles. */
export const COMMAND_SIDE_READS: ReadonlyArray<Pick<Operation, 'method' | 'path'>> = commandOperations.filter((op) => op.computesOnly);

/** Every event type the product's commands append, besides the bus's own request records. */
export const commandEventTypes: ReadonlyArray<string> = ['RequestCompleted', ...commandModules.flatMap((m) => m.events)];
