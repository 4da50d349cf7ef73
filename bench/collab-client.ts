/**
 * The client side of collaborative editing as the benchmarks speak it: y-websocket frames built from real Yjs
 * updates before the clock starts, and receivers that do not run a Y.Doc each. Many receivers in one process
 * would measure that process, so each update's inserted text carries a marker `#client.seq#`, and a receiver finds
 * the markers in the frames it gets (merged or batched updates count too).
 *
 * Tandem and the y-websocket reference server speak the y-websocket protocol as is; Hocuspocus puts the document's
 * name before every message and waits for an authentication message first (its "dialect" here).
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as Y from "yjs";

/** y-websocket message types, and the sync message's steps. */
export const SYNC = 0;
export const AWARENESS = 1;
export const STEP1 = 0;
export const STEP2 = 1;
export const UPDATE = 2;

/** What a server's frames carry before the y-websocket message, and what a client sends first. */
export interface Dialect {
  prefix: Uint8Array;
  hello: Uint8Array[];
}

/** Tandem's and the y-websocket server's: bare messages. */
export const Y_WEBSOCKET: Dialect = { prefix: new Uint8Array(0), hello: [] };

/** Hocuspocus's: every message after the document's name; an authentication message (an empty token) first. */
export function hocuspocus(documentName: string): Dialect {
  const e = encoding.createEncoder();
  encoding.writeVarString(e, documentName);
  const prefix = encoding.toUint8Array(e);
  const auth = encoding.createEncoder();
  encoding.writeUint8Array(auth, prefix);
  encoding.writeVarUint(auth, 2); // auth
  encoding.writeVarUint(auth, 0); // token
  encoding.writeVarString(auth, "");
  return { prefix, hello: [encoding.toUint8Array(auth)] };
}

function framed(dialect: Dialect, write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeUint8Array(e, dialect.prefix);
  write(e);
  return encoding.toUint8Array(e);
}

/** A sync message: step 1 (a state vector), step 2 or update (an update). */
export function syncFrame(step: number, payload: Uint8Array, dialect: Dialect = Y_WEBSOCKET): Uint8Array {
  return framed(dialect, (e) => {
    encoding.writeVarUint(e, SYNC);
    encoding.writeVarUint(e, step);
    encoding.writeVarUint8Array(e, payload);
  });
}

/** A y-websocket update frame (sync, update) around `update`. */
export const updateFrame = (update: Uint8Array, dialect: Dialect = Y_WEBSOCKET) => syncFrame(UPDATE, update, dialect);

/** An awareness message with one client's state, as y-protocols encodes it. */
export function awarenessFrame(clientId: number, clock: number, state: unknown, dialect: Dialect = Y_WEBSOCKET) {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 1);
  encoding.writeVarUint(update, clientId);
  encoding.writeVarUint(update, clock);
  encoding.writeVarString(update, JSON.stringify(state));
  return framed(dialect, (e) => {
    encoding.writeVarUint(e, AWARENESS);
    encoding.writeVarUint8Array(e, encoding.toUint8Array(update));
  });
}

/** The payload of a sync frame: its state vector or update. */
export function syncPayload(frame: Uint8Array, dialect: Dialect = Y_WEBSOCKET): Uint8Array {
  const d = decoding.createDecoder(frame.subarray(dialect.prefix.length));
  decoding.readVarUint(d);
  decoding.readVarUint(d);
  return decoding.readVarUint8Array(d);
}

/** Whether a frame may hold inserted text: sync step 2 or update (greetings and awareness carry no markers). */
export const carriesText = (frame: Uint8Array, at: number) => frame[at] === SYNC && frame[at + 1] !== STEP1;

const HASH = 0x23;
const DOT = 0x2e;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

/**
 * Calls `found(client, seq)` for every marker `#client.seq#` in the frame (read from its bytes: at a hundred
 * thousand frames a second, decoding each to a string first costs the load more than the server's work).
 */
export function forEachMarker(frame: Uint8Array, found: (client: number, seq: number) => void): void {
  let i = frame.indexOf(HASH);
  while (i >= 0 && i < frame.length) {
    let j = i + 1;
    let client = 0;
    let seq = 0;
    while (j < frame.length && isDigit(frame[j]!)) client = client * 10 + frame[j++]! - 0x30;
    if (j === i + 1 || frame[j] !== DOT) {
      i = frame.indexOf(HASH, j);
      continue;
    }
    const digits = ++j;
    while (j < frame.length && isDigit(frame[j]!)) seq = seq * 10 + frame[j++]! - 0x30;
    if (j === digits || frame[j] !== HASH) {
      i = frame.indexOf(HASH, j);
      continue;
    }
    found(client, seq);
    i = frame.indexOf(HASH, j + 1);
  }
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

/** Opens a binary WebSocket; resolves once open. */
export function connect(url: string, onMessage: (data: Uint8Array) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    ws.onmessage = (event) => onMessage(new Uint8Array(event.data as ArrayBuffer));
    ws.onopen = () => resolve(ws);
    ws.onerror = () => reject(new Error(`could not connect to ${url}`));
  });
}

/**
 * Opens a socket on a document and syncs the way a y-websocket client does: sends the state vector of `base` (an
 * encoded document: what the client holds when it joins), answers each state vector the server sends with what the
 * server lacks of it, and resolves once the server's answer (sync step 2) arrived. Every frame goes to `onFrame`
 * too, with its arrival time.
 */
export function join(
  url: string,
  dialect: Dialect,
  base: Uint8Array,
  onFrame: (frame: Uint8Array, now: number) => void,
  timeoutMs = 30_000,
): Promise<WebSocket> {
  const at = dialect.prefix.length;
  return new Promise((resolve, reject) => {
    let synced = false;
    const timer = setTimeout(() => reject(new Error(`${url}: not synced within ${timeoutMs} ms`)), timeoutMs);
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    ws.onmessage = (event) => {
      const now = performance.now();
      const frame = new Uint8Array(event.data as ArrayBuffer);
      onFrame(frame, now);
      if (frame[at] !== SYNC) return;
      if (frame[at + 1] === STEP1) {
        const missing = Y.diffUpdate(base, syncPayload(frame, dialect));
        ws.send(syncFrame(STEP2, missing, dialect) as Uint8Array<ArrayBuffer>);
      } else if (frame[at + 1] === STEP2 && !synced) {
        synced = true;
        clearTimeout(timer);
        resolve(ws);
      }
    };
    ws.onopen = () => {
      for (const hello of dialect.hello) ws.send(hello as Uint8Array<ArrayBuffer>);
      ws.send(syncFrame(STEP1, Y.encodeStateVectorFromUpdate(base), dialect) as Uint8Array<ArrayBuffer>);
    };
    ws.onerror = () => {
      clearTimeout(timer);
      reject(new Error(`could not connect to ${url}`));
    };
    ws.onclose = (event) => {
      if (synced) return;
      clearTimeout(timer);
      reject(new Error(`${url} closed before it synced: ${event.code} ${event.reason}`));
    };
  });
}
