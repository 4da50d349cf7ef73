/**
 * Automations in a real browser against the compiled binary, as people without the right to list staff accounts
 * see them: a Member on the space's Automations tab and a Viewer on Approvals both read which staff member
 * proposed an automation and why, named through the member list that everyone can read. Once that staff member is
 * deleted, what it made (automations, chat messages, file proposals) reads "Former AI staff". A person creates a
 * scheduled automation in the form (not JSON), approves it as its own action and sees it post in the room, as
 * the automation; its page lists the runs with what they did, and Run now adds one. A reverse tunnel's command,
 * pasted into a shell, connects the real connector, and the page shows it connected and opens the tunnel. The
 * functions behind the screens (the schedule read, the form's config, the run list, the signed curl example) are
 * checked first.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHmac, randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import type { AutomationRun } from "../../src/api-types";
import { configToSave, sameConfig } from "../../web/src/features/automations/config-draft";
import { readCron } from "../../web/src/features/automations/cron";
import { duration, liveConnection, mergeRuns, upsertRun } from "../../web/src/features/automations/runs-state";
import { targetProblem } from "../../web/src/features/automations/tunnel-command";
import { SAMPLE_BODY, signedCurl } from "../../web/src/features/automations/webhook-example";
import { launchBrowser, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, addStaff, type Org } from "../helpers/factories";
import { BINARY, type TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let spaceId: string;

const automationsPath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}/automations`;
const roomsPath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms`;

/** How many automations wait for approval in every space the owner sees, as the API lists them. */
async function pendingCount(): Promise<number> {
  const spaces = (await org.owner.api.get(`/api/v1/organizations/${org.id}/spaces`)).body.spaces;
  let total = 0;
  for (const space of spaces) {
    const listed = (await org.owner.api.get(`/api/v1/organizations/${org.id}/spaces/${space.id}/automations`)).body;
    total += listed.automations.filter((a: { status: string }) => a.status === "pending_approval").length;
  }
  return total;
}

/** The owner on the space's Automations tab, with the New automation form open and named `name`. */
async function newAutomation(name: string) {
  const { context, page } = await signedInPage(browser, server, org.owner, `/spaces/${spaceId}/automations`);
  await page.getByRole("button", { name: "New automation" }).click();
  const form = page.getByRole("dialog", { name: "New automation" });
  await form.getByLabel("Name").fill(name);
  return { context, page, form };
}

