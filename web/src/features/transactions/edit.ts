import type { TransactionUpdate } from './api/transactions';

/** The inline edit form as typed (strings), before it becomes the spec's update payload. */
export interface EditForm {
  description: string;
  category: string;
  jobNumber: string;
  costCode: string;
  amount: string;
  salesTax: string;
}

export const EDIT_REQUIRED = 'Description, category, job number, and cost code are required';
export const EDIT_AMOUNT = 'Please enter a valid amount';
export const EDIT_TAX = 'Sales tax must be a number';

const number = (s: string): number | null => {
  const t = s.trim();
  if (t === '' || !/^[-+]?(\d+\.?\d*|\.\d+)$/.test(t)) return null;
  return Number(t);
};

/** Spec section 5, transaction edit: the four names required, the amount a number, tax optional. */
export function validateEdit(f: EditForm): { ok: true; body: TransactionUpdate } | { ok: false; error: string } {
  if (!f.description.trim() || !f.category.trim() || !f.jobNumber.trim() || !f.costCode.trim()) return { ok: false, error: EDIT_REQUIRED };
  const amount = number(f.amount);
  if (amount === null) return { ok: false, error: EDIT_AMOUNT };
  let salesTax: number | null = null;
  if (f.salesTax.trim() !== '') {
    salesTax = number(f.salesTax);
    if (salesTax === null) return { ok: false, error: EDIT_TAX };
  }
  return {
    ok: true,
    body: { description: f.description.trim(), category: f.category.trim(), amount, sales_tax: salesTax, job_number: f.jobNumber.trim(), cost_code: f.costCode.trim() },
  };
}
