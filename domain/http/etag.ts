/**
 * A record's revision on the wire (ADR 0024): the query side answers it as an ETag, the
 * command side takes it back in If-Match. The revision is how many events the record's own
 * write stream holds (0: none yet), so it changes with every change of the record.
 */
export const etagOf = (revision: number): string => `"${revision}"`;

/**
 * Sets the ETag of a record read from a read model that stores its revision. The tag names the
 * record's version, not every byte of the answer (a match elsewhere changes a count on it), so
 * the answer is not stored for revalidation.
 */
export function setEtag(res: { setHeader(name: string, value: string): unknown }, revision: number | undefined): void {
  if (revision === undefined) return;
  res.setHeader('ETag', etagOf(revision));
  res.setHeader('Cache-Control', 'no-store');
}

const TAG = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/;

/**
 * The revision an If-Match header names: undefined without the header (or with `*`, any current
 * record), -1 when it names no revision of ours (which no record has, so the write is refused).
 */
export function revisionOfIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '' || header.trim() === '*') return undefined;
  const m = TAG.exec(header);
  return m ? Number(m[1]) : -1;
}
