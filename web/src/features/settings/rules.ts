import axios from 'axios';

/** A refusal for a non-admin (403) or a setting that is not there (404): tolerated silently (spec sections 6 and 8). */
export function isRefusal(error: unknown, statuses: number[] = [403]): boolean {
  return axios.isAxiosError(error) && statuses.includes(error.response?.status ?? 0);
}

/** Spec section 2: Update Model is disabled when no model is selected (and while a save runs, and for non-admins). */
export function canUpdateModel(selected: string, current: string | null, isAdmin: boolean, busy: boolean): boolean {
  return isAdmin && !busy && selected.trim() !== '' && selected !== current;
}

/** The models a selector offers: the available ones, and the current choice even when the list lacks it. */
export function modelOptions(available: Array<{ name: string; displayName?: string | undefined }>, current: string | null): Array<{ name: string; label: string }> {
  const out = available.map((m) => ({ name: m.name, label: m.displayName && m.displayName !== m.name ? `${m.displayName} (${m.name})` : m.name }));
  if (current && !out.some((m) => m.name === current)) out.unshift({ name: current, label: current });
  return out;
}

/** The general settings form's values, checked as the server checks them. */
export function checkGeneral(threshold: string, maxFileSizeMb: string, serverMaxBytes: number): { threshold?: string; maxFileSize?: string } {
  const errors: { threshold?: string; maxFileSize?: string } = {};
  const t = Number(threshold);
  if (threshold.trim() === '' || !Number.isFinite(t) || t < 0 || t > 100) errors.threshold = 'Enter a number from 0 to 100';
  const mb = Number(maxFileSizeMb);
  if (maxFileSizeMb.trim() === '' || !Number.isFinite(mb) || mb <= 0 || Math.round(mb * 1024 * 1024) > serverMaxBytes) {
    errors.maxFileSize = `Enter a size above 0 and at most ${Math.round(serverMaxBytes / 1024 / 1024)} MB`;
  }
  return errors;
}
