/** A side panel on the native modal `<dialog>`: focus trap, Escape and the top layer come with it. */
import { type ReactNode, useEffect, useRef } from "react";

/**
 * Opens at once; Escape and a click on the backdrop call `onClose`. The focus goes back to what had it
 * before (the card that opened the panel) when the panel goes away.
 */
export function Drawer({ label, onClose, children }: { label: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    const before = document.activeElement as HTMLElement | null;
    if (dialog && !dialog.open) {
      dialog.showModal();
      // Start on the panel itself, not on its first button: Tab goes on from there, a screen reader reads the
      // panel's name, and a phone does not pop up its keyboard.
      dialog.querySelector<HTMLElement>("[tabindex='-1']")?.focus();
    }
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop; Escape closes through onCancel.
    <dialog
      ref={ref}
      className="drawer"
      aria-label={label}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === ref.current) onClose();
      }}
    >
      {children}
    </dialog>
  );
}
