import type { ProjectionModule } from '../core/projection';
import { masterDataProjection } from './items';

/** The master data lists. */
export const masterDataProjections: ProjectionModule = { feature: 'masterdata', projections: [masterDataProjection] };
