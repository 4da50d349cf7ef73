/**
 * Tandem's service worker, served at `/sw.js` (scope: the whole app). It handles Web Push and clicks on
 * notifications (`notices.ts`), and nothing else: no `fetch` handler, so every request still goes to the network
 * as it would without it, and nothing is cached.
 */
import { onClick, onPush, type WindowLike, type WorkerEnv } from "./notices";

/** The parts of a `ServiceWorkerGlobalScope` used here (the DOM library the project compiles with has none). */
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  readonly data: { json(): unknown } | null;
}
interface NotificationEvent extends ExtendableEvent {
  readonly notification: Notification;
}
interface WorkerScope {
  readonly location: Location;
  readonly registration: ServiceWorkerRegistration;
  readonly clients: {
    matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<readonly WindowLike[]>;
    openWindow(url: string): Promise<unknown>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "push", listener: (event: PushEvent) => void): void;
  addEventListener(type: "notificationclick", listener: (event: NotificationEvent) => void): void;
}

const scope = self as unknown as WorkerScope;

const env: WorkerEnv = {
  origin: scope.location.origin,
  windows: () => scope.clients.matchAll({ type: "window", includeUncontrolled: true }),
  show: (title, options) => scope.registration.showNotification(title, options),
  open: (url) => scope.clients.openWindow(url),
};

// A new version takes over at once: it holds no state, and pages do not depend on which version runs.
scope.addEventListener("install", (event) => event.waitUntil(scope.skipWaiting()));
scope.addEventListener("activate", (event) => event.waitUntil(scope.clients.claim()));

scope.addEventListener("push", (event) => {
  let data: unknown = null;
  try {
    data = event.data?.json() ?? null;
  } catch {
    // Not JSON: not one of the server's pushes.
  }
  event.waitUntil(onPush(data, env));
});

scope.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(onClick(event.notification.data, env));
});
