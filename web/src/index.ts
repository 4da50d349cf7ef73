import { api, clearSession, loadSession, onSubmit, saveSession, type TokenPair } from "./api";

const status = document.getElementById("status") as HTMLElement;
const login = document.getElementById("login") as HTMLFormElement;
const signout = document.getElementById("signout") as HTMLFormElement;

interface Me {
  user: { display_name: string; email: string };
}
interface Orgs {
  organizations: { name: string }[];
}

/** Uses the stored session, refreshing it once when the access token has expired. */
async function whoAmI(): Promise<{ me: Me; orgs: Orgs } | null> {
  let session = loadSession();
  if (!session) return null;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const me = await api<Me>("GET", "/api/v1/me", undefined, session.access_token);
      const orgs = await api<Orgs>("GET", "/api/v1/organizations", undefined, session.access_token);
      return { me, orgs };
    } catch {
      if (attempt > 0) break;
      try {
        session = await api<TokenPair>("POST", "/api/v1/auth/refresh", { refresh_token: session.refresh_token });
        saveSession(session);
      } catch {
        break;
      }
    }
  }
  clearSession();
  return null;
}

async function render(): Promise<void> {
  const instance = await api<{ needs_setup: boolean }>("GET", "/api/v1/public/instance");
  if (instance.needs_setup) {
    status.textContent =
      "This install is not set up yet. Open the setup link printed in the server log, or run `tandem setup`.";
    return;
  }
  const who = await whoAmI();
  login.hidden = who !== null;
  signout.hidden = who === null;
  if (!who) {
    status.textContent = "Sign in to your workspace.";
    return;
  }
  const org = who.orgs.organizations[0];
  status.textContent = org
    ? `Signed in as ${who.me.user.display_name} (${who.me.user.email}) in ${org.name}.`
    : `Signed in as ${who.me.user.display_name}. Your account is waiting for an administrator's approval.`;
}

onSubmit(login, async (data) => {
  saveSession(
    await api<TokenPair>("POST", "/api/v1/auth/login", { email: data.get("email"), password: data.get("password") }),
  );
  await render();
});

onSubmit(signout, async () => {
  const session = loadSession();
  if (session) await api("POST", "/api/v1/auth/logout", { refresh_token: session.refresh_token });
  clearSession();
  await render();
});

render().catch((err) => {
  status.textContent = err instanceof Error ? err.message : String(err);
});
