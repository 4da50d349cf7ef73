/**
 * The organization's live-events socket: one per tab, reconnecting with backoff and a fresh token. Each time it
 * opens it emits `resync`, because events sent before that are gone: views refetch what they show. That holds
 * for the first connection too, since a view may have loaded before the socket was there to hear a change.
 * The payload says which: `{ reconnected: false }` on the first connection, `true` after a reconnect.
 * When the server closes it for good (4400-4499: removed from the organization), it emits `access.lost`
 * with `{ code, reason }` and stays closed. A close with 4401 means the session ended (signed out elsewhere,
 * password reset): a call to the API finds out, which signs this tab out unless another tab holds a newer
 * session, with which the socket reconnects. So does an upgrade refused before the socket opened.
 */
import { useEffect, useRef, useSyncExternalStore } from "react";
import { ApiError, accessToken } from "./api";
import { getMe } from "./workspace-api";

/** One live event as the server sends it, or the client's own `resync`. */
export interface LiveEvent {
  type: string;
  organization_id: string;
  space_id: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: each event type has its own payload; handlers narrow it.
  payload: any;
}

type Listener = (event: LiveEvent) => void;

const listeners = new Set<Listener>();
const statusListeners = new Set<() => void>();
let status: "connecting" | "live" | "offline" = "connecting";
let socket: WebSocket | null = null;
let orgId: string | null = null;
let attempt = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
let everConnected = false;
/** How many events have been emitted (resync included): a load compares it before and after. */
let emitted = 0;

function setStatus(next: typeof status): void {
  status = next;
  for (const listener of statusListeners) listener();
}

function emit(event: LiveEvent): void {
  emitted++;
  for (const listener of listeners) listener(event);
}

async function connect(): Promise<void> {
  const org = orgId;
  if (!org) return;
  const token = await accessToken().catch(() => null);
  if (!token || org !== orgId) return;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(
    `${scheme}//${location.host}/api/v1/organizations/${org}/ws?token=${encodeURIComponent(token)}`,
  );
  socket = ws;
  let opened = false;
  ws.onopen = () => {
    opened = true;
    attempt = 0;
    setStatus("live");
    emit({ type: "resync", organization_id: org, space_id: null, payload: { reconnected: everConnected } });
    everConnected = true;
  };
  ws.onmessage = (message) => {
    if (typeof message.data !== "string") return;
    try {
      emit(JSON.parse(message.data) as LiveEvent);
    } catch {
      // Not an event: ignored.
    }
  };
  ws.onclose = (event) => {
    if (socket !== ws) return;
    socket = null;
    setStatus("offline");
    if (event.code >= 4400 && event.code < 4500 && event.code !== 4401) {
      // Final (4404: no longer a member): reconnecting would be refused the same way. Screens are told why.
      emit({
        type: "access.lost",
        organization_id: org,
        space_id: null,
        payload: { code: event.code, reason: event.reason },
      });
      return;
    }
    const delay = Math.min(30_000, 500 * 2 ** attempt++) * (0.75 + Math.random() / 2);
    const retry = () => {
      if (org === orgId) timer = setTimeout(() => void connect(), delay);
    };
    if (event.code !== 4401 && opened) {
      retry();
      return;
    }
    // Closed because the session ended (4401), or refused before it opened (a browser does not say why): a
    // call to the API finds out, signing this tab out when the session is over (a 401 after a refresh).
    void getMe().then(retry, (error) => {
      if (!(error instanceof ApiError && error.status === 401)) retry();
    });
  };
}

/** Connects to the organization's events (or disconnects with null). */
export function connectEvents(organizationId: string | null): void {
  if (organizationId === orgId) return;
  orgId = organizationId;
  clearTimeout(timer);
  const old = socket;
  socket = null;
  old?.close();
  everConnected = false;
  attempt = 0;
  if (organizationId) {
    setStatus("connecting");
    void connect();
  }
}

/** How many more times a load overtaken by an event is run before its answer is taken anyway. */
const RELOADS = 2;

/**
 * Runs a load (GETs) so that its answer is not older than the events that arrived while it was under way. The
 * server may have answered before the change an event brought, while the screen has already applied the event:
 * taking that answer would undo it. So when any event arrived meanwhile, the load runs again (at most twice).
 */
export async function loadFresh<T>(load: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const before = emitted;
    const value = await load();
    if (emitted === before || attempt === RELOADS) return value;
  }
}

/** Subscribes to every event; returns the unsubscribe function. */
export function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Calls `handler` for each live event (and `resync`) while the component is mounted. The latest handler is
 * used, so it may close over state without resubscribing.
 */
export function useLiveEvents(handler: Listener): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => subscribe((event) => ref.current(event)), []);
}

/** `connecting`, `live` or `offline`. */
export function useEventsStatus(): typeof status {
  return useSyncExternalStore(
    (listener) => {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    () => status,
  );
}
