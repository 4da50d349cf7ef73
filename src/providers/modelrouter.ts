/**
 * The model gateway client (`modelrouter` staff): an OpenAI-compatible chat completion with Tandem's function
 * tools and the gateway's own server tools (web search, date and time), looping over tool calls for at most
 * `MODELROUTER_CHAT_MAX_TOOL_ITERATIONS` rounds, then asking once more without tools for the answer.
 */
import type { ModelrouterSettings } from "../config";
import { type CallOptions, callJson, ProviderError } from "./http";

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

/** What an answer cost and did. */
export interface Completion {
  text: string;
  promptTokens: number;
  completionTokens: number;
  toolCalls: ToolCallRecord[];
}

const TRIM = 2000;
const trim = (text: string) => (text.length > TRIM ? `${text.slice(0, TRIM)}…` : text);

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

/** Asks the gateway for an answer, running the function tools it calls. */
export async function complete(
  settings: ModelrouterSettings,
  key: string,
  model: string,
  conversation: readonly ChatMessage[],
  functions: readonly FunctionTool[],
  call: Omit<CallOptions, "attemptTimeoutMs" | "provider">,
): Promise<Completion> {
  const url = settings.apiBaseUrl.replace(/\/+$/, "") + settings.chatCompletionsPath;
  const stepMs = settings.toolStepTimeoutSec * 1000;
  const messages = [...conversation];
  const tools = settings.toolsEnabled ? toolsOf(settings, functions) : [];
  const records: ToolCallRecord[] = [];
  let promptTokens = 0;
  let completionTokens = 0;

  for (let round = 0; ; round++) {
    const offerTools = tools.length > 0 && round < settings.maxToolIterations;
    const body: Record<string, unknown> = { model, messages };
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
    promptTokens += answer.usage?.prompt_tokens ?? 0;
    completionTokens += answer.usage?.completion_tokens ?? 0;
    const message = answer.choices?.[0]?.message;
    if (!message) throw new ProviderError("the model gateway answered without a message");
    const calls = offerTools ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) {
      const text = textOf(message.content).trim();
      if (!text) throw new ProviderError("the model gave an empty answer");
      return { text, promptTokens, completionTokens, toolCalls: records };
    }
    messages.push({ role: "assistant", content: textOf(message.content) || null, tool_calls: calls });
    for (const toolCall of calls) {
      const record = await runTool(functions, toolCall, stepMs, call.signal);
      records.push(record);
      messages.push({ role: "tool", tool_call_id: toolCall.id, content: record.error ?? record.result });
    }
  }
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

/** Runs one function call within the step timeout; a failure is the tool's result, not the answer's. */
async function runTool(
  functions: readonly FunctionTool[],
  toolCall: ToolCall,
  stepMs: number,
  signal: AbortSignal,
): Promise<ToolCallRecord> {
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
  const tool = functions.find((f) => f.name === name);
  if (!tool) return finish("", `unknown tool: ${name}`);
  let args: Record<string, unknown>;
  try {
    const parsed = rawArgs.trim() ? JSON.parse(rawArgs) : {};
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
    args = parsed;
  } catch {
    return finish("", "the arguments are not a JSON object");
  }
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
    return finish("", error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
  }
}
