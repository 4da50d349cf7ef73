/** The app: first-run setup, sign-in, then the workspace shell and its screens by URL. */
import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from "react";
import { getInstance } from "./features/auth/api";
import { AcceptInvitePage, JoinWithAccountPage } from "./features/auth/InvitePages";
import { NoOrganization } from "./features/auth/NoOrganization";
import { LoginPage, RegisterPage, SetupPage } from "./features/auth/SignInPages";
import { MyTasksPage } from "./features/board/MyTasksPage";
import InboxPage from "./features/inbox/InboxPage";
import { SpaceRoute, SpacesPage } from "./features/spaces/SpacesPage";
import { StaffPage } from "./features/staff/StaffPage";
import { isSignedIn, isSignupPending, onSessionChange } from "./lib/api";
import { match, navigate, useLocation } from "./lib/router";
import { ErrorText, Spinner, Toasts, usePageTitle } from "./lib/ui";
import { useWorkspace, WorkspaceProvider } from "./lib/workspace";
import { Shell } from "./shell";

// Settings are for owners and rarely opened: loaded when first visited. So are approvals, which come with the
// automations' cron reader.
const SettingsPage = lazy(() => import("./features/settings/SettingsPage"));
const ApprovalsPage = lazy(() => import("./features/automations/ApprovalsPage"));
const ProfilePage = lazy(() => import("./features/profile/ProfilePage"));
// The results page comes with the palette's code, which is also loaded when first opened.
const SearchPage = lazy(() => import("./features/search/SearchPage"));

function useSignedIn(): { signedIn: boolean; pending: boolean } {
  const signedIn = useSyncExternalStore(onSessionChange, isSignedIn);
  const pending = useSyncExternalStore(onSessionChange, isSignupPending);
  return { signedIn, pending };
}

/** The screen of the workspace for the current path. */
function Screen({ path }: { path: string }) {
  if (path === "/" || path === "/login" || path === "/setup" || path === "/register") {
    navigate("/spaces", { replace: true });
    return null;
  }
  if (match("/spaces", path)) return <SpacesPage />;
  const space = match("/spaces/:spaceId/:tab?/:item?", path);
  if (space)
    return <SpaceRoute spaceId={space.spaceId as string} tab={space.tab ?? "board"} item={space.item ?? null} />;
  if (match("/my-tasks", path)) return <MyTasksPage />;
  if (match("/inbox", path)) return <InboxPage />;
  if (match("/profile", path))
    return (
      <Suspense fallback={<Spinner />}>
        <ProfilePage />
      </Suspense>
    );
  const staff = match("/staff/:userId?", path);
  if (staff) return <StaffPage userId={staff.userId ?? null} />;
  if (match("/approvals", path))
    return (
      <Suspense fallback={<Spinner />}>
        <ApprovalsPage />
      </Suspense>
    );
  if (match("/search", path))
    return (
      <Suspense fallback={<Spinner />}>
        <SearchPage />
      </Suspense>
    );
  const settings = match("/settings/:tab?", path);
  if (settings)
    return (
      <Suspense fallback={<Spinner />}>
        <SettingsPage tab={settings.tab ?? "organization"} />
      </Suspense>
    );
  return <ErrorText error="page not found" />;
}

const SPACE_TABS: Record<string, string> = {
  board: "Board",
  chat: "Chat",
  files: "Files",
  automations: "Automations",
  settings: "Settings",
};

/**
 * The window's title for the current path ("Board · Launch", "My tasks"; " · Tandem" is added). Screens that
 * know more, such as the open chat room, name themselves above it.
 */
function routeTitle(path: string, ws: ReturnType<typeof useWorkspace>): string {
  if (match("/spaces", path)) return "Spaces";
  const space = match("/spaces/:spaceId/:tab?/:item?", path);
  if (space) {
    const found = ws.spaces.find((s) => s.id === space.spaceId);
    if (!found) return "Space not found";
    const tab = SPACE_TABS[space.tab ?? "board"];
    return tab ? `${tab} · ${found.name}` : found.name;
  }
  if (match("/my-tasks", path)) return "My tasks";
  if (match("/inbox", path)) return "Inbox";
  if (match("/profile", path)) return "Profile";
  const staff = match("/staff/:userId?", path);
  if (staff) return staff.userId ? `${ws.nameOf(staff.userId)} · AI staff` : "AI staff";
  if (match("/approvals", path)) return "Approvals";
  if (match("/settings/:tab?", path)) return "Settings";
  if (match("/search", path)) return "Search";
  return "Page not found";
}

function RouteTitle({ path }: { path: string }) {
  usePageTitle(routeTitle(path, useWorkspace()));
  return null;
}

export function App() {
  const { path } = useLocation();
  const { signedIn, pending } = useSignedIn();
  const [needsSetup, setNeedsSetup] = useState<boolean | null>(null);
  const [openSignups, setOpenSignups] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    getInstance()
      .then((instance) => {
        setOpenSignups(instance.open_signups_enabled === true);
        setNeedsSetup(instance.needs_setup);
      })
      .catch((err) => setError(err instanceof Error ? err.message : String(err)));
  }, []);

  let body: React.ReactNode;
  if (error) body = <ErrorText error={error} />;
  else if (needsSetup === null) body = <Spinner />;
  else if (needsSetup) body = <SetupPage onDone={() => setNeedsSetup(false)} />;
  else if (!signedIn) {
    if (path === "/register") body = <RegisterPage openSignups={openSignups} />;
    else if (path === "/invite") body = <AcceptInvitePage />;
    else body = <LoginPage openSignups={openSignups} />;
  }
  // An invite link opened while signed in joins with this account, member or not (yet): before the workspace, so
  // the "no organization" and waiting screens do not hide it.
  else if (path === "/invite") body = <JoinWithAccountPage />;
  else if (pending) body = <NoOrganization pending />;
  else
    body = (
      <WorkspaceProvider noOrg={<NoOrganization pending={false} />}>
        <Shell>
          <RouteTitle path={path} />
          <Screen path={path} />
        </Shell>
      </WorkspaceProvider>
    );
  return (
    <>
      {body}
      <Toasts />
    </>
  );
}