beforeAll(async () => {
  [browser, { server, org }] = await Promise.all([launchBrowser(), startWorkspace()]);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Operations" });
  expect(space.status).toBe(201);
  spaceId = space.body.id;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the automations' own functions", () => {
  it("reads a schedule in words with its next runs, as the server's croner does, or says why not", () => {
    const from = new Date("2026-11-27T18:00:00Z");
    const weekdays = readCron("0 9 * * 1-5", "Europe/Berlin", 3, from);
    expect(weekdays).toEqual({
      ok: true,
      words: "At 09:00, Monday through Friday",
      // 9:00 in Berlin is 8:00 UTC in winter; the 27th is a Friday.
      next: [new Date("2026-11-30T08:00:00Z"), new Date("2026-12-01T08:00:00Z"), new Date("2026-12-02T08:00:00Z")],
    });
    const seconds = readCron("*/2 * * * * *", "UTC", 2, from);
    expect(seconds.ok && seconds.words).toBe("Every 2 seconds");
    expect(seconds.ok && seconds.next.map((d) => d.toISOString())).toEqual([
      "2026-11-27T18:00:02.000Z",
      "2026-11-27T18:00:04.000Z",
    ]);
    expect(readCron("0 9 * *")).toEqual({
      ok: false,
      problem: "A schedule has 5 fields (minute first) or 6 (seconds first), not 4.",
    });
    expect(readCron("* * * * * * *").ok).toBe(false);
    expect(readCron("61 * * * *")).toEqual({ ok: false, problem: "Not a schedule: Invalid value for minute: 61" });
    expect(readCron("0 9 * * *", "Mars/Olympus")).toEqual({ ok: false, problem: "“Mars/Olympus” is not a time zone." });
  });

  it("saves the kind's filled fields, keeps keys no kind knows, and drops another kind's", () => {
    const draft = {
      cron: " 0 9 * * 1 ",
      timezone: "Europe/Berlin",
      channel: "general",
      message: "",
      staff_user_id: "u1",
      staff_prompt: "Summarise the week.",
      task: { title: " Weekly review ", column: "", assignee_user_id: "u2", description: "" },
      template: "left from the webhook kind",
      proposal_note: "Why",
      url: "https://example.com/kept",
    };
    expect(configToSave("scheduled", draft)).toEqual({
      cron: "0 9 * * 1",
      timezone: "Europe/Berlin",
      channel: "general",
      staff_user_id: "u1",
      staff_prompt: "Summarise the week.",
      task: { title: "Weekly review", assignee_user_id: "u2" },
      proposal_note: "Why",
      url: "https://example.com/kept",
    });
    // A social post without a schedule keeps no time zone; a tunnel has nothing of its own.
    expect(configToSave("social_post", { text: "Shipped!", cron: "", timezone: "UTC" })).toEqual({ text: "Shipped!" });
    expect(configToSave("reverse_tunnel", draft)).toEqual({ proposal_note: "Why", url: "https://example.com/kept" });
    expect(sameConfig({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true);
    expect(sameConfig({ a: 1 }, { a: 2 })).toBe(false);
  });

  it("keeps runs newest first, never letting an older answer undo a newer one", () => {
    const run = (id: string, at: string, extra: Partial<AutomationRun> = {}): AutomationRun => ({
      id,
      automation_id: "a",
      trigger: "schedule",
      status: "running",
      attempt: 1,
      started_at: at,
      finished_at: null,
      error: null,
      output: null,
      created_at: at,
      ...extra,
    });
    const first = run("1", "2026-11-27T10:00:00.000Z");
    const second = run("2", "2026-11-27T10:00:05.000Z", { trigger: "connection" });
    let runs = mergeRuns([], [first]);
    runs = upsertRun(runs, second);
    expect(runs.map((r) => r.id)).toEqual(["2", "1"]);
    expect(liveConnection(runs)?.id).toBe("2");
    const done = { ...second, status: "succeeded" as const, finished_at: "2026-11-27T10:02:10.000Z" };
    runs = upsertRun(runs, done);
    // The page's older answer, still running, arrives after the finished event.
    expect(upsertRun(runs, second)).toBe(runs);
    expect(liveConnection(runs)).toBeNull();
    expect(duration(done)).toBe("2 min 5 s");
    // A retry is the same run with its attempt counting on.
    expect(upsertRun(runs, { ...first, attempt: 2 })[1]?.attempt).toBe(2);
  });

  it("gives a curl example whose Standard Webhooks signature checks out", async () => {
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const received: { ok: boolean; body: string }[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const body = await req.text();
        const [id, ts, signature] = ["webhook-id", "webhook-timestamp", "webhook-signature"].map((h) =>
          req.headers.get(h),
        );
        const key = Buffer.from(secret.slice("whsec_".length), "base64");
        const expected = createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest("base64");
        const fresh = Math.abs(Date.now() / 1000 - Number(ts)) < 300;
        received.push({ ok: signature === `v1,${expected}` && fresh, body });
        return new Response(JSON.stringify({ run_id: "r" }), { status: 202 });
      },
    });
    try {
      const script = signedCurl(`http://127.0.0.1:${receiver.port}/api/v1/hooks/x`, secret);
      // As pasted into a plain POSIX shell.
      const shell = Bun.spawn(["sh", "-c", script], { stdout: "pipe", stderr: "pipe" });
      expect(await shell.exited).toBe(0);
      expect(received).toEqual([{ ok: true, body: SAMPLE_BODY }]);
    } finally {
      receiver.stop(true);
    }
  });
});

