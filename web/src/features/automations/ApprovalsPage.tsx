/** (being built) */

export function ApprovalsPage() {
  return <p className="muted">This screen is being built.</p>;
}
