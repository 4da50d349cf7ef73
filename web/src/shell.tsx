/**
 * The frame of every workspace screen: the sidebar (search, the inbox and spaces with what is unread, my tasks,
 * staff, approvals with how many wait, settings; who is signed in, their profile, changing their password,
 * signing out), on phones a top bar instead (the menu, the space or organization on screen, search), the
 * keyboard shortcuts, the command palette and the page.
 */
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { ChangePasswordDialog } from "./features/auth/ChangePassword";
import { usePendingApprovals } from "./features/automations/pending";
import { Counts, InboxCount, useSpaceCount } from "./features/inbox/Counts";
import { MuteButton } from "./features/inbox/MuteButton";
import { useInboxTracker, useUnreadState } from "./features/inbox/unread";
import { PaletteHost, SearchButton } from "./features/search/PaletteHost";
import { signOut } from "./lib/api";
import { useEventsStatus } from "./lib/events";
import { HelpButton, HelpPopover } from "./lib/help";
import { Link, match, navigate, useLocation } from "./lib/router";
import { Avatar } from "./lib/ui";
import { useWorkspace } from "./lib/workspace";

function NavLink({ href, children, exact = false }: { href: string; children: ReactNode; exact?: boolean }) {
  const { path } = useLocation();
  const active = exact ? path === href : path === href || path.startsWith(`${href}/`);
  return (
    <Link href={href} className={active ? "nav-link active" : "nav-link"} aria-current={active ? "page" : undefined}>
      {children}
    </Link>
  );
}

/** A space in the sidebar, with its unread messages and mentions (leaving out the room on screen). */
function SpaceLink({ space }: { space: { id: string; name: string; private: boolean } }) {
  const count = useSpaceCount(space.id);
  return (
    <NavLink href={`/spaces/${space.id}`}>
      <span className={count.unread || count.mentions ? "nav-space unread" : "nav-space"}>
        {space.private ? "🔒 " : "# "}
        {space.name}
      </span>
      <Counts count={count} />
    </NavLink>
  );
}

/** How many automations wait for approval, beside the Approvals link; nothing when none wait. */
function PendingCount({ count }: { count: number | null }) {
  if (!count) return null;
  return (
    <span className="nav-count" title={`${count} waiting for approval`}>
      {count}
      <span className="sr-only"> waiting</span>
    </span>
  );
}

/** A dot that says whether live updates are flowing. */
function LiveDot() {
  const status = useEventsStatus();
  return (
    <span
      className={`live-dot ${status}`}
      title={status === "live" ? "Live" : status === "offline" ? "Offline: reconnecting" : "Connecting"}
      role="img"
      aria-label={`Live updates: ${status}`}
    />
  );
}

/** The organization's name, with the live dot. */
function OrgName() {
  const ws = useWorkspace();
  return (
    <>
      <Link href="/spaces" className="brand">
        {ws.org.name}
      </Link>
      <LiveDot />
    </>
  );
}

type SpaceRef = { id: string; name: string; private: boolean };

/** The space on screen, if any. */
function useSpaceOnScreen(): SpaceRef | undefined {
  const ws = useWorkspace();
  const { path } = useLocation();
  const spaceId = match("/spaces/:spaceId/:tab?/:item?", path)?.spaceId;
  return ws.spaces.find((s) => s.id === spaceId);
}

/**
 * What the phone's top bar names: the space on screen, with its Mute button (so that its tabs have a line of
 * their own under the bar, and the header stays two short lines), else the organization.
 */
function TopbarTitle({ space }: { space: SpaceRef | undefined }) {
  if (!space) return <OrgName />;
  return (
    <>
      <Link href={`/spaces/${space.id}/board`} className="brand">
        {space.private ? "🔒 " : ""}
        {space.name}
      </Link>
      <LiveDot />
      <span className="grow" />
      <MuteButton what="space" id={space.id} name={space.name} />
    </>
  );
}

