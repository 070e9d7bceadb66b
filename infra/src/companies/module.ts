import { companyCommands } from '@paperlink/command-api';
import type { Feature } from '../boot/feature';

/** A company's name, domain and members (their reads: the accounts feature). */
export const companies: Feature = {
  feature: 'companies',
  commands: companyCommands,
  wire: (k) => ({ routes: companyCommands.routers({ bus: k.bus, events: k.events, views: k.views, access: k.access }) }),
};
