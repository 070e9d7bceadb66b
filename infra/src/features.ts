/**
 * Every feature of the server, in the order their routes are matched: the one place a feature
 * registers (CONTRIBUTING.md). History comes before the lists whose `asOf` reads it answers.
 */
import type { Feature } from './boot/feature';
import { accounts } from './accounts/module';
import { companies } from './companies/module';
import { masterData } from './masterdata/module';
import { history } from './history/module';
import { imports } from './imports/module';
import { transactions } from './transactions/module';
import { receipts } from './receipts/module';
import { matches } from './matches/module';
import { analytics } from './analytics/module';
import { reports } from './reports/module';
import { audit } from './audit/module';
import { system } from './system/module';
import { settings } from './settings/module';
import { ai } from './ai/module';

export const features: readonly Feature[] = [accounts, companies, masterData, history, imports, transactions, receipts, matches, analytics, reports, audit, system, settings, ai];