export function Shell({ children }: { children: ReactNode }) {
  const ws = useWorkspace();
  const { path } = useLocation();
  const space = useSpaceOnScreen();
  const [open, setOpen] = useState(false);
  const [changingPassword, setChangingPassword] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the menu closes on every navigation.
  useEffect(() => setOpen(false), [path]);
  /** Closes the phone menu from Escape or the backdrop; the keyboard goes back to the button that opened it. */
  const dismiss = useCallback(() => {
    setOpen(false);
    menuButton.current?.focus();
  }, []);
  const nav = useRef<HTMLElement>(null);
  const topbar = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      // A dialog above the menu takes its own keys first.
      if (event.defaultPrevented || document.querySelector("dialog[open], :popover-open")) return;
      if (event.key === "Escape") {
        event.preventDefault();
        dismiss();
      } else if (event.key === "Tab") {
        // The page behind is inert; Tab cycles through the top bar (the menu button) and the menu, as in a dialog.
        const stops = [topbar.current, nav.current]
          .flatMap((part) => [...(part?.querySelectorAll<HTMLElement>("a[href], button:not([disabled])") ?? [])])
          .filter((el) => el.offsetParent !== null);
        const first = stops[0];
        const last = stops[stops.length - 1];
        const active = document.activeElement;
        const inside = stops.includes(active as HTMLElement);
        if (!first || !last) return;
        if (!inside || (event.shiftKey ? active === first : active === last)) {
          event.preventDefault();
          (event.shiftKey ? last : first).focus();
        }
      }
    };
    document.addEventListener("keydown", onKey);
    // The menu is for narrow screens: widened past them, the sidebar shows beside the page and the menu ends.
    const narrow = matchMedia("(max-width: 760px)");
    const onWiden = () => {
      if (!narrow.matches) setOpen(false);
    };
    narrow.addEventListener("change", onWiden);
    return () => {
      document.removeEventListener("keydown", onKey);
      narrow.removeEventListener("change", onWiden);
    };
  }, [open, dismiss]);
  const admin = ws.can("org.manage") || ws.can("org.members.manage");
  // What needs the person: counted whatever screen is open, and in the window's title.
  useInboxTracker();
  const inbox = useUnreadState().inbox;
  const pending = usePendingApprovals();
  const menuNews = [inbox ? `${inbox} unread in Inbox` : "", pending ? `${pending} waiting for approval` : ""].filter(
    Boolean,
  );

  return (
    <div className={`shell${open ? " nav-open" : ""}${space ? " in-space" : ""}`}>
      <a href="#main" className="skip-link" inert={open}>
        Skip to content
      </a>
      <header ref={topbar} className="topbar">
        <button
          ref={menuButton}
          type="button"
          className="icon menu-button"
          aria-label={menuNews.length ? `Menu, ${menuNews.join(", ")}` : "Menu"}
          aria-expanded={open}
          aria-controls="workspace-nav"
          onClick={() => setOpen(!open)}
        >
          ☰{inbox || pending ? <span className={inbox ? "menu-dot inbox" : "menu-dot"} aria-hidden="true" /> : null}
        </button>
        <TopbarTitle space={space} />
        <SearchButton className="icon topbar-search" />
        <HelpButton className="icon help-button" />
      </header>
      {open && (
        // A tap outside the phone menu closes it; keyboards use Escape or the menu button (hence aria-hidden).
        <div className="nav-backdrop" aria-hidden="true" onClick={dismiss} />
      )}
      <nav ref={nav} id="workspace-nav" className="sidebar" aria-label="Workspace">
        <div className="sidebar-org">
          <OrgName />
          <HelpButton className="icon help-button" />
        </div>
        <SearchButton className="nav-search" />
        <NavLink href="/inbox">
          Inbox
          <InboxCount count={inbox} />
        </NavLink>
        <NavLink href="/my-tasks">My tasks</NavLink>
        <NavLink href="/approvals">
          Approvals
          <PendingCount count={pending} />
        </NavLink>
        <NavLink href="/staff">AI staff</NavLink>
        {admin && <NavLink href="/settings">Settings</NavLink>}
        <div className="nav-section">
          <NavLink href="/spaces" exact>
            Spaces
          </NavLink>
          {ws.spaces.map((space) => (
            <SpaceLink key={space.id} space={space} />
          ))}
        </div>
        <div className="sidebar-me">
          <Avatar id={ws.me.id} name={ws.me.display_name} />
          <span className="grow sidebar-me-who">
            <Link
              href="/profile"
              className="sidebar-me-name"
              title={`${ws.me.email}: profile and notifications`}
              aria-current={path === "/profile" ? "page" : undefined}
            >
              {ws.me.display_name}
            </Link>
            {/* Under the name, which so has the sidebar's width to itself. */}
            <span className="sidebar-me-actions">
              <button type="button" className="link small" onClick={() => setChangingPassword(true)}>
                Change password
              </button>
              <button
                type="button"
                className="link small"
                onClick={() => void signOut().then(() => navigate("/login", { replace: true }))}
              >
                Sign out
              </button>
            </span>
          </span>
        </div>
      </nav>
      {/* While the phone menu is open the page under it is inert: not focusable, not read. */}
      <main id="main" className="page" tabIndex={-1} inert={open}>
        {children}
      </main>
      {changingPassword && <ChangePasswordDialog onClose={() => setChangingPassword(false)} />}
      <PaletteHost />
      <HelpPopover />
    </div>
  );
}
