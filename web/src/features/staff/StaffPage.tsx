/** (being built) */

export function StaffPage(_: { userId: string | null }) {
  return <p className="muted">This screen is being built.</p>;
}
