/**
 * The server's end of one connector's WebSocket: the exchanges it carries (a stream each, `tunnels.protocol.ts`),
 * and how it ended, which its run records.
 */
import type { ServerWebSocket } from "bun";
import type { Principal } from "../../core/actor";
import { AppError } from "../../core/errors";
import type { UserSocket } from "../../http/sockets";
import {
  Credit,
  creditOf,
  creditPayload,
  decodeFrame,
  encodeFrame,
  FRAME,
  type FrameType,
  headPayload,
  Inbound,
  MAX_STREAMS,
  ProtocolError,
  parseControl,
  parseResponseHead,
  type RequestHead,
  type ResponseHead,
  reasonOf,
  Stopped,
  textPayload,
} from "./tunnels.protocol";

/** The tunnel a connection serves. */
export interface TunnelPlace {
  id: string;
  orgId: string;
  spaceId: string;
}

/** What the connector answered: a status, headers, and the body as it streams in (null: none). */
export interface Answer extends ResponseHead {
  body: ReadableStream<Uint8Array> | null;
}

/** What one exchange waits for. */
export interface ExchangeOptions {
  /** Aborts when the visitor goes away. */
  signal: AbortSignal;
  /** No answer's head within this long: 504. */
  timeoutMs: number;
  /** A request body beyond this is cut off: 413. */
  maxBodyBytes: number;
}

export const notConnected = () => new AppError("bad_gateway", "tunnel not connected");

/** One request and its answer. */
class Exchange {
  readonly credit = new Credit();
  readonly answered = Promise.withResolvers<ResponseHead>();
  inbound: Inbound | null = null;
  detach: () => void = () => undefined;

  constructor(readonly id: number) {
    // Rejected when it fails before anyone waits (a reset during the upload): not an unhandled rejection.
    this.answered.promise.catch(() => undefined);
  }
}

/** A connector's connection. */
export class Connection implements UserSocket {
  private readonly exchanges = new Map<number, Exchange>();
  private next = 1;
  /** Requests it carried, for its run's `output`. */
  requests = 0;
  /** When it last heard from the connector (any frame). */
  lastHeard = Date.now();
  /** Why it was closed, once the server closed it: the run's error, or null for a normal end. */
  private closedWith: { error: string | null } | null = null;

  constructor(
    readonly ws: ServerWebSocket<unknown>,
    readonly principal: Principal,
    readonly tunnel: TunnelPlace,
    readonly runId: string,
  ) {}

  get userId(): string {
    return this.principal.userId;
  }

  get sessionId(): string | undefined {
    return this.principal.sessionId;
  }

  /** Whether the server closed it (its socket may not have finished closing): it carries no new exchange. */
  get closing(): boolean {
    return this.closedWith !== null;
  }

  /**
   * Closes the socket; its run ends with `error` (by default the reason: access gone, a session ended, a broken
   * frame), or normally for `null` (paused, deleted, replaced, the server stopping).
   */
  close(code: number, reason: string, error: string | null = reason): void {
    this.closedWith ??= { error };
    this.ws.close(code, reason);
  }

  /** The run's end, once the socket closed with `code`: what the server said, else how the connector left. */
  endError(code: number): string | null {
    if (this.closedWith) return this.closedWith.error;
    return code === 1000 || code === 1001 ? null : `the connection was lost (${code})`;
  }

  sendControl(message: object): void {
    this.ws.sendText(JSON.stringify(message));
  }

