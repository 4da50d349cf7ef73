/**
 * One connection of `tandem tunnel`: the WebSocket to the server, and each request it sends relayed to the local
 * service with `fetch`, both bodies streamed within the protocol's credit (src/features/tunnels/tunnels.protocol.ts).
 */
import {
  type Control,
  Credit,
  creditOf,
  creditPayload,
  decodeFrame,
  encodeFrame,
  FRAME,
  type FrameType,
  headPayload,
  Inbound,
  ProtocolError,
  parseControl,
  parseRequestHead,
  type RequestHead,
  reasonOf,
  Stopped,
  textPayload,
} from "../src/features/tunnels/tunnels.protocol";

/** How a connection ended. */
export interface RelayEnd {
  /** Whether the server accepted it (the socket opened). */
  opened: boolean;
  code: number;
  reason: string;
}

export interface RelayOptions {
  /** `ws(s)://…/api/v1/tunnels/{id}/connect`. */
  url: string;
  /** A bearer token: the one given, or the resume token of an earlier connection. */
  credential: string;
  /** The local service's origin. */
  target: URL;
  onHello(hello: Extract<Control, { type: "hello" }>): void;
  onResume(token: string): void;
}

/** How often the connector looks for silence, and how long a silent server counts as gone. */
const CHECK_MS = 25_000;
const SILENT_MS = 75_000;

/** Close codes the connector uses itself. */
export const CONNECTOR_CLOSE = { stopped: 1000, silent: 4408, badFrame: 4400 } as const;

/** Request headers the local service's fetch sets itself. */
const OWN_HEADERS = new Set(["host", "connection", "keep-alive", "transfer-encoding", "upgrade", "te", "trailer"]);

/** One request under way to the local service. */
interface Local {
  credit: Credit;
  inbound: Inbound | null;
  abort: AbortController;
}

/** A running connection; `ended` settles when its socket closes. */
export class Relay {
  readonly ended: Promise<RelayEnd>;
  private readonly ws: WebSocket;
  private readonly exchanges = new Map<number, Local>();
  private opened = false;
  private lastHeard = Date.now();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly options: RelayOptions) {
    this.ws = new WebSocket(options.url, {
      headers: { authorization: `Bearer ${options.credential}` },
    } as unknown as string[]);
    this.ws.binaryType = "arraybuffer";
    const done = Promise.withResolvers<RelayEnd>();
    this.ended = done.promise;
    this.ws.onopen = () => {
      this.opened = true;
    };
    this.ws.onmessage = (event) => this.receive(event.data);
    this.ws.onclose = (event) => {
      clearInterval(this.timer);
      for (const local of this.exchanges.values()) this.drop(local);
      this.exchanges.clear();
      done.resolve({ opened: this.opened, code: event.code, reason: event.reason });
    };
    this.timer = setInterval(() => {
      if (Date.now() - this.lastHeard > SILENT_MS) this.close(CONNECTOR_CLOSE.silent, "server stopped answering");
    }, CHECK_MS);
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  private receive(data: unknown): void {
    this.lastHeard = Date.now();
    try {
      if (typeof data === "string") {
        this.control(data);
        return;
      }
      const frame = decodeFrame(new Uint8Array(data as ArrayBuffer));
      const local = this.exchanges.get(frame.stream);
      switch (frame.type) {
        case FRAME.head:
          if (local) throw new ProtocolError(`a second head on stream ${frame.stream}`);
          this.start(frame.stream, parseRequestHead(frame.payload));
          return;
        case FRAME.data:
          if (local && !local.inbound) throw new ProtocolError(`data on stream ${frame.stream}, which has no body`);
          local?.inbound?.push(frame.payload);
          return;
        case FRAME.end:
          local?.inbound?.end();
          return;
        case FRAME.reset:
          if (local) this.drop(local, reasonOf(frame.payload));
          this.exchanges.delete(frame.stream);
          return;
        case FRAME.credit:
          local?.credit.add(creditOf(frame.payload));
          return;
      }
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      this.close(CONNECTOR_CLOSE.badFrame, error.message);
    }
  }

  private control(text: string): void {
    const message = parseControl(text);
    if (message?.type === "ping") this.ws.send(JSON.stringify({ type: "pong" }));
    else if (message?.type === "hello") this.options.onHello(message);
    else if (message?.type === "resume") this.options.onResume(message.token);
  }

  /** A request from the server: fetched from the local service, its answer streamed back. */
  private start(stream: number, head: RequestHead): void {
    const local: Local = {
      credit: new Credit(),
      inbound: head.body
        ? new Inbound(
            (bytes) => this.send(FRAME.credit, stream, creditPayload(bytes)),
            () => undefined,
          )
        : null,
      abort: new AbortController(),
    };
    this.exchanges.set(stream, local);
    void this.forward(stream, head, local);
  }

  private async forward(stream: number, head: RequestHead, local: Local): Promise<void> {
    const { target } = this.options;
    try {
      // Joined, not resolved: a path like `//elsewhere/` stays a path of the local service.
      const url = new URL(`${target.origin}${head.path}`);
      if (url.origin !== target.origin) throw new Error("a path outside the local service");
      const answer = await fetch(url, {
        method: head.method,
        headers: head.headers.filter(([name]) => !OWN_HEADERS.has(name.toLowerCase())),
        body: local.inbound?.body ?? null,
        duplex: "half",
        redirect: "manual",
        // The bytes as the service sent them, with their Content-Encoding: the visitor's browser decodes them.
        decompress: false,
        signal: local.abort.signal,
      } as RequestInit);
      this.send(FRAME.head, stream, headPayload({ status: answer.status, headers: answerHeaders(answer, target) }));
      if (answer.body) await local.credit.pump(answer.body, (chunk) => this.send(FRAME.data, stream, chunk));
      this.send(FRAME.end, stream);
    } catch (error) {
      if (error instanceof Stopped || local.abort.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      this.send(FRAME.reset, stream, textPayload(`${target.origin}: ${message}`));
    } finally {
      if (this.exchanges.get(stream) === local) this.exchanges.delete(stream);
    }
  }

  /** Stops a request: its fetch is aborted, its bodies dropped. */
  private drop(local: Local, reason = "connection closed"): void {
    local.abort.abort(reason);
    local.credit.stop();
    local.inbound?.fail(new Error(reason));
  }

  private send(type: FrameType, stream: number, payload?: Uint8Array): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(encodeFrame(type, stream, payload));
  }
}

/**
 * The answer's headers, each `Set-Cookie` on its own; a `Location` on the local service's own origin made a path,
 * which the server puts below the tunnel.
 */
function answerHeaders(answer: Response, target: URL): [string, string][] {
  const headers: [string, string][] = [];
  for (const [name, value] of answer.headers) {
    if (name === "set-cookie") continue;
    const own = name === "location" && URL.canParse(value) ? new URL(value) : null;
    if (own?.origin === target.origin) {
      headers.push([name, `${own.pathname}${own.search}${own.hash}`]);
      continue;
    }
    headers.push([name, value]);
  }
  for (const cookie of answer.headers.getSetCookie()) headers.push(["set-cookie", cookie]);
  return headers;
}
