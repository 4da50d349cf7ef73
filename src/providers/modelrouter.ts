/**
 * The model gateway client (`modelrouter` staff): an OpenAI-compatible chat completion with Tandem's function
 * tools and the gateway's own server tools (web search, date and time), looping over tool calls for at most
 * `MODELROUTER_CHAT_MAX_TOOL_ITERATIONS` rounds, then asking once more without tools for the answer.
 */
import type { ModelrouterSettings } from "../config";
import { callJson, type ProviderCall, ProviderError } from "./http";

/** A message of the conversation as the gateway takes it. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A function tool Tandem runs itself when the model calls it. */
export interface FunctionTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  /**
   * A tool that stores something (a proposal) is synchronous: it runs inside the transaction that records its
   * result in the saved loop, so a restart never runs it twice.
   */
  writes?: true;
  run(args: Record<string, unknown>): Promise<string> | string;
}

/** One tool call as the activity log keeps it. */
export interface ToolCallRecord {
  name: string;
  arguments: string;
  result: string;
  duration_ms: number;
  error: string | null;
}

/** What a reply has cost and done so far. */
export interface Work {
  promptTokens: number;
  completionTokens: number;
  toolCalls: ToolCallRecord[];
}

/** What an answer cost and did. */
export interface Completion extends Work {
  text: string;
}

/**
 * Where a tool loop stands: the conversation so far (the gateway's answers with their tool calls, and the
 * results of those that ran), what it cost, and how many tool rounds it has had. Saved by the caller after
 * every answer that calls tools and with every tool that writes, so a loop cut off by a restart resumes
 * where it was: the gateway is not asked the same question again, and no tool that writes runs twice.
 */
export interface LoopState extends Work {
  messages: ChatMessage[];
  rounds: number;
}

/** Saves `state` durably, running `write` (a tool that stores something) in the same transaction. */
export type SaveLoop = (state: LoopState, write?: () => void) => void;

const TRIM = 2000;
const trim = (text: string) => (text.length > TRIM ? `${text.slice(0, TRIM)}…` : text);

/** How long a key check waits for the gateway, in one attempt: a person is waiting on it. */
const CHECK_MS = 10_000;

/**
 * Checks the organization's key with one cheap authenticated call: `GET {base}/key`, the gateway's description of
 * the key asking (free, and refused with a 401 for a bad key); a compatible gateway without that route (404)
 * is asked its model list instead, `GET {base}/models`, with the key. Resolves when the gateway accepts the key;
 * a `ProviderError` says what it answered.
 */
export async function checkKey(settings: ModelrouterSettings, key: string, signal: AbortSignal): Promise<void> {
  const base = settings.apiBaseUrl.replace(/\/+$/, "");
  const get = (path: string) =>
    callJson(
      base + path,
      { method: "GET", headers: { authorization: `Bearer ${key}`, accept: "application/json" } },
      { signal, pacing: { timeScale: 1 }, attempts: 1, attemptTimeoutMs: CHECK_MS, provider: "the model gateway" },
    );
  try {
    await get("/key");
  } catch (error) {
    if (!(error instanceof ProviderError && error.status === 404)) throw error;
    await get("/models");
  }
}

/** The `tools` of a request: our functions, then the gateway's server tools that are switched on. */
export function toolsOf(settings: ModelrouterSettings, functions: readonly FunctionTool[]): unknown[] {
  const tools: unknown[] = functions.map((f) => ({
    type: "function",
    function: { name: f.name, description: f.description, parameters: f.parameters },
  }));
  if (settings.webSearchTool) {
    tools.push({
      type: "openrouter:web_search",
      parameters: {
        engine: settings.webSearchEngine,
        max_results: settings.webSearchMaxResults,
        max_total_results: settings.webSearchMaxTotalResults,
      },
    });
  }
  if (settings.datetimeTool) tools.push({ type: "openrouter:datetime" });
  return tools;
}

