import { aiCommands, type AiLearningDeps } from '@paperlink/command-api';
import { aiProjections, getTransaction, listMasterItems, matchedReceiptOf } from '@paperlink/projections';
import { aiQueries } from '@paperlink/query-api';
import type { Feature, Kernel } from '../boot/feature';
import { findInPages } from '../readstore/paged';
import { learningAnalyzers } from './analyzers';
import { companyMemo } from './company-memo';
import { aiLearningDeps } from './learning';

/** The learning ports (categorisation, duplicates, recurring), with whole-company answers kept until the company's next event. */
const learningOf = (k: Kernel): AiLearningDeps => ({
  ...aiLearningDeps(k.readStore, k.workerPool, k.bus, k.categorizers),
  llm: k.llm,
  memo: companyMemo(k.decisionPosition, () => k.runner.position),
});

function aiRoutes(k: Kernel) {
  const learning = learningOf(k);
  const aiEnabled = async (companyId: string) => (await k.settingsOf(companyId)).aiEnabled;
  const commands = aiCommands.routers({
    learning,
    llmTest: {
      llm: k.llm,
      settings: k.settingsOf,
      categories: async (companyId) => (await listMasterItems(k.readStore, companyId, 'categories')).map((c) => ({ id: c.id, name: c.name })),
      ocr: (bytes) => k.reader.read(bytes),
    },
    tools: {
      bus: k.bus,
      events: k.events,
      locator: { locate: (companyId, id) => getTransaction(k.readStore, companyId, id) },
      matchedReceipt: (companyId, transactionId, scope) => matchedReceiptOf(k.readStore, companyId, transactionId, scope),
      aiEnabled,
      parseCalendar: (bytes, now) => k.cpu.calendar(bytes, now),
    },
  });
  const queries = aiQueries.routers!({
    store: k.readStore,
    aiEnabled,
    rank: (target, others, limit) => k.cpu.rankCandidates(target, others, limit),
    insights: (events, lines) => k.cpu.calendarInsights(events, lines),
    readAll: (collection, filter) => findInPages(collection, filter),
    analyzers: learningAnalyzers(learning, k.settingsOf),
  });
  return [...commands, ...queries];
}

/** The AI helpers: categorisation, duplicates, recurring series, splitting, calendars, advanced matching, the language-model tests. */
export const ai: Feature = {
  feature: 'ai',
  commands: aiCommands,
  queries: aiQueries,
  projections: aiProjections,
  wire: (k) => ({ routes: aiRoutes(k) }),
};
