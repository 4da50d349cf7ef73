/** (being built) */
import type { Space } from "../../lib/types";
export function FilesPage(_: { space: Space; nodeId: string | null }) {
  return <p className="muted">This screen is being built.</p>;
}
