/** Match confidence badge, spec section 9: 80 and above success, 60 to 79 warning, below 60 danger. */
export function confidenceBadge(confidence: number): 'success' | 'warning' | 'danger' {
  return confidence >= 80 ? 'success' : confidence >= 60 ? 'warning' : 'danger';
}
