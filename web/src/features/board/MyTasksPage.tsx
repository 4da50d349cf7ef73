/** (being built) */

export function MyTasksPage() {
  return <p className="muted">This screen is being built.</p>;
}
