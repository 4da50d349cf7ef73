/**
 * Changing one's own password in a real browser against the compiled binary: the dialog from the sidebar
 * refuses two new passwords that differ without asking the server, shows the server's refusal of a wrong
 * current password, then changes it; the page stays signed in and the new password is the one that logs in.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, type Org } from "../helpers/factories";
import { client } from "../helpers/http";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;

beforeAll(async () => {
  const [launched, workspace] = await Promise.all([launchBrowser(), startWorkspace()]);
  browser = launched;
  ({ server, org } = workspace);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("changing your password", () => {
  it("checks the two new passwords match, shows the server's error, then changes it and stays signed in", async () => {
    const person = await addMember(org, ["Member"], "Pat Password");
    const other = await client(server.url).post("/api/v1/auth/login", {
      email: person.email,
      password: person.password,
    });
    const { context, page } = await signedInPage(browser, server, person);
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    const posts: string[] = [];
    page.on("request", (r) => r.method() === "POST" && r.url().endsWith("/me/password") && posts.push(r.url()));

    await page.getByRole("navigation", { name: "Workspace" }).getByRole("button", { name: "Change password" }).click();
    const dialog = page.getByRole("dialog", { name: "Change password" });
    // The cursor starts in the first field, not on Close.
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "current_password");
    await dialog.getByLabel("Current password").fill(person.password);
    await dialog.getByLabel("New password (at least 8 characters)").fill("brand-new-password");
    await dialog.getByLabel("Confirm new password").fill("brand-new-passwort");
    await dialog.getByRole("button", { name: "Change password" }).click();
    await dialog.getByRole("alert").filter({ hasText: "The new passwords do not match." }).waitFor();
    expect(posts).toEqual([]);

    await dialog.getByLabel("Current password").fill("not-the-password");
    await dialog.getByLabel("Confirm new password").fill("brand-new-password");
    // By keyboard on the button: the refused current password gets the keyboard back, selected.
    await dialog.getByRole("button", { name: "Change password" }).focus();
    await page.keyboard.press("Enter");
    await dialog.getByRole("alert").filter({ hasText: "current password is incorrect" }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "current_password");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).selectionEnd)).toBe(16);
    await screenshot(page, "change-password");

    await dialog.getByLabel("Current password").fill(person.password);
    await dialog.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("status").filter({ hasText: "Password changed" }).waitFor();
    await dialog.waitFor({ state: "hidden" });

    // This page stays signed in; the other session has ended; the new password is the one that logs in.
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("tandem.session") as string));
    expect((await client(server.url, stored.access_token).get("/api/v1/me")).status).toBe(200);
    await page.reload();
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    expect((await client(server.url, other.body.access_token).get("/api/v1/me")).status).toBe(401);
    const login = (password: string) =>
      client(server.url).post("/api/v1/auth/login", { email: person.email, password });
    expect((await login("brand-new-password")).status).toBe(200);
    expect((await login(person.password)).status).toBe(401);
    await context.close();
  });
});
