/**
 * Said where an edit was refused because someone else changed the record since it was read
 * (412): what the person typed stays in the form until they choose to reload.
 */
export function StaleNotice({ message, onReload }: { message: string; onReload: () => void }) {
  return (
    <div className="form-error stale-notice" role="alert">
      {message} What you typed is kept until you reload.{' '}
      <button type="button" className="btn small" onClick={onReload}>Reload</button>
    </div>
  );
}