  /** Carries one request to the connector; resolves with its answer once the head is in, the body streaming. */
  async exchange(
    head: RequestHead,
    body: ReadableStream<Uint8Array> | null,
    options: ExchangeOptions,
  ): Promise<Answer> {
    if (this.exchanges.size >= MAX_STREAMS) {
      throw new AppError("unavailable", `tunnel busy: at most ${MAX_STREAMS} requests at once`);
    }
    const exchange = new Exchange(this.next++);
    this.exchanges.set(exchange.id, exchange);
    this.requests++;
    const onAbort = () => this.reset(exchange, "the visitor went away");
    options.signal.addEventListener("abort", onAbort, { once: true });
    exchange.detach = () => options.signal.removeEventListener("abort", onAbort);
    this.send(FRAME.head, exchange.id, headPayload({ ...head, body: body !== null }));
    if (body === null) this.send(FRAME.end, exchange.id);
    else void this.upload(exchange, body, options.maxBodyBytes);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const seconds = Math.round(options.timeoutMs / 1000);
        const error = new AppError("gateway_timeout", `tunnel did not answer within ${seconds} s`);
        this.reset(exchange, "no answer in time", error);
        reject(error);
      }, options.timeoutMs);
    });
    try {
      const answer = await Promise.race([exchange.answered.promise, late]);
      const bodyless = head.method === "HEAD" || answer.status === 204 || answer.status === 304;
      return { ...answer, body: bodyless ? null : (exchange.inbound?.body ?? null) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The visitor's request body to the connector, within the credit it gives; too large is cut off with 413. */
  private async upload(exchange: Exchange, body: ReadableStream<Uint8Array>, maxBytes: number): Promise<void> {
    let sent = 0;
    try {
      await exchange.credit.pump(body, (chunk) => {
        sent += chunk.byteLength;
        if (sent > maxBytes) throw new AppError("too_large", "request body too large");
        this.send(FRAME.data, exchange.id, chunk);
      });
      if (this.exchanges.has(exchange.id)) this.send(FRAME.end, exchange.id);
    } catch (error) {
      if (error instanceof Stopped) return;
      if (error instanceof AppError) this.reset(exchange, error.message, error);
      else this.reset(exchange, "the visitor's request body broke off");
    }
  }

  /** A frame from the connector; throws `ProtocolError` for one the protocol does not allow. */
  receive(data: unknown): void {
    this.lastHeard = Date.now();
    if (typeof data === "string" || (typeof data === "object" && data !== null && !(data instanceof Uint8Array))) {
      // Elysia hands a JSON text frame over parsed.
      const control = typeof data === "string" ? parseControl(data) : (data as { type?: unknown });
      if (control?.type === "ping") this.sendControl({ type: "pong" });
      return;
    }
    if (!(data instanceof Uint8Array)) throw new ProtocolError("frames are binary or JSON text");
    const frame = decodeFrame(data);
    const exchange = this.exchanges.get(frame.stream);
    if (!exchange) {
      if (frame.stream >= this.next) throw new ProtocolError(`stream ${frame.stream} was never opened`);
      return; // a frame of an exchange that ended meanwhile (reset, timed out)
    }
    switch (frame.type) {
      case FRAME.head: {
        if (exchange.inbound) throw new ProtocolError(`a second head on stream ${exchange.id}`);
        const answer = parseResponseHead(frame.payload);
        exchange.inbound = new Inbound(
          (bytes) => this.send(FRAME.credit, exchange.id, creditPayload(bytes)),
          () => this.reset(exchange, "the visitor went away"),
        );
        exchange.answered.resolve(answer);
        return;
      }
      case FRAME.data:
        if (!exchange.inbound) throw new ProtocolError(`data before the head on stream ${exchange.id}`);
        exchange.inbound.push(frame.payload);
        return;
      case FRAME.end:
        if (!exchange.inbound) throw new ProtocolError(`end before the head on stream ${exchange.id}`);
        this.finish(exchange, null);
        return;
      case FRAME.reset:
        this.finish(exchange, new AppError("bad_gateway", `tunnel service failed: ${reasonOf(frame.payload)}`));
        return;
      case FRAME.credit:
        exchange.credit.add(creditOf(frame.payload));
        return;
    }
  }

  /** The socket closed: every exchange under way fails, as the connector is gone. */
  closed(): void {
    for (const exchange of [...this.exchanges.values()]) this.finish(exchange, notConnected());
  }

  /** Ends an exchange on this side and tells the connector to drop it. */
  private reset(exchange: Exchange, reason: string, error: AppError = notConnected()): void {
    if (!this.exchanges.has(exchange.id)) return;
    this.finish(exchange, error);
    this.send(FRAME.reset, exchange.id, textPayload(reason));
  }

  /** The exchange is over: its answer ends (or fails), its upload stops. */
  private finish(exchange: Exchange, error: AppError | null): void {
    if (!this.exchanges.delete(exchange.id)) return;
    exchange.detach();
    exchange.credit.stop();
    if (error === null) {
      exchange.inbound?.end();
      return;
    }
    exchange.answered.reject(error);
    exchange.inbound?.fail(error);
  }

  private send(type: FrameType, stream: number, payload?: Uint8Array): void {
    // The credit bounds what is queued here: a socket that is gone drops the frame, and its close follows.
    this.ws.sendBinary(encodeFrame(type, stream, payload));
  }
}
