/**
 * The tunnel protocol: how the server and a connector (`tandem tunnel`) carry HTTP exchanges over one WebSocket
 * (docs/api.md, Reverse tunnels). Both ends import this module, so they cannot disagree on it.
 *
 * Binary frames are `[type: 1 byte][stream: uint32 big-endian][payload]`. A stream is one request and its
 * answer; the server numbers them from 1. The server sends `head` (the request: JSON), `data`... and `end`;
 * the connector answers with `head` (status and headers: JSON), `data`... and `end`. Either side may `reset` a
 * stream (payload: a reason in UTF-8): the visitor went away, the answer came too late, the local service could
 * not be reached. Text frames are control messages (`hello`, `ping`, `pong`, `resume`), JSON.
 *
 * Flow control is per stream and per direction, by credit, as in HTTP/2: a sender may have at most
 * `WINDOW_BYTES` of a body sent and not yet credited back, and the receiver credits bytes back (`credit`, a
 * uint32) only as whoever reads that body takes them. A large download or upload crosses in pieces at the pace
 * of its slowest reader, and neither end holds more than a window per stream.
 */

/** The binary frame types; the same numbers serve both directions. */
export const FRAME = { head: 1, data: 2, end: 3, reset: 4, credit: 5 } as const;
export type FrameType = (typeof FRAME)[keyof typeof FRAME];

/** Body bytes a sender may have in flight per stream, before the receiver credits them back. */
export const WINDOW_BYTES = 256 * 1024;
/** The largest `data` payload. */
export const MAX_CHUNK_BYTES = 64 * 1024;
/** Exchanges one connection carries at once; a browser opens a handful per page. */
export const MAX_STREAMS = 32;
/** The largest `head` payload: the request line and headers, which HTTP servers cap at a few KiB anyway. */
export const MAX_HEAD_BYTES = 64 * 1024;

/** A frame the protocol does not allow: the side that sees it closes the connection (4400). */
export class ProtocolError extends Error {}

/** A decoded binary frame. */
export interface Frame {
  type: FrameType;
  stream: number;
  payload: Uint8Array;
}

/** A request, as the server hands it to the connector. */
export interface RequestHead {
  method: string;
  /** The path below `/tunnels/{automationId}`, from its `/`, with the query. */
  path: string;
  headers: [string, string][];
  /** Whether `data` frames follow (a GET's `end` comes at once). */
  body: boolean;
}

/** An answer, as the connector hands it back. */
export interface ResponseHead {
  status: number;
  headers: [string, string][];
}

/** Control messages, in text frames. */
export type Control =
  /**
   * Server → connector, once the connection is accepted: its run, where visitors reach the tunnel, and a
   * credential to reconnect with.
   */
  | { type: "hello"; run_id: string; automation_id: string; url: string; resume: string | null }
  /** Server → connector, now and then: a fresh credential to reconnect with. */
  | { type: "resume"; token: string }
  /** Either way: are you there? The other side answers `pong`. */
  | { type: "ping" }
  | { type: "pong" };

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const KNOWN = new Set<number>(Object.values(FRAME));

export function encodeFrame(type: FrameType, stream: number, payload: Uint8Array = EMPTY): Uint8Array<ArrayBuffer> {
  const frame = new Uint8Array(5 + payload.byteLength);
  frame[0] = type;
  new DataView(frame.buffer).setUint32(1, stream);
  frame.set(payload, 5);
  return frame;
}

export function decodeFrame(data: Uint8Array): Frame {
  if (data.byteLength < 5) throw new ProtocolError("frame shorter than its header");
  const type = data[0] as number;
  if (!KNOWN.has(type)) throw new ProtocolError(`unknown frame type ${type}`);
  const stream = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(1);
  if (stream === 0) throw new ProtocolError("stream 0 does not exist");
  return { type: type as FrameType, stream, payload: data.subarray(5) };
}

export const textPayload = (text: string): Uint8Array => encoder.encode(text);

/** A `reset`'s reason (invalid UTF-8 is not worth failing a reset over). */
export const reasonOf = (payload: Uint8Array): string => new TextDecoder().decode(payload).slice(0, 500);

export function creditPayload(bytes: number): Uint8Array {
  const payload = new Uint8Array(4);
  new DataView(payload.buffer).setUint32(0, bytes);
  return payload;
}

export function creditOf(payload: Uint8Array): number {
  if (payload.byteLength !== 4) throw new ProtocolError("a credit is 4 bytes");
  return new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0);
}

export function headPayload(head: RequestHead | ResponseHead): Uint8Array {
  return encoder.encode(JSON.stringify(head));
}

function jsonOf(payload: Uint8Array): Record<string, unknown> {
  if (payload.byteLength > MAX_HEAD_BYTES) throw new ProtocolError("head too large");
  try {
    const value = JSON.parse(decoder.decode(payload)) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below, as any head that is not an object.
  }
  throw new ProtocolError("a head is a JSON object");
}

