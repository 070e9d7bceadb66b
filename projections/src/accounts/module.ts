import type { ProjectionModule } from '../core/projection';
import { usersProjection } from './users';
import { sessionsProjection } from './sessions';
import { companiesProjection } from './companies';

/** The users, their sessions and the companies. */
export const accountProjections: ProjectionModule = { feature: 'accounts', projections: [usersProjection, sessionsProjection, companiesProjection] };
