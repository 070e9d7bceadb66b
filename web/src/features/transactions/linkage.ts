/**
 * Spec section 4, category and cost code linkage while editing a transaction:
 * - choosing a category narrows the cost codes to that category;
 * - for PROJECT MANAGER the cost code becomes 01-3114 when it exists, else it is cleared;
 * - when exactly one cost code is available it is chosen;
 * - a cost code outside the chosen category is cleared;
 * - choosing a cost code sets its category; choosing 01-3114 sets PROJECT MANAGER.
 */
export interface CostCode {
  name: string;
  category_name?: string | null;
}

export const PROJECT_MANAGER = 'PROJECT MANAGER';
export const PM_COST_CODE = '01-3114';

const same = (a?: string | null, b?: string | null) => (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

export function costCodesFor(category: string, codes: CostCode[]): CostCode[] {
  return category ? codes.filter((c) => same(c.category_name, category)) : codes;
}

export function onCategoryChange(category: string, currentCostCode: string, codes: CostCode[]): { category: string; costCode: string } {
  if (same(category, PROJECT_MANAGER)) {
    const pm = codes.find((c) => same(c.name, PM_COST_CODE));
    return { category, costCode: pm ? pm.name : '' };
  }
  const available = costCodesFor(category, codes);
  if (available.length === 1) return { category, costCode: available[0]!.name };
  const keep = available.some((c) => same(c.name, currentCostCode));
  return { category, costCode: keep ? currentCostCode : '' };
}

export function onCostCodeChange(costCode: string, currentCategory: string, codes: CostCode[]): { category: string; costCode: string } {
  if (same(costCode, PM_COST_CODE)) return { category: PROJECT_MANAGER, costCode };
  const code = codes.find((c) => same(c.name, costCode));
  return { category: code?.category_name ?? currentCategory, costCode };
}
