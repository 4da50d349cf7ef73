/**
 * Loopback fakes of the providers: a real HTTP server on a random port that records every request and
 * answers with what the test says. Nothing of Tandem is stubbed: the server under test calls these over HTTP.
 */

/** One request as the fake received it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}

export type FakeHandler = (req: SeenRequest, nth: number) => Response | Promise<Response>;

export interface FakeProvider {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  requests: SeenRequest[];
  /** Requests to one path. */
  to(path: string): SeenRequest[];
  handle(handler: FakeHandler): void;
  stop(): void;
}

export function startFakeProvider(handler: FakeHandler = () => Response.json({})): FakeProvider {
  let current = handler;
  const requests: SeenRequest[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // kept as text
      }
      const seen: SeenRequest = {
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        body,
      };
      requests.push(seen);
      return current(seen, requests.length);
    },
  });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    requests,
    to: (path) => requests.filter((r) => r.path === path),
    handle(next) {
      current = next;
    },
    stop() {
      server.stop(true);
    },
  };
}

/** A chat completion answer of an OpenAI-compatible gateway. */
export function completion(content: string | null, toolCalls?: { name: string; arguments: unknown }[]): Response {
  return Response.json({
    id: "gen-1",
    choices: [
      {
        index: 0,
        finish_reason: toolCalls ? "tool_calls" : "stop",
        message: {
          role: "assistant",
          content,
          ...(toolCalls
            ? {
                tool_calls: toolCalls.map((call, i) => ({
                  id: `call_${i}_${call.name}`,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        },
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  });
}
