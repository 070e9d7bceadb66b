import type { ProjectionModule } from '../core/projection';
import { analyticsProjection } from './analytics';

/** The dashboard's figures. */
export const analyticsProjections: ProjectionModule = { feature: 'analytics', projections: [analyticsProjection] };
