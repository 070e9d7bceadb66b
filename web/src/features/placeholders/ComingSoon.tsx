import { useSession } from '../../lib/session';

/** Screens of later issues: the shell routes to them already. */
export function ComingSoon({ title, adminOnly = false }: { title: string; adminOnly?: boolean }) {
  const role = useSession((s) => s.role());
  if (adminOnly && role !== 'admin') {
    return (
      <section className="page">
        <h1>{title}</h1>
        <div className="form-error" role="alert">Access denied. Admin privileges required.</div>
      </section>
    );
  }
  return (
    <section className="page">
      <h1>{title}</h1>
      <p className="muted">This screen is being built.</p>
    </section>
  );
}
export default ComingSoon;
