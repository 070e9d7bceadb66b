import type { ProjectionModule } from '../core/projection';
import { calendarProjection } from './calendar';
import { aiLearningProjection } from './learning';

/** Calendars and what the AI learns (predictions, feedback, duplicate groups). */
export const aiProjections: ProjectionModule = { feature: 'ai', projections: [calendarProjection, aiLearningProjection] };