describe("who proposed an automation", () => {
  it("names the proposing staff member to a Member and to a Viewer", async () => {
    const [member, viewer, staff] = await Promise.all([
      addMember(org, ["Member"], "Tina Teammate"),
      addMember(org, ["Viewer"], "Victor Viewer"),
      addStaff(org, { name: "Ada" }),
    ]);
    const res = await staff.api.post(automationsPath(), {
      name: "Morning digest",
      kind: "scheduled",
      config: { cron: "0 9 * * *" },
      description: "So the team starts the day knowing what changed.",
    });
    expect(res.status).toBe(201);
    // Neither may list the staff accounts themselves.
    expect((await member.api.get(`/api/v1/organizations/${org.id}/service-accounts`)).status).toBe(403);

    for (const [who, path] of [
      [member, `/spaces/${spaceId}/automations`],
      [viewer, "/approvals"],
    ] as const) {
      const { context, page } = await signedInPage(browser, server, who, path);
      const card = page.getByRole("article", { name: "Morning digest" });
      await card.getByText("So the team starts the day knowing what changed.").waitFor();
      await card.getByText("Why Ada proposes it").waitFor();
      expect(await card.locator("p", { hasText: "proposed by" }).textContent()).toContain("proposed by Ada AI staff");
      await context.close();
    }
  });
});

describe("a deleted staff member's work", () => {
  it("names its automations, chat messages and file proposals as Former AI staff", async () => {
    const [member, staff] = await Promise.all([
      addMember(org, ["Member"], "Mo Member"),
      addStaff(org, { name: "Bob" }),
    ]);
    const space = `/api/v1/organizations/${org.id}/spaces/${spaceId}`;
    const proposed = await staff.api.post(automationsPath(), {
      name: "Weekly digest",
      kind: "scheduled",
      config: { cron: "0 9 * * 1" },
      description: "Every Monday at 9, post a digest of the board.",
    });
    expect(proposed.status).toBe(201);
    const general = (await org.owner.api.get(`${space}/chat-rooms`)).body.chat_rooms[0];
    const said = await staff.api.post(`${space}/chat-rooms/${general.id}/messages`, { content: "Digest is ready." });
    expect(said.status).toBe(201);
    const file = await org.owner.api.post(`${space}/files/text`, { name: "notes.md", content: "Notes\n" });
    expect(file.status).toBe(201);
    const patch = await staff.api.post(`${space}/files/${file.body.node.id}/proposals`, {
      proposed_content: "Notes, tidied\n",
    });
    expect(patch.status).toBe(201);
    const gone = await org.owner.api.delete(`/api/v1/organizations/${org.id}/service-accounts/${staff.account.id}`);
    expect(gone.status).toBe(204);

    const { context, page } = await signedInPage(browser, server, member, "/approvals");
    const card = page.getByRole("article", { name: "Weekly digest" });
    await card.getByText("Every Monday at 9, post a digest of the board.").waitFor();
    expect(await card.locator("p", { hasText: "proposed by" }).textContent()).toContain("proposed by Former AI staff");
    await card.getByText("Why it was proposed").waitFor();
    expect(await card.textContent()).not.toContain("Nobody");

    await page.goto(`/spaces/${spaceId}/chat/${general.id}`);
    const message = page.getByRole("article").filter({ hasText: "Digest is ready." });
    await message.getByText("Former AI staff", { exact: true }).waitFor();

    await page.goto(`/spaces/${spaceId}/files/${file.body.node.id}`);
    const bar = page.getByRole("region", { name: "Proposed changes" });
    await bar.getByText("Former AI staff", { exact: true }).waitFor();
    await bar.getByRole("button", { name: "Review the change proposed by Former AI staff" }).waitFor();
    await context.close();
  });
});

