/** (being built) */
import type { Space } from "../../lib/types";
export function ChatPage(_: { space: Space; roomId: string | null }) {
  return <p className="muted">This screen is being built.</p>;
}