/** Asks the gateway for an answer, running the function tools it calls; `state` is updated as it goes. */
export async function complete(
  settings: ModelrouterSettings,
  key: string,
  model: string,
  state: LoopState,
  functions: readonly FunctionTool[],
  call: ProviderCall,
  save: SaveLoop,
): Promise<Completion> {
  const url = settings.apiBaseUrl.replace(/\/+$/, "") + settings.chatCompletionsPath;
  const stepMs = settings.toolStepTimeoutSec * 1000;
  const tools = settings.toolsEnabled ? toolsOf(settings, functions) : [];
  const record = (toolCall: ToolCall, done: ToolCallRecord) => {
    state.toolCalls.push(done);
    state.messages.push({ role: "tool", tool_call_id: toolCall.id, content: done.error ?? done.result });
  };

  for (;;) {
    // A saved answer whose calls did not all run (the loop was cut off): run the rest rather than ask again.
    let calls = pendingCalls(state.messages);
    if (calls.length === 0) {
      const offerTools = tools.length > 0 && state.rounds < settings.maxToolIterations;
      const body: Record<string, unknown> = { model, messages: state.messages };
      if (offerTools) body.tools = tools;
      if (settings.reasoning) body.reasoning = settings.reasoning;
      if (settings.maxTokens !== null) body.max_tokens = settings.maxTokens;
      if (settings.plugins) body.plugins = settings.plugins;
      const answer = (await callJson(
        url,
        {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        },
        { ...call, attemptTimeoutMs: stepMs, provider: "the model gateway", errorsIn200: true },
      )) as GatewayAnswer;
      state.promptTokens += answer.usage?.prompt_tokens ?? 0;
      state.completionTokens += answer.usage?.completion_tokens ?? 0;
      const message = answer.choices?.[0]?.message;
      if (!message) throw new ProviderError("the model gateway answered without a message");
      calls = offerTools ? (message.tool_calls ?? []) : [];
      if (calls.length === 0) {
        const text = textOf(message.content).trim();
        if (!text) throw new ProviderError("the model gave an empty answer");
        const { promptTokens, completionTokens, toolCalls } = state;
        return { text, promptTokens, completionTokens, toolCalls };
      }
      state.messages.push({ role: "assistant", content: textOf(message.content) || null, tool_calls: calls });
      state.rounds++;
      save(state);
    }
    for (const toolCall of calls) {
      const tool = functions.find((f) => f.name === toolCall.function?.name);
      if (tool?.writes) {
        call.signal.throwIfAborted();
        save(state, () => record(toolCall, runWritingTool(tool, toolCall)));
      } else {
        record(toolCall, await runTool(tool, toolCall, stepMs, call.signal));
      }
    }
  }
}

/** The tool calls of the last answer that have no result yet (results follow their answer, in call order). */
function pendingCalls(messages: readonly ChatMessage[]): ToolCall[] {
  const last = messages.findLastIndex((m) => m.role === "assistant");
  const answer = messages[last];
  if (!answer?.tool_calls) return [];
  return answer.tool_calls.slice(messages.length - last - 1);
}

interface GatewayAnswer {
  choices?: { message?: { content?: unknown; tool_calls?: ToolCall[] } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** `content` as text: a string, or the text parts of a content array. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === "object" && "text" in part ? String(part.text) : ""))
      .join("");
  }
  return "";
}

/** A tool call's arguments, and how to record its outcome with its duration. */
function prepareCall(tool: FunctionTool | undefined, toolCall: ToolCall) {
  const started = performance.now();
  const name = toolCall.function?.name ?? "";
  const rawArgs = toolCall.function?.arguments ?? "";
  const finish = (result: string, error: string | null): ToolCallRecord => ({
    name,
    arguments: trim(rawArgs),
    result: trim(result),
    duration_ms: Math.round(performance.now() - started),
    error,
  });
  if (!tool) return { finish, refused: finish("", `unknown tool: ${name}`) };
  try {
    const parsed = rawArgs.trim() ? JSON.parse(rawArgs) : {};
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
    return { finish, args: parsed as Record<string, unknown> };
  } catch {
    return { finish, refused: finish("", "the arguments are not a JSON object") };
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Runs a tool that writes, at once (it is synchronous); a failure is the tool's result, not the answer's. */
function runWritingTool(tool: FunctionTool, toolCall: ToolCall): ToolCallRecord {
  const { finish, args, refused } = prepareCall(tool, toolCall);
  if (!args) return refused;
  try {
    const result = tool.run(args);
    if (typeof result !== "string") throw new Error(`${tool.name} must finish at once`);
    return finish(result, null);
  } catch (error) {
    return finish("", messageOf(error));
  }
}

/** Runs one function call within the step timeout; a failure is the tool's result, not the answer's. */
async function runTool(
  tool: FunctionTool | undefined,
  toolCall: ToolCall,
  stepMs: number,
  signal: AbortSignal,
): Promise<ToolCallRecord> {
  const { finish, args, refused } = prepareCall(tool, toolCall);
  if (!tool || !args) return refused as ToolCallRecord;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ProviderError(`the tool took longer than ${stepMs / 1000} s`)), stepMs);
    });
    signal.throwIfAborted();
    const result = await Promise.race([Promise.resolve().then(() => tool.run(args)), timeout]);
    return finish(result, null);
  } catch (error) {
    signal.throwIfAborted();
    return finish("", messageOf(error));
  } finally {
    clearTimeout(timer);
  }
}
