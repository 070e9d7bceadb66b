/**
 * Maximum-weight assignment (Hungarian algorithm, Kuhn-Munkres with potentials, O(n^2 m)).
 * Used on one connected component of the candidate graph at a time; components are small
 * (a handful of receipts sharing a few card lines), so the cubic cost never shows.
 */

/**
 * Assigns each of `rows` rows to a distinct column of `cols` (rows <= cols) maximising the
 * total weight; `weight(i, j)` is 0 for "no edge". Returns, per row, its column or -1 when
 * the row is left on a zero-weight column (unmatched). Integer weights give exact results.
 * Deterministic for a given order of rows and columns: callers sort them (by id) and encode
 * their own tie-breaks in the weights.
 */
export function maxWeightAssignment(rows: number, cols: number, weight: (i: number, j: number) => number): number[] {
  if (rows > cols) throw new RangeError('maxWeightAssignment needs rows <= cols; transpose the problem');
  const cost = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) cost[i * cols + j] = -weight(i, j);
  const u = new Float64Array(rows + 1);
  const v = new Float64Array(cols + 1);
  const p = new Int32Array(cols + 1);
  const way = new Int32Array(cols + 1);
  for (let i = 1; i <= rows; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(cols + 1).fill(Number.POSITIVE_INFINITY);
    const used = new Uint8Array(cols + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0] ?? 0;
      let delta = Number.POSITIVE_INFINITY;
      let j1 = 0;
      for (let j = 1; j <= cols; j++) {
        if (used[j]) continue;
        const cur = (cost[(i0 - 1) * cols + (j - 1)] ?? 0) - (u[i0] ?? 0) - (v[j] ?? 0);
        if (cur < (minv[j] ?? 0)) {
          minv[j] = cur;
          way[j] = j0;
        }
        if ((minv[j] ?? 0) < delta) {
          delta = minv[j] ?? 0;
          j1 = j;
        }
      }
      for (let j = 0; j <= cols; j++) {
        if (used[j]) {
          const row = p[j] ?? 0;
          u[row] = (u[row] ?? 0) + delta;
          v[j] = (v[j] ?? 0) - delta;
        } else {
          minv[j] = (minv[j] ?? 0) - delta;
        }
      }
      j0 = j1;
    } while ((p[j0] ?? 0) !== 0);
    do {
      const j1 = way[j0] ?? 0;
      p[j0] = p[j1] ?? 0;
      j0 = j1;
    } while (j0 !== 0);
  }
  const result = new Array<number>(rows).fill(-1);
  for (let j = 1; j <= cols; j++) {
    const row = p[j] ?? 0;
    if (row > 0 && weight(row - 1, j - 1) > 0) result[row - 1] = j - 1;
  }
  return result;
}
