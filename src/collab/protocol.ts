/**
 * The y-websocket wire protocol, as the stock `y-websocket` client speaks it: a message is a varuint type
 * (0 sync, 1 awareness, 3 query awareness) and its body; a sync body is a varuint step (0 state vector,
 * 1 state, 2 update) and a length-prefixed byte array.
 *
 * Parsing is strict and bounds-checked: anything else is a `BadMessage`, and the socket that sent it is
 * closed. Byte arrays are copied out of the frame, so nothing downstream can read past it.
 */
import * as encoding from "lib0/encoding";
import type { Awareness } from "y-protocols/awareness";
import { encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";

export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;
export const MESSAGE_QUERY_AWARENESS = 3;
const SYNC_STEP_1 = 0;
const SYNC_STEP_2 = 1;
const SYNC_UPDATE = 2;

/** A frame that is not a y-websocket message. */
export class BadMessage extends Error {}

/** The largest awareness state (a client's cursor, name and colour) the server keeps and relays. */
export const MAX_AWARENESS_STATE_BYTES = 8 * 1024;

/** What a client can send. A sync step 2 and an update both carry an update to apply. */
export type Incoming =
  | { kind: "sync-step-1"; stateVector: Uint8Array }
  | { kind: "update"; update: Uint8Array }
  | { kind: "awareness"; update: Uint8Array }
  | { kind: "query-awareness" };

/** Reads one message; throws `BadMessage` for anything malformed or left over. */
export function parseMessage(frame: Uint8Array): Incoming {
  const reader = new Reader(frame);
  const type = reader.varUint();
  let message: Incoming;
  if (type === MESSAGE_SYNC) {
    const step = reader.varUint();
    if (step === SYNC_STEP_1) message = { kind: "sync-step-1", stateVector: reader.bytes() };
    else if (step === SYNC_STEP_2 || step === SYNC_UPDATE) message = { kind: "update", update: reader.bytes() };
    else throw new BadMessage("unknown sync step");
  } else if (type === MESSAGE_AWARENESS) {
    message = { kind: "awareness", update: reader.bytes() };
  } else if (type === MESSAGE_QUERY_AWARENESS) {
    message = { kind: "query-awareness" };
  } else {
    throw new BadMessage("unknown message type");
  }
  reader.end();
  return message;
}

/** The server's state vector: what a client answers with the updates the server lacks. */
export function syncStep1Message(doc: Y.Doc): Uint8Array {
  return message(MESSAGE_SYNC, SYNC_STEP_1, Y.encodeStateVector(doc));
}

/** Everything the client with state vector `stateVector` lacks. */
export function syncStep2Message(doc: Y.Doc, stateVector: Uint8Array): Uint8Array {
  return message(MESSAGE_SYNC, SYNC_STEP_2, Y.encodeStateAsUpdate(doc, stateVector));
}

export function updateMessage(update: Uint8Array): Uint8Array {
  return message(MESSAGE_SYNC, SYNC_UPDATE, update);
}

/** The awareness states of `clients` (all known clients when omitted). */
export function awarenessMessage(awareness: Awareness, clients?: number[]): Uint8Array {
  const update = encodeAwarenessUpdate(awareness, clients ?? [...awareness.getStates().keys()]);
  return message(MESSAGE_AWARENESS, null, update);
}

/** One client's entry in an awareness update: its id, its clock and its state (JSON, as length-prefixed bytes). */
export interface AwarenessEntry {
  clientId: number;
  clock: number;
  state: Uint8Array;
}

/** The entries of an awareness update; throws `BadMessage` when it is malformed. */
export function awarenessEntries(update: Uint8Array): AwarenessEntry[] {
  const reader = new Reader(update);
  const entries: AwarenessEntry[] = [];
  for (let count = reader.varUint(); count > 0; count--) {
    entries.push({ clientId: reader.varUint(), clock: reader.varUint(), state: reader.bytes() });
  }
  reader.end();
  return entries;
}

/** An awareness update of `entries`, as `awarenessEntries` read them. */
export function encodeAwarenessEntries(entries: readonly AwarenessEntry[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const entry of entries) {
    encoding.writeVarUint(encoder, entry.clientId);
    encoding.writeVarUint(encoder, entry.clock);
    encoding.writeVarUint8Array(encoder, entry.state);
  }
  return encoding.toUint8Array(encoder);
}

/**
 * An update (v1) that inserts nothing and deletes the items of `ranges` (per client id, `[clock, length]`
 * ranges): applied by a client, it deletes those items from its copy of the document.
 */
export function deletionUpdate(ranges: ReadonlyMap<number, readonly (readonly [number, number])[]>): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0); // no structs
  encoding.writeVarUint(encoder, ranges.size);
  for (const [client, list] of ranges) {
    encoding.writeVarUint(encoder, client);
    encoding.writeVarUint(encoder, list.length);
    for (const [clock, length] of list) {
      encoding.writeVarUint(encoder, clock);
      encoding.writeVarUint(encoder, length);
    }
  }
  return encoding.toUint8Array(encoder);
}

function message(type: number, step: number | null, payload: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  if (step !== null) encoding.writeVarUint(encoder, step);
  encoding.writeVarUint8Array(encoder, payload);
  return encoding.toUint8Array(encoder);
}

/** A bounds-checked reader over one frame. */
class Reader {
  private pos = 0;

  constructor(private readonly frame: Uint8Array) {}

  varUint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.frame.length) throw new BadMessage("truncated message");
      const byte = this.frame[this.pos++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new BadMessage("number out of range");
  }

  bytes(): Uint8Array {
    const length = this.varUint();
    if (length > this.frame.length - this.pos) throw new BadMessage("truncated message");
    const bytes = this.frame.slice(this.pos, this.pos + length);
    this.pos += length;
    return bytes;
  }

  end(): void {
    if (this.pos !== this.frame.length) throw new BadMessage("trailing bytes");
  }
}
