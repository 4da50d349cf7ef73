/** (being built) */
export default function SettingsPage(_: { tab: string }) {
  return <p className="muted">This screen is being built.</p>;
}
