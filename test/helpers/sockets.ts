/**
 * WebSocket clients for tests: the stock `y-websocket` provider on a file's document, a raw socket for
 * protocol-level checks, and a live-events listener.
 */
import * as encoding from "lib0/encoding";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";

/** Polls `check` until it holds; fails with `what` after `timeoutMs`. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

/** The collab base URL of a space, as a browser would build it. */
export function collabBase(url: string, orgId: string, spaceId: string): string {
  return `${url.replace(/^http/, "ws")}/api/v1/organizations/${orgId}/spaces/${spaceId}/files/collab/ws`;
}

/** A stock y-websocket client on one file. */
export interface Editor {
  doc: Y.Doc;
  provider: WebsocketProvider;
  text(): string;
  insert(index: number, content: string): void;
  delete(index: number, length: number): void;
  synced(): Promise<void>;
  /** Resolves with the close event once the server closes the socket for good (a 44xx code). */
  closed: Promise<{ code: number; reason: string }>;
  destroy(): void;
}

/** Connects the stock client the way contract §5 says: `new WebsocketProvider(base, fileId, doc, {params})`. */
export function openEditor(base: string, fileId: string, token: string, options: { connect?: boolean } = {}): Editor {
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(base, fileId, doc, {
    params: { token },
    // Editors in one test process would otherwise sync through a BroadcastChannel, bypassing the server.
    disableBc: true,
    connect: options.connect ?? true,
    maxBackoffTime: 200,
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    provider.on("closed", (event) => resolve(event));
  });
  const text = doc.getText("content");
  return {
    doc,
    provider,
    text: () => text.toString(),
    insert: (index, content) => text.insert(index, content),
    delete: (index, length) => text.delete(index, length),
    synced: () =>
      new Promise<void>((resolve) => {
        if (provider.synced) return resolve();
        provider.once("sync", (state: boolean) => state && resolve());
      }),
    closed,
    destroy: () => {
      provider.destroy();
      doc.destroy();
    },
  };
}

/** A y-websocket frame: its message type, its sync step (null for the other types) and its payload. */
export function collabFrame(type: number, step: number | null, payload: Uint8Array): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, type);
  if (step !== null) encoding.writeVarUint(e, step);
  encoding.writeVarUint8Array(e, payload);
  return encoding.toUint8Array(e);
}

/** An awareness frame that speaks for each client id given, at the clock given, with the state given. */
export function awarenessFrame(entries: readonly (readonly [clientId: number, clock: number, state: unknown])[]) {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, entries.length);
  for (const [id, clock, state] of entries) {
    encoding.writeVarUint(e, id);
    encoding.writeVarUint(e, clock);
    encoding.writeVarString(e, JSON.stringify(state));
  }
  return collabFrame(1, null, encoding.toUint8Array(e));
}

/** A raw WebSocket: what it received, and how it ended. */
export interface RawSocket {
  ws: WebSocket;
  send(data: Uint8Array | string): void;
  messages: Uint8Array[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
}

export function openRaw(url: string): RawSocket {
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  const messages: Uint8Array[] = [];
  ws.onmessage = (event) => {
    if (event.data instanceof ArrayBuffer) messages.push(new Uint8Array(event.data));
  };
  const opened = new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("socket failed to open"));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }));
  });
  return { ws, send: (data) => ws.send(data as string | BufferSource), messages, opened, closed };
}

/** The answer to a WebSocket upgrade that the server refused: its status and JSON body. */
export async function refusedUpgrade(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url.replace(/^ws/, "http"), {
    headers: {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      "sec-websocket-version": "13",
    },
  });
  return { status: res.status, body: await res.json() };
}

/** A live-events envelope. */
export interface LiveEvent {
  type: string;
  organization_id: string;
  /** Null for an organization-wide event or a person's own one that is about no space. */
  space_id: string | null;
  payload: any;
}

/** A live-events socket of an organization. */
export interface Listener {
  events: LiveEvent[];
  closed: Promise<{ code: number; reason: string }>;
  /** The first event (from the start) that `match` accepts. */
  next(match: (event: LiveEvent) => boolean, timeoutMs?: number): Promise<LiveEvent>;
  close(): void;
}

export async function listen(url: string, orgId: string, token: string): Promise<Listener> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/api/v1/organizations/${orgId}/ws?token=${token}`);
  const events: LiveEvent[] = [];
  ws.onmessage = (event) => events.push(JSON.parse(String(event.data)));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }));
  });
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("live-events socket failed to open"));
  });
  return {
    events,
    closed,
    async next(match, timeoutMs = 5000) {
      await eventually(() => events.some(match), "a live event", timeoutMs);
      return events.find(match) as LiveEvent;
    },
    close: () => ws.close(),
  };
}
