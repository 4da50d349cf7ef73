/** A provider key as shown: whether it is set and its hint, never the key. */
import { isoOrNull } from "../../lib/ids";
import type { IntegrationOut, Provider } from "./integrations.schemas";
import type { IntegrationRow } from "./integrations.store";

export function presentIntegration(provider: Provider, row: IntegrationRow | undefined): IntegrationOut {
  return {
    provider,
    configured: row !== undefined,
    key_hint: row?.keyHint ?? null,
    updated_at: isoOrNull(row?.updatedAt ?? null),
  };
}
