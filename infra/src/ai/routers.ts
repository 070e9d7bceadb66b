/**
 * Composition of the splitting, calendar, advanced matching and comprehensive analysis routes
 * routes: the command router (writes) and the query router (reads), with the
 * worker pool for the CPU work and the company's settings for the AI switch.
 */
import type { Router } from 'express';
import { splitCalendarRouter, type AiLearningDeps, type CommandBus } from '@paperlink/command-api';
import type { CompanySettings, EventStore, ReadStore } from '@paperlink/domain';
import { getTransaction, matchedReceiptOf } from '@paperlink/projections';
import { aiQueryRouter, type Analyzer } from '@paperlink/query-api';
import type { OffThread } from '../workers/off-thread';
import { findInPages } from '../readstore/paged';
import { learningAnalyzers } from './analyzers';

export interface AiWiring {
  bus: CommandBus;
  events: EventStore;
  readStore: ReadStore;
  cpu: Pick<OffThread, 'calendar' | 'calendarInsights' | 'rankCandidates'>;
  settingsOf(companyId: string): Promise<CompanySettings>;
  /** The learning ports (categorisation, duplicates, recurring) the comprehensive call asks. */
  learning?: AiLearningDeps;
  /** Or analyses given directly (tests). */
  analyzers?: Partial<Record<'categorization' | 'duplicateAnalysis' | 'recurringAnalysis', Analyzer>>;
}

export function aiRouters(w: AiWiring): Router[] {
  const aiEnabled = async (companyId: string) => (await w.settingsOf(companyId)).aiEnabled;
  return [
    splitCalendarRouter({
      bus: w.bus,
      events: w.events,
      locator: { locate: (companyId, id) => getTransaction(w.readStore, companyId, id) },
      matchedReceipt: (companyId, transactionId, scope) => matchedReceiptOf(w.readStore, companyId, transactionId, scope),
      aiEnabled,
      parseCalendar: (bytes, now) => w.cpu.calendar(bytes, now),
    }),
    aiQueryRouter({
      store: w.readStore,
      aiEnabled,
      rank: (target, others, limit) => w.cpu.rankCandidates(target, others, limit),
      insights: (events, lines) => w.cpu.calendarInsights(events, lines),
      readAll: (collection, filter) => findInPages(collection, filter),
      analyzers: w.analyzers ?? (w.learning ? learningAnalyzers(w.learning, w.settingsOf) : {}),
    }),
  ];
}
