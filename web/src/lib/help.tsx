/**
 * The keyboard shortcuts, in one popover instead of hint lines on the screens: the "?" button in the shell's
 * header opens it, and so does the "?" key wherever the keyboard is not in a text field. It lists the shortcuts
 * by page, the page on screen first; Escape, a click beside it or its Close button close it.
 */
import { Fragment, useEffect, useRef } from "react";
import { match, useLocation } from "./router";
import { typingIn } from "./ui";

const POPOVER_ID = "keyboard-help";
const mac = /Mac|iPhone|iPad/.test(navigator.platform);
const mod = mac ? "⌘" : "Ctrl";
const alt = mac ? "⌥" : "Alt";

/**
 * A page's shortcuts: each entry's keys are written as typed ("Shift+Enter"), " / " between alternatives and
 * " then " between keys pressed one after the other.
 */
interface Group {
  /** The space tab the group is about ("board", "chat", "files"); null for every page. */
  page: string | null;
  title: string;
  keys: [keys: string, what: string][];
}

const GROUPS: Group[] = [
  {
    page: null,
    title: "Everywhere",
    keys: [
      [`${mod}+K`, "Search and jump to a space, room, person, task or file"],
      ["/", "Search (outside text fields; on the board it filters the tasks)"],
      ["?", "These shortcuts (outside text fields)"],
      ["Esc", "Close a dialog, a menu or the task panel"],
    ],
  },
  {
    page: "chat",
    title: "Chat",
    keys: [
      ["Enter", "Send the message"],
      ["Shift+Enter", "New line (in an open ``` code block, Enter too)"],
      ["@", "Mention someone: arrows to choose, Enter or Tab to insert"],
      ["↑", "Edit your last message (in an empty composer)"],
      ["Enter / Esc", "Save / cancel an edit"],
      ["Shift+Tab", "From the composer to the newest message"],
      ["↑ / ↓", "Previous / next message"],
      ["Home / End", "First / last message loaded"],
    ],
  },
  {
    page: "board",
    title: "Board",
    keys: [
      ["/", "Filter the tasks"],
      ["← / → / ↑ / ↓", "Go from task to task"],
      [`${alt}+← / ${alt}+→`, "Move the task to the previous / next column"],
      [`${alt}+↑ / ${alt}+↓`, "Move the task up / down its column"],
      ["Home / End", "First / last task of the column"],
      [`${mod}+Enter`, "Save the description, send a comment (task panel)"],
    ],
  },
  {
    page: "files",
    title: "Files",
    keys: [
      ["↑ / ↓", "Go through the tree"],
      ["→ / ←", "Open / close a folder"],
      ["Home / End", "First / last row"],
      ["Enter", "Open the file and go into its text"],
      ["F2", "Rename"],
      ["Delete", "Delete (after asking)"],
      ["Shift+F10", "The row's menu"],
      ["Tab", "Indent (in the editor)"],
      ["Esc then Tab", "Leave the editor"],
    ],
  },
];

/** The page on screen first, then what works everywhere, then the other pages. */
function rank(group: Group, page: string | null): number {
  return group.page !== null && group.page === page ? 0 : group.page === null ? 1 : 2;
}

/** Keys as `<kbd>`s: "Alt+← / Alt+→" reads as two combinations. */
function Keys({ keys }: { keys: string }) {
  return (
    <>
      {keys.split(" / ").map((choice, i) => (
        <Fragment key={choice}>
          {i > 0 && " / "}
          {choice.split(" then ").map((step, j) => (
            <Fragment key={step}>
              {j > 0 && " then "}
              {step.split("+").map((key, k) => (
                <Fragment key={key}>
                  {k > 0 && "+"}
                  <kbd>{key}</kbd>
                </Fragment>
              ))}
            </Fragment>
          ))}
        </Fragment>
      ))}
    </>
  );
}

/** The "?" button that opens the shortcuts (one in the sidebar, one in the phone's top bar). */
export function HelpButton({ className }: { className?: string }) {
  return (
    <button
      type="button"
      className={className}
      popoverTarget={POPOVER_ID}
      aria-label="Keyboard shortcuts"
      aria-keyshortcuts="?"
      title="Keyboard shortcuts (?)"
    >
      ?
    </button>
  );
}

/** The popover (once, in the shell) and its "?" key. */
export function HelpPopover() {
  const ref = useRef<HTMLDivElement>(null);
  const { path } = useLocation();
  const space = match("/spaces/:spaceId/:tab?/:item?", path);
  const page = space ? (space.tab ?? "board") : null;
  const groups = [...GROUPS].sort((a, b) => rank(a, page) - rank(b, page));

  useEffect(() => {
    const popover = ref.current;
    if (!popover) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "?" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      if (typingIn(event.target) || document.querySelector("dialog[open]")) return;
      event.preventDefault();
      popover.togglePopover();
    };
    // The keyboard goes into the popover (so it is read as a dialog), and back to what had it when it closes.
    let opener: HTMLElement | null = null;
    const onToggle = (event: Event) => {
      if ((event as ToggleEvent).newState === "open") {
        opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        popover.focus();
        return;
      }
      const active = document.activeElement;
      if (opener?.isConnected && (!active || active === document.body || popover.contains(active))) opener.focus();
      opener = null;
    };
    addEventListener("keydown", onKey);
    popover.addEventListener("toggle", onToggle);
    return () => {
      removeEventListener("keydown", onKey);
      popover.removeEventListener("toggle", onToggle);
    };
  }, []);

  return (
    <div
      ref={ref}
      id={POPOVER_ID}
      className="help"
      popover="auto"
      role="dialog"
      aria-labelledby="help-title"
      tabIndex={-1}
    >
      <header className="help-head">
        <h2 id="help-title">Keyboard shortcuts</h2>
        <button type="button" className="icon" popoverTarget={POPOVER_ID} popoverTargetAction="hide" aria-label="Close">
          ✕
        </button>
      </header>
      {groups.map((group) => (
        <section key={group.title} className="help-group" aria-labelledby={`help-${group.title}`}>
          <h3 id={`help-${group.title}`}>
            {group.title}
            {group.page !== null && group.page === page && <span className="muted"> (this page)</span>}
          </h3>
          <dl>
            {group.keys.map(([keys, what]) => (
              <div key={keys + what} className="help-row">
                <dt>
                  <Keys keys={keys} />
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </div>
  );
}
