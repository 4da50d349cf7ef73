/** Small building blocks shared by every screen. */
import { type ReactNode, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { createPortal } from "react-dom";

/** An API error (or any failure) in words, announced to screen readers. */
export function ErrorText({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

/** True when the keyboard is in something that takes text, where a key like "/" or "?" is typed, not a shortcut. */
export function typingIn(target: EventTarget | null): boolean {
  const el = target instanceof HTMLElement ? target : null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

/**
 * Props that make a button unusable while `busy` (or otherwise not ready) without taking it off the keyboard:
 * `aria-disabled` rather than `disabled`, since a focused button that becomes disabled drops the focus to
 * `<body>`. Its clicks, and a form's Enter (a click on its submit button), do nothing meanwhile.
 */
export function busyProps(busy: boolean): {
  "aria-disabled": true | undefined;
  onClickCapture: (event: React.MouseEvent) => void;
} {
  return {
    "aria-disabled": busy || undefined,
    onClickCapture: (event) => {
      if (!busy) return;
      event.preventDefault();
      event.stopPropagation();
    },
  };
}

/** The end of a dialog's form: Cancel, and the submit button (unusable while its action runs). */
export function FormButtons({ onCancel, label, disabled }: { onCancel: () => void; label: string; disabled: boolean }) {
  return (
    <div className="row end">
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="primary" {...busyProps(disabled)}>
        {label}
      </button>
    </div>
  );
}

// The screen's name in the window title. Screens register titles at a level (the app names the route, a
// screen that knows more, such as the open chat room, names it at a higher level); the highest level wins.
const titles: { level: number; title: string }[] = [];

let announcer: HTMLElement | null = null;
let announceTimer: ReturnType<typeof setTimeout> | undefined;
/** The address whose screen was last said (the page's own, from its first title on). */
let announcedPath: string | undefined;

/**
 * Says the new screen's name once it settles, after a move to another address (screen readers hear nothing
 * when a single-page app changes its screen): a polite live region outside React's tree holds it. The screen
 * the page loads with is not announced (its title is read with the page), nor a title that changes in place.
 */
function announceScreen(title: string): void {
  announcedPath ??= location.pathname;
  // The region is in the page, empty, before anything is said in it: screen readers skip a live region
  // that arrives with its text.
  if (!announcer) {
    announcer = document.createElement("p");
    announcer.className = "sr-only";
    announcer.setAttribute("aria-live", "polite");
    announcer.setAttribute("aria-atomic", "true");
    announcer.dataset.routeAnnouncer = "";
    document.body.append(announcer);
  }
  const region = announcer;
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    if (location.pathname === announcedPath) return;
    announcedPath = location.pathname;
    region.textContent = title;
  }, 300);
}

/** What needs the person (unread inbox items), in front of the title: "(3) Board · Launch · Tandem". */
let titleCount = 0;

/** Sets the count in front of the window's title (0 shows none). */
export function setTitleCount(count: number): void {
  if (count === titleCount) return;
  titleCount = count;
  showTitle(false);
}

function showTitle(announce = true): void {
  let best: { level: number; title: string } | undefined;
  for (const entry of titles) if (!best || entry.level >= best.level) best = entry;
  const count = titleCount > 0 ? `(${titleCount}) ` : "";
  document.title = best ? `${count}${best.title} · Tandem` : `${count}Tandem`;
  if (!announce) return;
  if (best) announceScreen(best.title);
}

/**
 * Names the screen in `document.title` ("Board · Launch" shows as "Board · Launch · Tandem") while mounted;
 * null names nothing. A title of a higher `level` wins over the route's own (level 0).
 */
export function usePageTitle(title: string | null, level = 0): void {
  useEffect(() => {
    if (title === null) return;
    const entry = { level, title };
    titles.push(entry);
    showTitle();
    return () => {
      titles.splice(titles.indexOf(entry), 1);
      showTitle();
    };
  }, [title, level]);
}

export function Spinner({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="muted" aria-busy="true">
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** Relative luminance (WCAG 2) of `hsl(hue 55% lightness%)`. */
function luminance(hue: number, lightness: number): number {
  const l = lightness / 100;
  const a = 0.55 * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(8) + 0.0722 * channel(4);
}

const avatarBackgrounds = new Map<number, string>();

/**
 * The background of an avatar of `hue`: as light as 45% lightness, darker where white initials would not reach
 * 4.5:1 (greens, yellows and cyans are bright at the same lightness). 4.6 leaves a margin for rounding.
 */
export function avatarBackground(hue: number): string {
  let color = avatarBackgrounds.get(hue);
  if (!color) {
    let lightness = 45;
    while (lightness > 20 && 1.05 / (luminance(hue, lightness) + 0.05) < 4.6) lightness -= 1;
    color = `hsl(${hue} 55% ${lightness}%)`;
    avatarBackgrounds.set(hue, color);
  }
  return color;
}

/** Initials in a colored circle (the color follows the id, so a person keeps theirs). */
export function Avatar({ id, name, staff = false }: { id: string; name: string; staff?: boolean }) {
  const initials =
    name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((part) => part[0]?.toUpperCase())
      .join("") || "?";
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) | 0;
  const hue = Math.abs(hash) % 360;
  return (
    <span
      className={`avatar${staff ? " staff" : ""}`}
      style={{ "--hue": hue, background: avatarBackground(hue), color: "#fff" } as React.CSSProperties}
      title={name}
      aria-hidden="true"
    >
      {initials}
    </span>
  );
}

/**
 * A modal dialog on the native `<dialog>` (focus trap, Escape and the top layer come with it). Closing by
 * Escape or the backdrop calls `onClose`.
 */
export function Modal({
  title,
  onClose,
  children,
  wide = false,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    // Focus goes back where it was when the dialog opened, if that is still on the page (callers whose opener
    // went away with the action move it themselves).
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) {
      dialog.showModal();
      // Start in the first field rather than on the close button.
      dialog.querySelector<HTMLElement>(".modal-body input, .modal-body textarea, .modal-body select")?.focus();
    }
    return () => {
      // Unless the caller has put it somewhere else already.
      const active = document.activeElement;
      const lost = !active || active === document.body || dialog?.contains(active) === true;
      if (opener && opener !== document.body && opener.isConnected && lost) opener.focus();
    };
  }, []);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop; Escape closes through onCancel.
    <dialog
      ref={ref}
      className={`modal${wide ? " wide" : ""}`}
      aria-label={title}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === ref.current) onClose();
      }}
    >
      <header className="modal-head">
        <h2>{title}</h2>
        <button type="button" className="icon" onClick={onClose} aria-label="Close">
          ✕
        </button>
      </header>
      <div className="modal-body">{children}</div>
    </dialog>
  );
}

