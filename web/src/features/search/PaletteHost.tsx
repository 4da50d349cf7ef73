/**
 * What the shell holds of the command palette: its keys (Ctrl+K or Cmd+K anywhere, "/" outside text fields),
 * the Search buttons that open it, and the palette itself, loaded when first opened so the first screen's
 * download does not carry it.
 */
import { lazy, Suspense, useEffect, useSyncExternalStore } from "react";
import { typingIn } from "../../lib/ui";
import { SearchIcon } from "./icons";

const CommandPalette = lazy(() => import("./CommandPalette"));

let open = false;
const listeners = new Set<() => void>();

function setOpen(next: boolean): void {
  if (open === next) return;
  open = next;
  for (const listener of listeners) listener();
}

/** Opens the command palette. */
export function openPalette(): void {
  setOpen(true);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Whether a screen on display claims "/" for itself (the board's filter box says so with `aria-keyshortcuts`):
 * there "/" stays the screen's own, and Ctrl+K still opens the palette.
 */
function slashClaimed(): boolean {
  return [...document.querySelectorAll<HTMLElement>('[aria-keyshortcuts="/"]')].some((el) => el.offsetParent !== null);
}

/** The palette's keys, and the palette while open. */
export function PaletteHost() {
  const isOpen = useSyncExternalStore(subscribe, () => open);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey) {
        // Before the browser (its address bar) and an editor under the keyboard take it.
        event.preventDefault();
        event.stopPropagation();
        setOpen(!open);
        return;
      }
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      if (open || typingIn(event.target) || document.querySelector("dialog[open]") || slashClaimed()) return;
      event.preventDefault();
      setOpen(true);
    };
    addEventListener("keydown", onKey, { capture: true });
    return () => removeEventListener("keydown", onKey, { capture: true });
  }, []);
  if (!isOpen) return null;
  return (
    <Suspense fallback={null}>
      <CommandPalette onClose={() => setOpen(false)} />
    </Suspense>
  );
}

/** A button that opens the palette, with its shortcut. */
export function SearchButton({ className }: { className?: string }) {
  const mac = /Mac|iPhone|iPad/.test(navigator.platform);
  return (
    <button
      type="button"
      className={className}
      aria-keyshortcuts="Control+K Meta+K"
      title={`Search and jump to (${mac ? "⌘K" : "Ctrl+K"})`}
      onClick={openPalette}
    >
      <SearchIcon />
      <span className="search-label">Search</span>
      <span className="shortcut" aria-hidden="true">
        {mac ? "⌘K" : "Ctrl K"}
      </span>
    </button>
  );
}
