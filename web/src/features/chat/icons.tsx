/**
 * The chat's control icons as inline SVG: they follow the text color (and so dark mode) and never depend on
 * an emoji font being installed. Decorative: the buttons carrying them have their own labels.
 */
import type { ReactNode } from "react";

function Svg({ children }: { children: ReactNode }) {
  return (
    <svg
      className="chat-icon"
      width="16"
      height="16"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

/** A smiling face with a plus: add a reaction. */
export function ReactIcon() {
  return (
    <Svg>
      <circle cx="11" cy="13" r="8" />
      <path d="M8 15.5c1.5 1.5 4.5 1.5 6 0" />
      <path d="M8.5 10.5h.01M13.5 10.5h.01" />
      <path d="M20 2v5M17.5 4.5h5" />
    </Svg>
  );
}

/** A smiling face: insert an emoji. */
export function SmileIcon() {
  return (
    <Svg>
      <circle cx="12" cy="12" r="9" />
      <path d="M8.5 14.5c1.8 1.8 5.2 1.8 7 0" />
      <path d="M9 9.5h.01M15 9.5h.01" />
    </Svg>
  );
}

/** A pencil: edit. */
export function EditIcon() {
  return (
    <Svg>
      <path d="M4 20h4L19 9l-4-4L4 16v4z" />
      <path d="M13.5 6.5l4 4" />
    </Svg>
  );
}

/** A bin: delete. */
export function TrashIcon() {
  return (
    <Svg>
      <path d="M4 7h16M10 11v6M14 11v6" />
      <path d="M6 7l1 13h10l1-13M9 7V4h6v3" />
    </Svg>
  );
}

/** Two chain links: a link. */
export function LinkIcon() {
  return (
    <Svg>
      <path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1" />
      <path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
    </Svg>
  );
}

/** A plus: create. */
export function PlusIcon() {
  return (
    <Svg>
      <path d="M12 5v14M5 12h14" />
    </Svg>
  );
}

/** A paper clip: attach files. */
export function PaperclipIcon() {
  return (
    <Svg>
      <path d="M20 11.5l-8.2 8.2a5 5 0 0 1-7.1-7.1l8.5-8.5a3.3 3.3 0 0 1 4.7 4.7l-8.5 8.5a1.7 1.7 0 0 1-2.4-2.4L15 7" />
    </Svg>
  );
}

/** A speech bubble with lines: reply in a thread. */
export function ThreadIcon() {
  return (
    <Svg>
      <path d="M4 5h16v11H9l-5 4V5z" />
      <path d="M8 9h8M8 12h5" />
    </Svg>
  );
}

/** Three dots: more actions. */
export function MoreIcon() {
  return (
    <Svg>
      <path d="M5 12h.01M12 12h.01M19 12h.01" strokeWidth="3" />
    </Svg>
  );
}

/** A page with a folded corner: a file. */
export function FileIcon() {
  return (
    <Svg>
      <path d="M6 3h8l4 4v14H6V3z" />
      <path d="M14 3v4h4" />
    </Svg>
  );
}
