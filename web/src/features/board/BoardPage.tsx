/** (being built) */
import type { Space } from "../../lib/types";
export function BoardPage(_: { space: Space }) {
  return <p className="muted">This screen is being built.</p>;
}
