import type { ProjectionModule } from '../core/projection';
import { matchesProjection } from './matches';
import { matchFiguresProjection } from './figures';

/** Matches and their figures. */
export const matchProjections: ProjectionModule = { feature: 'matches', projections: [matchesProjection, matchFiguresProjection] };
