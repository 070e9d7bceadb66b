import { toast } from 'react-toastify';

/**
 * The outcome of an auto-match run: green only when something was matched; a run that found
 * nothing says so plainly instead of celebrating zero.
 */
export function toastAutoMatch(matched: number): void {
  if (matched > 0) toast.success(`Auto-matched ${matched} receipt${matched === 1 ? '' : 's'}!`);
  else toast.info('Auto-match found no new match');
}

/** The outcome of a statement import: green only when rows were added. */
export function toastImport(imported: number, alreadyImported: boolean): void {
  if (imported > 0) toast.success(`Import completed! ${imported} transaction${imported === 1 ? '' : 's'} imported`);
  else toast.info(alreadyImported ? 'Nothing new: this file was imported before' : 'No transaction imported: the file held no new rows');
}