/** "just now", "5 min ago", "yesterday", or a date. */
export function timeAgo(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return new Date(then).toLocaleDateString();
}

/** Local date and time, for titles and tooltips. */
export function dateTime(iso: string): string {
  return new Date(iso).toLocaleString();
}

// Toasts: short notices from anywhere (a failed background action, a copied link).
interface Toast {
  id: number;
  text: string;
  kind: "info" | "error";
}
let toasts: Toast[] = [];
let nextToast = 1;
const toastListeners = new Set<() => void>();
/** At most this many show at once (the oldest give way), so a burst of notices never fills the screen. */
const MAX_TOASTS = 3;

function setToasts(next: Toast[]): void {
  toasts = next;
  for (const listener of toastListeners) listener();
}

/** Shows a notice for a few seconds (longer for an error); the user can dismiss it sooner. */
export function toast(text: string, kind: Toast["kind"] = "info"): void {
  setToasts([...toasts, { id: nextToast++, text, kind }].slice(-MAX_TOASTS));
}

function dismissToast(id: number): void {
  setToasts(toasts.filter((t) => t.id !== id));
}

/**
 * The open modal dialog on top, if any: toasts show inside it, since everything outside a modal dialog is
 * inert and under its backdrop (a notice from the task panel would be dimmed, and its Dismiss unusable).
 */
function topModal(): HTMLDialogElement | null {
  const open = [...document.querySelectorAll<HTMLDialogElement>("dialog[open]")].filter((d) => d.matches(":modal"));
  return open[open.length - 1] ?? null;
}

/** Follows modal dialogs opening and closing while toasts show (not otherwise: nothing to place). */
function useToastHost(active: boolean): HTMLElement | null {
  const [host, setHost] = useState<HTMLElement | null>(null);
  useEffect(() => {
    if (!active) return;
    const place = () => setHost(topModal());
    place();
    const observer = new MutationObserver(place);
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["open"] });
    return () => {
      observer.disconnect();
      setHost(null);
    };
  }, [active]);
  return active ? host : null;
}

/** One notice: it goes after its time unless the pointer or the keyboard is on it, or at once by its button. */
function ToastItem({ item }: { item: Toast }) {
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (held) return;
    const timer = setTimeout(() => dismissToast(item.id), item.kind === "error" ? 8000 : 4000);
    return () => clearTimeout(timer);
  }, [held, item]);
  const dismiss = (event: React.MouseEvent<HTMLButtonElement>) => {
    // Dismissed from the keyboard, the focus goes to the next notice, else back to the page.
    const next = event.currentTarget.closest(".toast")?.nextElementSibling?.querySelector("button");
    if (event.detail === 0) (next ?? document.getElementById("main"))?.focus();
    dismissToast(item.id);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the pointer or the keyboard on it holds its timer; nothing to do.
    <div
      className={`toast ${item.kind}`}
      onPointerEnter={() => setHeld(true)}
      onPointerLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <p className="toast-text" role={item.kind === "error" ? "alert" : "status"}>
        {item.text}
      </p>
      <button type="button" className="icon toast-close" aria-label="Dismiss" title="Dismiss" onClick={dismiss}>
        ✕
      </button>
    </div>
  );
}

/**
 * Where toasts appear (once, for the whole app): over the sidebar's foot on a desktop, at the top under the bar
 * on a phone (see style.css), clear of the composer, the board's buttons and the editor.
 */
export function Toasts() {
  const list = useSyncExternalStore(
    (listener) => {
      toastListeners.add(listener);
      return () => toastListeners.delete(listener);
    },
    () => toasts,
  );
  const host = useToastHost(list.length > 0);
  const stack = (
    <section className="toasts" aria-label="Notices" aria-live="polite">
      {list.map((t) => (
        <ToastItem key={t.id} item={t} />
      ))}
    </section>
  );
  return host ? createPortal(stack, host) : stack;
}

/** Copies `text` and says so. */
export async function copy(text: string, what = "Copied"): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast(`${what} to the clipboard`);
  } catch {
    toast("Copying was refused by the browser: select the text and copy it", "error");
  }
}
