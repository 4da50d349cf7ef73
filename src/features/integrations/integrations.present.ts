/**
 * A provider key as shown: whether it is set and its hint, never the key. The hint is for those who manage the
 * key (`org.manage`): to everyone else it is null.
 */
import { isoOrNull } from "../../lib/ids";
import type { IntegrationOut, Provider } from "./integrations.schemas";
import type { IntegrationRow } from "./integrations.store";

export function presentIntegration(
  provider: Provider,
  row: IntegrationRow | undefined,
  showHint = true,
): IntegrationOut {
  return {
    provider,
    configured: row !== undefined,
    key_hint: showHint ? (row?.keyHint ?? null) : null,
    updated_at: isoOrNull(row?.updatedAt ?? null),
  };
}