describe("a scheduled automation made in the UI", () => {
  it("is created in the form, counted in the sidebar, approved, and posts in the room as the automation", async () => {
    const { context, page, form } = await newAutomation("Stand-up ping");
    await form.getByLabel("Status").selectOption("pending_approval");
    // Every two seconds, so it posts within the test; the schedule reads in words with its next runs.
    await form.getByLabel("Cron expression").fill("*/2 * * * * *");
    await form.getByLabel("Time zone").fill("UTC");
    await form.getByText("Every 2 seconds").waitFor();
    expect(await form.locator(".next-runs li").count()).toBe(3);
    await form.getByLabel("Room").selectOption("general");
    await form.getByLabel("Message", { exact: true }).fill("Stand-up in 10 minutes!");
    expect(await form.locator("textarea[name=config]").count()).toBe(0);
    await form.getByRole("button", { name: "Create automation" }).click();
    await form.waitFor({ state: "detached" });

    const card = page.getByRole("article", { name: "Stand-up ping" });
    expect(await card.locator(".status-pill").textContent()).toBe("Waiting for approval");
    await card.getByText("Every 2 seconds").waitFor();
    // The API has it as the form said.
    const listed = (await org.owner.api.get(automationsPath())).body.automations;
    const made = listed.find((a: { name: string }) => a.name === "Stand-up ping");
    expect(made.config).toEqual({
      cron: "*/2 * * * * *",
      timezone: "UTC",
      channel: "general",
      message: "Stand-up in 10 minutes!",
    });
    expect(made.config_problem).toBeNull();
    // The sidebar counts what waits in every space the owner sees: this one and those of the tests before.
    const waiting = await pendingCount();
    expect(waiting).toBeGreaterThanOrEqual(1);
    const approvals = page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: /^Approvals/ });
    const count = approvals.locator(".nav-count");
    await count.filter({ hasText: new RegExp(`^${waiting}\\b`) }).waitFor();

    // Approving is a person's own action, in the inbox.
    await approvals.click();
    const pending = page.getByRole("article", { name: "Stand-up ping" });
    await pending.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Approved “Stand-up ping”: it is active now").waitFor();
    if (waiting === 1) await count.waitFor({ state: "detached" });
    else await count.filter({ hasText: new RegExp(`^${waiting - 1}\\b`) }).waitFor();
    const approved = (await org.owner.api.get(`${automationsPath()}/${made.id}`)).body.automation;
    expect(approved.status).toBe("active");
    expect(approved.reviewed_by_user_id).toBe(org.owner.id);

    // It posts in #general as the automation, not as a former member.
    const general = (await org.owner.api.get(roomsPath())).body.chat_rooms[0];
    await page.goto(`/spaces/${spaceId}/chat/${general.id}`);
    const posted = page.getByRole("article").filter({ hasText: "Stand-up in 10 minutes!" }).first();
    await posted.waitFor({ timeout: 15_000 });
    await posted.getByText("Stand-up ping", { exact: true }).waitFor();
    await posted.getByText("Automation", { exact: true }).waitFor();
    expect(await posted.textContent()).not.toContain("Former");
    // The API has it as the automation's message, with no author.
    const messages = (await org.owner.api.get(`${roomsPath()}/${general.id}/messages`)).body.messages;
    const message = messages.find((m: { content: string }) => m.content === "Stand-up in 10 minutes!");
    expect(message.author_user_id).toBeNull();
    expect(message.automation_id).toBe(made.id);
    await screenshot(page, "automation-posted");
    await context.close();
    // It would go on posting every two seconds.
    expect((await org.owner.api.patch(`${automationsPath()}/${made.id}`, { status: "paused" })).status).toBe(200);
  });
});

