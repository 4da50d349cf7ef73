/** A side panel on the native modal `<dialog>`: focus trap, Escape and the top layer come with it. */
import { type ReactNode, useEffect, useRef } from "react";

/**
 * Opens at once; Escape and a click on the backdrop call `onClose`, unless `onBackdrop` takes the click (it
 * gets the click's point: the board opens the card under it). When the panel goes away, the focus goes to what
 * `returnFocus` names (the card of the task shown, wherever it is now), else back to what had it before.
 */
export function Drawer({
  label,
  onClose,
  onBackdrop,
  returnFocus,
  children,
}: {
  label: string;
  onClose: () => void;
  onBackdrop?: (x: number, y: number) => boolean;
  returnFocus?: () => HTMLElement | null | undefined;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const restore = useRef(returnFocus);
  restore.current = returnFocus;
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
      const target = restore.current?.() ?? before;
      if (target?.isConnected) target.focus();
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
        if (event.target !== ref.current) return;
        if (!onBackdrop?.(event.clientX, event.clientY)) onClose();
      }}
    >
      {children}
    </dialog>
  );
}
