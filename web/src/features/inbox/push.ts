/**
 * Web Push in this browser: notifications of inbox items when no Tandem tab is open. Turned on with desktop
 * notifications (the browser's permission, asked from a click), it registers the service worker (`/sw.js`),
 * subscribes with the server's VAPID key and gives the subscription to the server for the organization open
 * here; the profile turns it off. Signing out here removes it from the server first (while the session still
 * holds), and a session that ended any other way unsubscribes the browser, so the server's next push to it
 * fails and takes it away.
 *
 * It needs a secure context (https, or localhost), service workers and the Push API; elsewhere the state says
 * why, and the in-tab notifications (`desktop.ts`) keep working.
 */
import { useSyncExternalStore } from "react";
import type { PushKey, PushSubscriptionBody } from "../../../../src/api-types";
import { ApiError, api, isSignedIn, messageOf, onSessionChange, onSigningOut, publicApi } from "../../lib/api";
import { navigate } from "../../lib/router";
import { ITEM_PARAM, type OpenMessage } from "../../sw/notices";

/** Where this browser stands. */
export type PushState =
  | { kind: "checking" }
  /** Not possible here: the reason, in words. */
  | { kind: "unavailable"; reason: string }
  /** Possible, not subscribed. */
  | { kind: "off" }
  | { kind: "on" }
  /** The last try to subscribe failed: why. */
  | { kind: "failed"; reason: string };

let state: PushState = { kind: "checking" };
let orgId: string | null = null;
let registration: ServiceWorkerRegistration | null = null;
const listeners = new Set<() => void>();

function setState(next: PushState): void {
  state = next;
  for (const listener of listeners) listener();
}

/** This browser's Web Push state, re-rendering when it changes. */
export function usePushState(): PushState {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}

/** Why Web Push cannot work in this browser, or null when it can. */
export function pushUnavailable(): string | null {
  if (!isSecureContext) return "it needs Tandem to be opened over https";
  if (!("serviceWorker" in navigator) || typeof PushManager !== "function" || typeof Notification !== "function")
    return "this browser does not support Web Push";
  return null;
}

/** Whether this browser is subscribed (as far as this page knows). */
export function usesPush(): boolean {
  return state.kind === "on";
}

/** The service worker's registration, once registered here (null before, and where there is none). */
export function workerRegistration(): ServiceWorkerRegistration | null {
  return registration;
}

/** Registers the service worker (again: the browser checks it for a new version) and waits until it is active. */
async function ensureWorker(): Promise<ServiceWorkerRegistration> {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  registration = await navigator.serviceWorker.ready;
  return registration;
}

/** The server's VAPID key as bytes; null when the server sends no pushes. */
async function serverKey(): Promise<Uint8Array<ArrayBuffer> | null> {
  try {
    const { public_key } = await publicApi<PushKey>("GET", "/public/push-key");
    const binary = atob(public_key.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** Whether a subscription was made with `key` (a server that changed its key needs a new one). */
function sameKey(subscription: PushSubscription, key: Uint8Array): boolean {
  const used = subscription.options.applicationServerKey;
  if (!used) return false;
  const bytes = new Uint8Array(used);
  return bytes.length === key.length && bytes.every((b, i) => b === key[i]);
}

const subscriptions = (org: string) => `/me/push-subscriptions?org_id=${encodeURIComponent(org)}`;

/** Gives the subscription to the server for the organization open here. */
async function post(org: string, subscription: PushSubscription): Promise<void> {
  await api("POST", subscriptions(org), subscription.toJSON() as PushSubscriptionBody);
}

/**
 * Where this browser stands, when the workspace opens: where notifications are allowed, the worker is registered
 * (the page's own notifications go through it too) and a subscription already made is given to the server
 * again, for this organization (the server keeps the newest and renews it).
 */
export async function checkPush(org: string): Promise<void> {
  orgId = org;
  const unavailable = pushUnavailable();
  if (unavailable) return setState({ kind: "unavailable", reason: unavailable });
  if (Notification.permission !== "granted") return setState({ kind: "off" });
  try {
    const worker = await ensureWorker();
    const subscription = await worker.pushManager.getSubscription();
    if (!subscription) return setState({ kind: "off" });
    await post(org, subscription);
    if (org === orgId) setState({ kind: "on" });
  } catch {
    // Kept as it was; the profile shows what turning it on again says.
    if (org === orgId && state.kind === "checking") setState({ kind: "off" });
  }
}

/**
 * Turns Web Push on for this browser (desktop notifications allowed): the worker, a subscription with the
 * server's key, given to the server. The outcome is the state (`on`, or why not).
 */
export async function enablePush(): Promise<void> {
  const org = orgId;
  if (!org) return;
  const unavailable = pushUnavailable();
  if (unavailable) return setState({ kind: "unavailable", reason: unavailable });
  if (Notification.permission !== "granted") return setState({ kind: "off" });
  try {
    const key = await serverKey();
    if (!key) return setState({ kind: "unavailable", reason: "this server does not send push notifications" });
    const worker = await ensureWorker();
    let subscription = await worker.pushManager.getSubscription();
    if (subscription && !sameKey(subscription, key)) {
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription ??= await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    await post(org, subscription);
    setState({ kind: "on" });
  } catch (error) {
    setState({ kind: "failed", reason: messageOf(error) });
  }
}

/** Unsubscribes this browser: from the server (best effort), then at the push service. */
async function unsubscribe(org: string | null): Promise<void> {
  const subscription = await registration?.pushManager.getSubscription().catch(() => null);
  if (!subscription) return;
  if (org && isSignedIn()) {
    await api("DELETE", subscriptions(org), { endpoint: subscription.endpoint }).catch(() => {});
  }
  await subscription.unsubscribe().catch(() => false);
}

/** Turns Web Push off for this browser (desktop notifications in open tabs stay as the browser allows). */
export async function disablePush(): Promise<void> {
  await unsubscribe(orgId);
  setState(pushUnavailable() ? { kind: "unavailable", reason: pushUnavailable() as string } : { kind: "off" });
}

// Signing out here: the server forgets this browser while the session can still say so.
onSigningOut(() => unsubscribe(orgId));
// The session ended otherwise (elsewhere, expired): the browser unsubscribes; the server drops it at its next push.
onSessionChange(() => {
  if (!isSignedIn() && registration) void unsubscribe(null).then(() => setState({ kind: "off" }));
});

/**
 * Calls `listener` when a click on a notification (the service worker's `OpenMessage`) asks this page to open an
 * item; returns the unsubscribe.
 */
export function onNotificationClick(listener: (message: OpenMessage) => void): () => void {
  if (!("serviceWorker" in navigator)) return () => {};
  const handle = (event: MessageEvent) => {
    const message = event.data as OpenMessage | null;
    if (message?.type === "tandem.open" && typeof message.path === "string") listener(message);
  };
  navigator.serviceWorker.addEventListener("message", handle);
  return () => navigator.serviceWorker.removeEventListener("message", handle);
}

/**
 * The item a window was opened for by a click on a notification (`inbox_item` in the address, see the
 * service worker), taken out of the address; null when there is none.
 */
export function takeOpenedItem(): string | null {
  const url = new URL(location.href);
  const id = url.searchParams.get(ITEM_PARAM);
  if (id === null) return null;
  url.searchParams.delete(ITEM_PARAM);
  navigate(url.pathname + url.search + url.hash, { replace: true });
  return id;
}