describe("an automation's page", () => {
  it("lists its runs with what they did, runs now, and pauses", async () => {
    const made = await org.owner.api.post(automationsPath(), {
      name: "Ticker",
      kind: "scheduled",
      status: "active",
      config: { cron: "*/2 * * * * *", channel: "general", message: "Tick." },
    });
    expect(made.status).toBe(201);
    const id = made.body.automation.id;
    const { context, page } = await signedInPage(browser, server, org.owner, `/spaces/${spaceId}/automations/${id}`);
    const runs = page.getByRole("list", { name: "Runs, newest first" });
    const scheduled = runs.getByRole("listitem").filter({ hasText: "On schedule" }).filter({ hasText: "Succeeded" });
    await scheduled.first().waitFor({ timeout: 15_000 });
    await scheduled.first().getByRole("link", { name: "Posted the message" }).waitFor();
    await page.locator(".next-run").waitFor();

    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByRole("article", { name: "Ticker" }).locator(".status-pill", { hasText: "Paused" }).waitFor();
    expect(await page.locator(".next-run").count()).toBe(0);
    await page.getByRole("button", { name: "Resume" }).click();
    await page.getByRole("button", { name: "Run now" }).click();
    const manual = runs.getByRole("listitem").filter({ hasText: "Run now" });
    await manual.filter({ hasText: "Succeeded" }).first().waitFor({ timeout: 15_000 });
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByRole("article", { name: "Ticker" }).locator(".status-pill", { hasText: "Paused" }).waitFor();

    // The history as the API has it, newest first, each run shown.
    const api = (await org.owner.api.get(`${automationsPath()}/${id}/runs`)).body.runs;
    expect(api.some((r: { trigger: string }) => r.trigger === "manual")).toBe(true);
    await runs
      .getByRole("listitem")
      .nth(Math.min(api.length, 20) - 1)
      .waitFor();
    await screenshot(page, "automation-runs");
    await context.close();
  });

  it("says why an incomplete automation cannot run, and Run now answers so", async () => {
    const made = await org.owner.api.post(automationsPath(), {
      name: "Half done",
      kind: "scheduled",
      status: "active",
      config: { channel: "general", message: "Hello" },
    });
    expect(made.status).toBe(201);
    expect(made.body.automation.config_problem).toBe("config.cron: required");
    const path = `/spaces/${spaceId}/automations/${made.body.automation.id}`;
    const { context, page } = await signedInPage(browser, server, org.owner, path);
    const card = page.getByRole("article", { name: "Half done" });
    await card.getByText("Cannot run until this is fixed: config.cron: required").waitFor();
    await card.getByRole("button", { name: "Run now" }).click();
    await card.getByRole("alert").filter({ hasText: "config.cron: required" }).waitFor();
    await context.close();
  });
});

describe("a webhook made in the UI", () => {
  it("shows its secret once, with the URL and a signed curl to copy, and makes a new one on request", async () => {
    const { context, page, form } = await newAutomation("Deploys");
    await form.getByLabel("Kind").selectOption("webhook");
    await form.getByLabel("Room").selectOption("general");
    await form.getByLabel("Message template").fill("Deploy of {{service}}: {{status}}");
    await form.getByRole("button", { name: "Create automation" }).click();

    const shown = page.getByRole("dialog", { name: "Webhook “Deploys” created" });
    const secret = await shown.getByLabel("Webhook secret").inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const made = (await org.owner.api.get(automationsPath())).body.automations.find(
      (a: { name: string }) => a.name === "Deploys",
    );
    const url = `${server.url}/api/v1/hooks/${made.id}`;
    expect(await shown.getByLabel("URL (POST)").inputValue()).toBe(url);
    const example = await shown.getByLabel(/A signed request to try/).inputValue();
    expect(example).toBe(signedCurl(url, secret));
    await shown.getByRole("button", { name: "Done" }).click();
    await shown.waitFor({ state: "detached" });

    // Its page keeps the URL and the example without the secret; a new secret is shown once too.
    await page.getByRole("link", { name: "Deploys" }).click();
    const panel = page.getByRole("region", { name: "Webhook" });
    expect(await panel.getByLabel("URL (POST, signed)").inputValue()).toBe(url);
    expect(await panel.textContent()).not.toContain(secret);
    await panel.getByRole("button", { name: "Make a new secret" }).click();
    await page
      .getByRole("dialog", { name: "Make a new secret?" })
      .getByRole("button", { name: "Make a new secret" })
      .click();
    const renewed = page.getByRole("dialog", { name: "New secret for “Deploys”" });
    const next = await renewed.getByLabel("Webhook secret").inputValue();
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    await screenshot(page, "automation-webhook-secret");
    await context.close();
  });
});

