/**
 * Desktop notifications: asked for by a button (browsers grant them only from a click), then shown for inbox
 * items that arrive while the tab is hidden, as the `desktop` setting says (every item, mentions only, none).
 * Clicking one brings the tab forward on what it is about, read. Every hidden tab of the browser hears the
 * item; the notification's tag (the item's id) makes them one. While this browser is subscribed to Web Push
 * (`push.ts`), the tab shows it through the service worker, so the push of the same item replaces it rather
 * than adding a second one, and the worker's click handler opens it.
 */
import { useSyncExternalStore } from "react";
import type { InboxItem, NotificationSettings } from "../../../../src/api-types";
import type { Workspace } from "../../lib/workspace";
import type { NoticeData } from "../../sw/notices";
import { directPlaceOf, headline } from "./items";
import { usesPush, workerRegistration } from "./push";

/** `granted`, `denied`, `default` (not asked yet) or `unsupported` (no Notification in this browser). */
export type DesktopPermission = NotificationPermission | "unsupported";

const listeners = new Set<() => void>();

function permission(): DesktopPermission {
  return typeof Notification === "function" ? Notification.permission : "unsupported";
}

/** The browser's answer so far, re-rendering once it changes here. */
export function useDesktopPermission(): DesktopPermission {
  return useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, permission);
}

/** Asks the browser for desktop notifications; call it from a click. */
export async function askDesktopPermission(): Promise<DesktopPermission> {
  if (typeof Notification !== "function") return "unsupported";
  const answer = await Notification.requestPermission();
  for (const listener of listeners) listener();
  return answer;
}

/** Whether the `desktop` setting wants this item on the desktop. */
export function wantsDesktop(item: InboxItem, settings: NotificationSettings | null): boolean {
  const desktop = settings?.desktop ?? "all";
  return desktop === "all" || (desktop === "mentions" && item.kind === "mention");
}

/**
 * Shows `item` on the desktop when the tab is hidden, the browser allows it and the settings want it; `open`
 * runs when it is clicked.
 */
export function showItemOnDesktop(
  item: InboxItem,
  settings: NotificationSettings | null,
  ws: Workspace,
  open: () => void,
): void {
  if (document.visibilityState !== "hidden" || permission() !== "granted" || !wantsDesktop(item, settings)) return;
  const space = ws.spaces.find((s) => s.id === item.space_id)?.name;
  const title = space ? `${headline(item, ws.nameOf)} · ${space}` : headline(item, ws.nameOf);
  const worker = workerRegistration();
  if (worker && usesPush()) {
    const data: NoticeData = { path: directPlaceOf(item) ?? "/inbox", organization_id: ws.org.id, item };
    void worker.showNotification(title, { body: item.summary, tag: item.id, data }).catch(() => {});
    return;
  }
  try {
    const shown = new Notification(title, {
      body: item.summary,
      tag: item.id,
    });
    shown.onclick = () => {
      shown.close();
      focus();
      open();
    };
  } catch {
    // Some browsers (Android Chrome) show notifications only from a service worker: nothing is shown.
  }
}