function headersOf(value: unknown): [string, string][] {
  const ok =
    Array.isArray(value) &&
    value.every((h) => Array.isArray(h) && h.length === 2 && typeof h[0] === "string" && typeof h[1] === "string");
  if (!ok) throw new ProtocolError("headers are [name, value] pairs of strings");
  return value as [string, string][];
}

export function parseRequestHead(payload: Uint8Array): RequestHead {
  const head = jsonOf(payload);
  if (typeof head.method !== "string" || typeof head.path !== "string" || !head.path.startsWith("/")) {
    throw new ProtocolError("a request head has a method and a path from /");
  }
  return { method: head.method, path: head.path, headers: headersOf(head.headers), body: head.body === true };
}

export function parseResponseHead(payload: Uint8Array): ResponseHead {
  const head = jsonOf(payload);
  const status = head.status;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 200 || status > 599) {
    throw new ProtocolError("a response status is 200 to 599");
  }
  return { status, headers: headersOf(head.headers) };
}

/** The control message of a text frame, or null for one this side does not know (newer peers may send more). */
export function parseControl(text: string): Control | null {
  try {
    const value = JSON.parse(text) as { type?: unknown };
    return typeof value?.type === "string" ? (value as Control) : null;
  } catch {
    throw new ProtocolError("a text frame is a JSON control message");
  }
}

/** The sending side of one body: what the receiver allows, and the pump that keeps within it. */
export class Credit {
  private available = WINDOW_BYTES;
  private wake: (() => void) | null = null;
  private stopped = false;

  /** The receiver took `bytes` more: they may be sent again. */
  add(bytes: number): void {
    if (bytes <= 0 || this.available + bytes > WINDOW_BYTES) throw new ProtocolError("credit beyond the window");
    this.available += bytes;
    this.wake?.();
  }

  /** Nothing more is to be sent (the stream was reset or closed): the pump cancels its source. */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * Reads `body` and hands it to `emit` in pieces of at most `MAX_CHUNK_BYTES`, never beyond the credit. Resolves
   * once all of it went; rejects with `Stopped` when stopped first, or with what reading the body threw; either
   * way the body is cancelled, so its source stops too.
   */
  async pump(body: ReadableStream<Uint8Array>, emit: (chunk: Uint8Array) => void): Promise<void> {
    const reader = body.getReader();
    let done = false;
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          done = true;
          return;
        }
        const chunk = next.value;
        let offset = 0;
        while (offset < chunk.byteLength) {
          while (this.available === 0 && !this.stopped) await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = null;
          if (this.stopped) throw new Stopped();
          const n = Math.min(chunk.byteLength - offset, this.available, MAX_CHUNK_BYTES);
          emit(chunk.subarray(offset, offset + n));
          this.available -= n;
          offset += n;
        }
        if (this.stopped) throw new Stopped();
      }
    } finally {
      if (!done) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
}

/** The pump was stopped: not a failure of the body. */
export class Stopped extends Error {
  constructor() {
    super("stopped");
  }
}

/**
 * The receiving side of one body: a stream its reader pulls from, fed by `data` frames; each piece is credited
 * back when the reader takes it, so what waits here never exceeds the window the sender keeps to.
 */
export class Inbound {
  readonly body: ReadableStream<Uint8Array>;
  private readonly queue: Uint8Array[] = [];
  private queued = 0;
  private state: "open" | "ended" | "cancelled" | Error = "open";
  private wake: (() => void) | null = null;

  constructor(credit: (bytes: number) => void, onCancel: () => void) {
    this.body = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          while (this.queue.length === 0 && this.state === "open") {
            await new Promise<void>((resolve) => (this.wake = resolve));
          }
          this.wake = null;
          const chunk = this.queue.shift();
          if (chunk) {
            this.queued -= chunk.byteLength;
            controller.enqueue(chunk);
            if (this.state === "open") credit(chunk.byteLength);
          } else if (this.state === "ended") controller.close();
          else if (this.state instanceof Error) controller.error(this.state);
        },
        cancel: () => {
          if (this.state !== "open") return;
          this.state = "cancelled";
          onCancel();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Whether its `end` (or a failure) came. */
  get finished(): boolean {
    return this.state !== "open";
  }

  push(chunk: Uint8Array): void {
    if (this.state === "cancelled") return;
    if (this.state !== "open") throw new ProtocolError("data after the end of a body");
    if (this.queued + chunk.byteLength > WINDOW_BYTES) throw new ProtocolError("data beyond the credit given");
    // A copy: the frame's buffer is the runtime's, and may be reused once the handler returns.
    this.queue.push(chunk.slice());
    this.queued += chunk.byteLength;
    this.wake?.();
  }

  end(): void {
    if (this.state === "open") this.state = "ended";
    this.wake?.();
  }

  fail(error: Error): void {
    if (this.state === "open") this.state = error;
    this.wake?.();
  }
}
