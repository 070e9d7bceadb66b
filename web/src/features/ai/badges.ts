/** Spec section 9: the two confidence badges the AI screens show. */

export type AiConfidenceLevel = 'high' | 'medium' | 'low';
export type GroupBadgeTone = 'danger' | 'warning' | 'info';

/** AI confidence (0 to 1): above 0.7 high, above 0.4 medium, otherwise low. */
export function aiConfidenceLevel(confidence: number): AiConfidenceLevel {
  if (confidence > 0.7) return 'high';
  if (confidence > 0.4) return 'medium';
  return 'low';
}

const LEVEL_TONE: Record<AiConfidenceLevel, 'success' | 'warning' | 'danger'> = { high: 'success', medium: 'warning', low: 'danger' };
const LEVEL_LABEL: Record<AiConfidenceLevel, string> = { high: 'High', medium: 'Medium', low: 'Low' };

export function aiConfidenceBadge(confidence: number): { level: AiConfidenceLevel; tone: 'success' | 'warning' | 'danger'; text: string } {
  const level = aiConfidenceLevel(confidence);
  return { level, tone: LEVEL_TONE[level], text: `${LEVEL_LABEL[level]} (${percent(confidence)})` };
}

/** Duplicate group confidence (0 to 1): above 0.8 danger, above 0.6 warning, else info. */
export function duplicateGroupTone(confidence: number): GroupBadgeTone {
  if (confidence > 0.8) return 'danger';
  if (confidence > 0.6) return 'warning';
  return 'info';
}

export function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}
