/**
 * The web UI's first steps in a real browser against dist/tandem: first-run setup from the logged link,
 * sign-in, staying signed in across an expired access token, creating a space and landing on its board,
 * sign-out; and the app's pages never shadow the API.
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
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill("wrong-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "invalid credentials" }).waitFor();
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

  it("goes to the sign-in page when its session is ended elsewhere, without a click", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER);
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("tandem.session") as string));
    // The live-events socket closes with 4401; the page finds the session over and signs out.
    const out = await client(server.url).post("/api/v1/auth/logout", { refresh_token: stored.refresh_token });
    expect(out.status).toBe(204);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("tandem.session"))).toBeNull();
    await context.close();
  });

  it("works on a phone-sized screen through the menu", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER, "/spaces", { viewport: PHONE });
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Workspace" }).getByText("My tasks").click();
    await page.waitForURL(/\/my-tasks$/);
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
