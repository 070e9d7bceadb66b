import { accountCommands } from '@paperlink/command-api';
import { accountProjections } from '@paperlink/projections';
import { accountQueries } from '@paperlink/query-api';
import type { Feature, Kernel } from '../boot/feature';

const accountDeps = (k: Kernel) => ({ bus: k.bus, events: k.events, tokens: k.tokens, hasher: k.hasher, views: k.views, limits: k.limits, loginAddressKey: k.secret });

/** Sign-up, sign-in, sessions, the caller's account, and the reads of users and companies. */
export const accounts: Feature = {
  feature: 'accounts',
  commands: accountCommands,
  queries: accountQueries,
  projections: accountProjections,
  wire: (k) => ({
    public: accountCommands.publicRouters!(accountDeps(k)),
    routes: [...accountCommands.routers(accountDeps(k)), ...accountQueries.routers!({ views: k.views, access: k.access })],
  }),
};