describe("a reverse tunnel's page", () => {
  it("gives a command that connects as pasted, shows the connection live, and opens the tunnel", async () => {
    expect(targetProblem("http://127.0.0.1:3000")).toBeNull();
    expect(targetProblem("http://127.0.0.1:3000/app")).toContain("no path");
    expect(targetProblem("ftp://127.0.0.1")).toContain("http");
    const service = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response("<h1>Branch preview</h1>", { headers: { "content-type": "text/html" } }),
    });
    const made = await org.owner.api.post(automationsPath(), {
      name: "Preview",
      kind: "reverse_tunnel",
      status: "active",
      config: {},
    });
    expect(made.status).toBe(201);
    const id = made.body.automation.id;
    const { context, page } = await signedInPage(browser, server, org.owner, `/spaces/${spaceId}/automations/${id}`);
    const panel = page.getByRole("region", { name: "Tunnel" });
    await panel.getByText("Not connected").waitFor();
    const address = panel.getByLabel("Your local service");
    await address.fill(`http://127.0.0.1:${service.port}/app`);
    await panel.getByText("no path").waitFor();
    await address.fill(`http://127.0.0.1:${service.port}`);
    const command = await panel.getByLabel("Run this where the service runs").inputValue();
    expect(command).toContain("--token -");
    // As pasted into a shell where `tandem` is the binary (exec: the signal that stops it reaches it), the token
    // typed when asked.
    const shell = Bun.spawn(["sh", "-c", `tandem() { exec "${BINARY}" "$@"; }\n${command}`], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const stdin = shell.stdin as import("bun").FileSink;
      stdin.write(`${org.owner.token}\n`);
      void stdin.flush();
      await panel.locator(".tunnel-state.connected").waitFor({ timeout: 20_000 });
      await panel.getByText("Connected", { exact: true }).waitFor();
      const runs = page.getByRole("list", { name: "Runs, newest first" });
      await runs
        .getByRole("listitem")
        .filter({ hasText: "Tunnel connection" })
        .filter({ hasText: "Running" })
        .waitFor();

      const [tab] = await Promise.all([
        context.waitForEvent("page"),
        panel.getByRole("button", { name: "Open the tunnel in a new tab" }).click(),
      ]);
      await tab.getByText("Branch preview").waitFor();
      expect(new URL(tab.url()).pathname).toBe(`/tunnels/${id}/`);
      await screenshot(page, "automation-tunnel");
    } finally {
      shell.kill("SIGINT");
      await shell.exited;
      service.stop(true);
    }
    // The connection ends with the connector, and its run with it.
    await panel.getByText("last connection ended").waitFor({ timeout: 15_000 });
    await context.close();
  });
});

describe("approving", () => {
  it("says the automation is active, and the pill says what Active means", async () => {
    const staff = await addStaff(org, { name: "Cleo" });
    const res = await staff.api.post(automationsPath(), {
      name: "Nightly backup post",
      kind: "scheduled",
      config: { cron: "0 2 * * *", channel: "general", message: "Backup done?" },
    });
    expect(res.status).toBe(201);
    const { context, page } = await signedInPage(browser, server, org.owner, "/approvals");
    const card = page.getByRole("article", { name: "Nightly backup post" });
    await card.getByText("At 02:00").waitFor();
    await card.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Approved “Nightly backup post”: it is active now").waitFor();
    expect(await page.getByText("does not run them").count()).toBe(0);

    await page.goto(`/spaces/${spaceId}/automations`);
    // The API's status name stays, with what it means beside it; its next run is shown.
    const active = page.getByRole("article", { name: "Nightly backup post" });
    const pill = active.locator(".status-pill");
    expect(await pill.textContent()).toBe("Active");
    expect(await pill.getAttribute("title")).toContain("runs on its schedule");
    await active.locator(".next-run").waitFor();
    await context.close();
  });

  it("says an approved automation with an incomplete configuration cannot run until it is fixed", async () => {
    const staff = await addStaff(org, { name: "Dora" });
    const res = await staff.api.post(automationsPath(), {
      name: "Digest without a schedule",
      kind: "scheduled",
      config: { channel: "general", message: "Digest" },
    });
    expect(res.status).toBe(201);
    const { context, page } = await signedInPage(browser, server, org.owner, "/approvals");
    const card = page.getByRole("article", { name: "Digest without a schedule" });
    await card.getByText("Cannot run until this is fixed: config.cron: required").waitFor();
    await card.getByRole("button", { name: "Approve" }).click();
    await page
      .getByText(
        "Approved “Digest without a schedule”: it is active, but cannot run until this is fixed: config.cron: required",
      )
      .waitFor();
    expect(await page.getByText("it is active now").count()).toBe(0);
    await context.close();
  });
});
