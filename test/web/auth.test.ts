/**
 * The web UI's first steps in a real browser against dist/tandem: first-run setup from the logged link,
 * sign-in, staying signed in across an expired access token, creating a space and landing on its board,
 * sign-out, the phone menu; an approved signup leaving the waiting screen by itself; and the app's pages never
 * shadow the API.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser } from "playwright-core";
import { DESKTOP, launchBrowser, PHONE, screenshot, signedInPage, startBinary } from "../helpers/browser";
import { OWNER } from "../helpers/factories";
import { client } from "../helpers/http";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchBrowser(), startBinary()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("first run and sign-in", () => {
  it("sets up the organization from the setup link and lands signed in on the spaces", async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto("/");
    await page.getByText("This install has no organization yet").waitFor();
    await page.goto(`/setup?token=${server.setupToken}`);
    await page.getByLabel("Organization name").fill("Acme");
    await page.getByLabel("Your name").fill(OWNER.name);
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password (at least 8 characters)").fill(OWNER.password);
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/spaces");
    expect(page.url()).not.toContain("token=");
    await context.close();
  });

  it("shows the API's message for a wrong password, then signs in", async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto("/login");
    await page.waitForFunction(() => document.title === "Sign in · Tandem");
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill("wrong-password");
    // By keyboard on the button: refused, the keyboard goes back to the password, selected to type again.
    await page.getByRole("button", { name: "Sign in" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("alert").filter({ hasText: "invalid credentials" }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "password");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).selectionEnd)).toBe(14);
    await screenshot(page, "sign-in");
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    await context.close();
  });

  it("stays signed in when the access token has expired (silent refresh)", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER);
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    // Make the stored access token unusable and its expiry past: the app must refresh, not sign out.
    await page.evaluate(() => {
      const session = JSON.parse(localStorage.getItem("tandem.session") as string);
      session.access_token = "expired.token.value";
      session.expires_at = Date.now() - 1000;
      localStorage.setItem("tandem.session", JSON.stringify(session));
    });
    await page.reload();
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("tandem.session") as string));
    expect(stored.access_token).not.toBe("expired.token.value");
    expect((await client(server.url, stored.access_token).get("/api/v1/me")).status).toBe(200);
    await context.close();
  });

  it("creates a private space and lands on its board with the four columns", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER);
    await page.getByRole("button", { name: "New space" }).click();
    await page.getByLabel("Name").fill("Launch");
    await page.getByLabel("Private: only people I add can see it").check();
    await page.getByRole("button", { name: "Create space" }).click();
    await page.waitForURL(/\/spaces\/[0-9a-f-]+\/board$/);
    for (const column of ["To do", "In progress", "Review", "Done"]) {
      await page.getByRole("heading", { name: column, exact: true }).waitFor();
    }
    await page.getByRole("navigation", { name: "Workspace" }).getByText("Launch").waitFor();
    await context.close();
  });

  it("signs out and back to the sign-in page", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("tandem.session"))).toBeNull();
    await context.close();
  });

  it("goes to the sign-in page when its session is ended elsewhere, without a click, and says why", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER, "/my-tasks");
    await page.getByRole("heading", { name: "My tasks" }).waitFor();
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("tandem.session") as string));
    // The live-events socket closes with 4401; the page finds the session over and signs out.
    const out = await client(server.url).post("/api/v1/auth/logout", { refresh_token: stored.refresh_token });
    expect(out.status).toBe(204);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("tandem.session"))).toBeNull();
    await page.getByRole("status").filter({ hasText: "You were signed out: your session ended elsewhere" }).waitFor();
    await screenshot(page, "session-ended");
    // Signing in again returns to the same page, and the reason is not said again.
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "My tasks" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/my-tasks");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await page.getByText("You were signed out").count()).toBe(0);
    await context.close();
  });

  it("works on a phone-sized screen through the menu", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER, "/spaces", { viewport: PHONE });
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Workspace" }).getByText("My tasks").click();
    await page.waitForURL(/\/my-tasks$/);
    await context.close();
  });

  it("closes the phone menu with Escape or a tap outside it, giving the keyboard back to the menu button", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER, "/spaces", { viewport: PHONE });
    const menu = page.getByRole("button", { name: "Menu" });
    const nav = page.getByRole("navigation", { name: "Workspace" });
    const menuFocused = () => menu.evaluate((el) => el === document.activeElement);

    await menu.click();
    await nav.getByText("My tasks").waitFor();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("Escape");
    await nav.waitFor({ state: "hidden" });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await menuFocused()).toBe(true);

    await menu.click();
    await nav.getByText("My tasks").waitFor();
    await screenshot(page, "phone-menu");
    // A tap on the page to the right of the menu.
    await page.mouse.click(370, 400);
    await nav.waitFor({ state: "hidden" });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await menuFocused()).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/spaces");
    await context.close();
  });
});

describe("the phone menu", () => {
  it("keeps the keyboard inside while open, the page behind inert, and Escape gives it back to the button", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER, "/spaces", { viewport: PHONE });
    const menu = page.getByRole("button", { name: "Menu" });
    const nav = page.getByRole("navigation", { name: "Workspace" });
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    await menu.focus();
    await page.keyboard.press("Enter");
    await nav.getByText("My tasks").waitFor();
    expect(await page.locator("main").evaluate((el) => (el as HTMLElement).inert)).toBe(true);
    const inMenu = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return el?.closest("#workspace-nav, .topbar") != null;
      });
    // Forward past "Sign out" and back past the menu button: always in the menu.
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      expect(await inMenu()).toBe(true);
    }
    await menu.focus();
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign out");
    await page.keyboard.press("Escape");
    await nav.waitFor({ state: "hidden" });
    expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.locator("main").evaluate((el) => (el as HTMLElement).inert)).toBe(false);
    await context.close();
  });
});

describe("signing up", () => {
  it("offers sign-up only when open sign-ups are on, and says in words when they are off", async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto("/login");
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    // Off (the default): no "Request one", only the invite route.
    expect(await page.getByRole("link", { name: "Request one" }).count()).toBe(0);
    await page.getByText("Ask an administrator for an invite link").waitFor();
    // Reached anyway, the register page says so before anything is typed.
    await page.goto("/register");
    await page.getByText("open sign-ups are off").waitFor();
    expect(await page.getByRole("button", { name: "Request account" }).count()).toBe(0);

    // On: offered; turned off while the form is open, the refusal comes in words, not as a code.
    const login = await client(server.url).post("/api/v1/auth/login", { email: OWNER.email, password: OWNER.password });
    const api = client(server.url, login.body.access_token);
    const orgId = (await api.get("/api/v1/organizations")).body.organizations[0].id as string;
    expect((await api.patch(`/api/v1/organizations/${orgId}`, { open_signups_enabled: true })).status).toBe(200);
    await page.goto("/login");
    await page.getByRole("link", { name: "Request one" }).click();
    await page.getByRole("button", { name: "Request account" }).waitFor();
    expect((await api.patch(`/api/v1/organizations/${orgId}`, { open_signups_enabled: false })).status).toBe(200);
    await page.getByLabel("Your name").fill("Late Larry");
    await page.getByLabel("Email").fill("larry@acme.test");
    await page.getByLabel("Password (at least 8 characters)").fill("larry-password");
    await page.getByRole("button", { name: "Request account" }).click();
    await page.getByRole("alert").filter({ hasText: "open sign-ups are off" }).waitFor();
    expect(await page.getByText("signups_disabled").count()).toBe(0);
    await context.close();
  });

  it("leaves the waiting screen for the workspace once the signup is approved, without signing in again", async () => {
    const owner = client(server.url);
    const login = await owner.post("/api/v1/auth/login", { email: OWNER.email, password: OWNER.password });
    const api = client(server.url, login.body.access_token);
    const orgId = (await api.get("/api/v1/organizations")).body.organizations[0].id as string;
    expect((await api.patch(`/api/v1/organizations/${orgId}`, { open_signups_enabled: true })).status).toBe(200);

    const context = await browser.newContext({ baseURL: server.url, viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto("/register");
    await page.getByLabel("Your name").fill("Rita Requester");
    await page.getByLabel("Email").fill("rita@acme.test");
    await page.getByLabel("Password (at least 8 characters)").fill("rita-password");
    await page.getByRole("button", { name: "Request account" }).click();
    await page.getByRole("heading", { name: "Waiting for approval" }).waitFor();
    // It checks on its own; asked again before the approval, it says so (in a live region), and the keyboard
    // stays on the button while it asks.
    const status = page.getByRole("status").filter({ hasText: "Not approved yet" });
    await status.waitFor();
    const first = await status.textContent();
    await page.waitForTimeout(1100);
    await page.getByRole("button", { name: "Check again" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction((before) => {
      const now = [...document.querySelectorAll('[role="status"]')].map((el) => el.textContent).join();
      return now.includes("Not approved yet") && !now.includes(before as string);
    }, first);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(/Check again|Checking…/);
    await screenshot(page, "waiting-for-approval");

    const requests = await api.get(`/api/v1/organizations/${orgId}/signup-requests?status=pending`);
    const rita = (requests.body.signup_requests as { id: string; email: string }[]).find(
      (r) => r.email === "rita@acme.test",
    );
    expect(rita).toBeDefined();
    const approved = await api.post(`/api/v1/organizations/${orgId}/signup-requests/${rita?.id}/approve`, {});
    expect(approved.status).toBe(204);

    // Coming back to the window is enough (a timer also checks every few seconds while the screen is shown).
    const before = await page.evaluate(() => JSON.parse(localStorage.getItem("tandem.session") as string));
    await page.evaluate(() => dispatchEvent(new Event("focus")));
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    const after = await page.evaluate(() => JSON.parse(localStorage.getItem("tandem.session") as string));
    expect(after.signup_pending).toBe(false);
    expect(after.refresh_token).toBe(before.refresh_token);
    await page.reload();
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    await context.close();
  });

  it("opens the workspace on load when the approval came while the page was closed", async () => {
    const owner = client(server.url);
    const login = await owner.post("/api/v1/auth/login", { email: OWNER.email, password: OWNER.password });
    const api = client(server.url, login.body.access_token);
    const orgId = (await api.get("/api/v1/organizations")).body.organizations[0].id as string;

    const context = await browser.newContext({ baseURL: server.url, viewport: PHONE });
    const page = await context.newPage();
    await page.goto("/register");
    await page.getByLabel("Your name").fill("Sam Signup");
    await page.getByLabel("Email").fill("sam@acme.test");
    await page.getByLabel("Password (at least 8 characters)").fill("sam-password");
    await page.getByRole("button", { name: "Request account" }).click();
    await page.getByRole("heading", { name: "Waiting for approval" }).waitFor();
    await page.goto("about:blank");

    const requests = await api.get(`/api/v1/organizations/${orgId}/signup-requests?status=pending`);
    const sam = (requests.body.signup_requests as { id: string; email: string }[]).find(
      (r) => r.email === "sam@acme.test",
    );
    expect((await api.post(`/api/v1/organizations/${orgId}/signup-requests/${sam?.id}/approve`, {})).status).toBe(204);
    await page.goto("/spaces");
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem("tandem.session") as string).signup_pending)).toBe(
      false,
    );
    await context.close();
  });
});

describe("pages and the API", () => {
  it("serves the app on its own paths, and JSON 404s on unknown API paths", async () => {
    for (const path of ["/", "/login", "/spaces", "/spaces/x/board", "/my-tasks", "/settings/members"]) {
      const res = await fetch(server.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
    }
    const api = await fetch(`${server.url}/api/v1/nothing-here`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: expect.any(String) });
    expect((await fetch(`${server.url}/nothing-here`)).status).toBe(404);
  });
});
