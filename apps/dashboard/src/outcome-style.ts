/** Label and colour of each outcome, shared by the chart and the totals (which double as its legend). */
import type { OutcomeField } from '@va/contracts';

export const OUTCOME_STYLE: Record<OutcomeField, { label: string; color: string }> = {
  valid: { label: 'Valid', color: '#2f9e44' },
  notFound: { label: 'Not found', color: '#868e96' },
  forbidden: { label: 'Forbidden', color: '#e03131' },
  usageExceeded: { label: 'Usage exceeded', color: '#f08c00' },
  rateLimited: { label: 'Rate limited', color: '#fcc419' },
  unauthorized: { label: 'Unauthorized', color: '#7048e8' },
  disabled: { label: 'Disabled', color: '#495057' },
  insufficientPermissions: { label: 'Insufficient permissions', color: '#d6336c' },
  expired: { label: 'Expired', color: '#8d5524' },
};
