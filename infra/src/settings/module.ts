import { settingsCommands } from '@paperlink/command-api';
import { companySettingViews, settingsProjections } from '@paperlink/projections';
import type { Feature } from '../boot/feature';

/** A company's advanced settings and its language models (read and written on the command side: no route shows a key). */
export const settings: Feature = {
  feature: 'settings',
  commands: settingsCommands,
  projections: settingsProjections,
  wire: (k) => ({ routes: settingsCommands.routers({ bus: k.bus, llm: k.llm, settings: k.settingsOf, views: (companyId) => companySettingViews(k.readStore, companyId) }) }),
};
