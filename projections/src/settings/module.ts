import type { ProjectionModule } from '../core/projection';
import { settingsProjection } from './settings';

/** Each company's settings. */
export const settingsProjections: ProjectionModule = { feature: 'settings', projections: [settingsProjection] };
