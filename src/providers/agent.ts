/**
 * The coding-agent client (`agent` staff), api-spec §5.7 and contract §6-7: a cloud-agent run is launched at
 * `{agents origin}/v0/agents`, polled (first after 2 s, backing off to every 10 s) until a final status, and
 * its conversation read for the answer; every cloud-agent call uses Basic auth with the key as username. The
 * local bridge (an extension) answers through an OpenAI-compatible completions path with `AGENT_HTTP_AUTH`.
 */
import type { AgentSettings } from "../config";
import { callJson, type ProviderCall, ProviderError, sleep } from "./http";
import type { ChatMessage } from "./modelrouter";

/** One request's own limit: the service answers these calls quickly, or something is wrong. */
const ATTEMPT_MS = 60_000;
const PROVIDER = "the agent service";

/** The statuses after which a run changes no more; the first two mean it succeeded. */
const SUCCEEDED = new Set(["FINISHED", "COMPLETED"]);
const FINAL = new Set([...SUCCEEDED, "ERROR", "FAILED", "EXPIRED", "CANCELLED", "CANCELED"]);

/** The pause before poll `n` (1-based): 2 s, then doubling up to 10 s. */
export const pollPauseMs = (n: number) => Math.min(2000 * 2 ** (n - 1), 10_000);

/** A launched cloud-agent run. */
export interface AgentRun {
  id: string;
  /** Where a person can watch it, when the service says. */
  url: string | null;
}

/** The repository a run works on. */
export interface AgentSource {
  repository: string;
  ref: string | null;
}

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
const agentsUrl = (settings: AgentSettings, path: string) => settings.agentsBaseUrl.replace(/\/+$/, "") + path;

function request(key: string, body?: unknown): RequestInit {
  const headers: Record<string, string> = { authorization: basic(key), accept: "application/json" };
  if (body === undefined) return { method: "GET", headers };
  headers["content-type"] = "application/json";
  return { method: "POST", headers, body: JSON.stringify(body) };
}

/** Launches a run; without a source it works without repository context. */
export async function launchRun(
  settings: AgentSettings,
  key: string,
  prompt: string,
  source: AgentSource | null,
  call: ProviderCall,
): Promise<AgentRun> {
  const body: Record<string, unknown> = { prompt: { text: prompt } };
  if (source)
    body.source = source.ref ? { repository: source.repository, ref: source.ref } : { repository: source.repository };
  const answer = (await callJson(agentsUrl(settings, "/v0/agents"), request(key, body), {
    ...call,
    attemptTimeoutMs: ATTEMPT_MS,
    provider: PROVIDER,
  })) as { id?: unknown; target?: { url?: unknown } };
  if (typeof answer.id !== "string" || !answer.id) throw new ProviderError(`${PROVIDER} launched no run`);
  const url = typeof answer.target?.url === "string" ? answer.target.url : null;
  return { id: answer.id, url };
}

/** Polls the run until its status is final; answers that status. */
export async function waitForRun(
  settings: AgentSettings,
  key: string,
  id: string,
  call: ProviderCall,
): Promise<string> {
  for (let poll = 1; ; poll++) {
    await sleep(pollPauseMs(poll) * call.pacing.timeScale, call.signal);
    const answer = (await callJson(agentsUrl(settings, `/v0/agents/${encodeURIComponent(id)}`), request(key), {
      ...call,
      attemptTimeoutMs: ATTEMPT_MS,
      provider: PROVIDER,
    })) as { status?: unknown };
    const status = String(answer.status ?? "").toUpperCase();
    if (FINAL.has(status)) return status;
  }
}

/** Whether a final status means the run succeeded. */
export const succeeded = (status: string) => SUCCEEDED.has(status);

/** The assistant's text of a finished run, its messages joined. */
export async function readConversation(
  settings: AgentSettings,
  key: string,
  id: string,
  call: ProviderCall,
): Promise<string> {
  const answer = (await callJson(
    agentsUrl(settings, `/v0/agents/${encodeURIComponent(id)}/conversation`),
    request(key),
    { ...call, attemptTimeoutMs: ATTEMPT_MS, provider: PROVIDER },
  )) as { messages?: { type?: unknown; text?: unknown }[] };
  return (answer.messages ?? [])
    .filter((m) => m.type === "assistant_message" && typeof m.text === "string")
    .map((m) => (m.text as string).trim())
    .filter(Boolean)
    .join("\n\n");
}

/** How long a key check waits for the service, in one attempt: a person is waiting on it. */
const CHECK_MS = 10_000;

/**
 * Checks the organization's key with one cheap authenticated GET: the cloud-agent API's `GET /v0/me` (the key's own
 * description) with Basic auth, as every cloud-agent call; with the local bridge, its model list (the
 * completions path's `chat/completions` made `models`) authenticated as `AGENT_HTTP_AUTH` says. Resolves when the
 * service accepts the key; a `ProviderError` says what it answered.
 */
export async function checkKey(settings: AgentSettings, key: string, signal: AbortSignal): Promise<void> {
  const options = { signal, pacing: { timeScale: 1 }, attempts: 1, attemptTimeoutMs: CHECK_MS, provider: PROVIDER };
  if (!settings.localBridge) {
    await callJson(agentsUrl(settings, "/v0/me"), request(key), options);
    return;
  }
  const models = settings.chatCompletionsPath.replace(/chat\/completions\/?$/, "models");
  const authorization = settings.httpAuth === "basic" ? basic(key) : `Bearer ${key}`;
  await callJson(
    settings.apiBaseUrl.replace(/\/+$/, "") + models,
    { method: "GET", headers: { authorization, accept: "application/json" } },
    options,
  );
}

/** An answer from the local bridge's completions path. */
export async function bridgeComplete(
  settings: AgentSettings,
  key: string,
  messages: readonly ChatMessage[],
  call: ProviderCall,
): Promise<{ text: string; promptTokens: number; completionTokens: number }> {
  const authorization = settings.httpAuth === "basic" ? basic(key) : `Bearer ${key}`;
  const answer = (await callJson(
    settings.apiBaseUrl.replace(/\/+$/, "") + settings.chatCompletionsPath,
    {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify({ model: settings.completionModel, messages }),
    },
    { ...call, attemptTimeoutMs: 15 * 60_000, provider: PROVIDER },
  )) as {
    choices?: { message?: { content?: unknown } }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const content = answer.choices?.[0]?.message?.content;
  const text = typeof content === "string" ? content.trim() : "";
  if (!text) throw new ProviderError(`${PROVIDER} gave an empty answer`);
  return {
    text,
    promptTokens: answer.usage?.prompt_tokens ?? 0,
    completionTokens: answer.usage?.completion_tokens ?? 0,
  };
}
