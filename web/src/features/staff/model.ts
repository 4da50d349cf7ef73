/** What the staff screens share: the providers' names, the default model, durations in words. */
import type { Provider } from "../../../../src/api-types";

/** The providers, with their names for people. */
export const PROVIDERS: Record<Provider, string> = {
  modelrouter: "Model gateway",
  agent: "Cloud agent",
};

/**
 * The model a `modelrouter` staff member gets when none is given: the server's MODELROUTER_DEFAULT_MODEL,
 * whose documented default this is. Shown as a placeholder only; the server decides.
 */
export const DEFAULT_MODEL = "meta-llama/llama-3.3-70b-instruct:free";

/** The longest instructions a staff member takes, in characters (code points, as the server counts). */
export const MAX_INSTRUCTIONS = 8000;

/** "850 ms", "12.4 s", "3 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}
