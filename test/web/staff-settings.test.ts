/**
 * Staff settings in a real browser against the compiled binary: a staff member's instructions typed in its form
 * with their character count, saved and sent first in its next reply's system prompt; and a provider key tested
 * from Settings against a loopback fake gateway, accepted and then refused.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import { screenshot } from "../helpers/browser";
import { addStaff, type Org } from "../helpers/factories";
import type { FakeProvider } from "../helpers/fake-providers";
import { type BrowserGatewayWorld, browserGatewayWorld } from "../helpers/gateway-world";

const KEY = "sk-or-v1-browser-test-9f8e7d";

let w: BrowserGatewayWorld;
let org: Org;
let fake: FakeProvider;

const orgPath = () => `/api/v1/organizations/${org.id}`;
const open = (path: string) => w.open(path);

beforeAll(async () => {
  w = await browserGatewayWorld();
  ({ org, fake } = w);
});
afterEach(() => w.closePages());
afterAll(() => w.stop());

describe("staff instructions", () => {
  it("are typed with a character count, saved, and sent first in the next reply", async () => {
    const ada = await addStaff(org, { name: "Ada" });
    const page = await open(`/staff/${ada.account.user_id}`);
    const settings = page.getByRole("form", { name: "Staff settings" });
    const box = settings.getByLabel("Instructions");
    expect(await box.getAttribute("placeholder")).toBe("You are our release manager; answer briefly");
    await settings.getByText("0 / 8,000").waitFor();
    const text = "You are our release manager; answer briefly. 🚀";
    await box.fill(text);
    // The rocket counts one, as the server counts it.
    await settings.getByText(`${[...text].length} / 8,000`).waitFor();
    await settings.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Saved Ada").waitFor();
    const listed = (await org.owner.api.get(`${orgPath()}/service-accounts`)).body.service_accounts;
    expect(listed.find((a: { id: string }) => a.id === ada.account.id).instructions).toBe(text);
    await screenshot(page, "staff-instructions");

    // Over the limit: the count says so, and saving shows the server's refusal.
    await box.fill("x".repeat(8001));
    await settings.locator(".instructions-count.over").getByText("8,001 / 8,000").waitFor();
    await settings.getByRole("button", { name: "Save changes" }).click();
    await settings.getByText("instructions: must be at most 8000 characters").waitFor();

    // The next reply's system prompt starts with the saved instructions.
    await org.owner.api.put(`${orgPath()}/integrations/modelrouter`, { api_key: KEY });
    const space = (await org.owner.api.post(`${orgPath()}/spaces`, { name: "Launch" })).body.id;
    const room = (await org.owner.api.get(`${orgPath()}/spaces/${space}/chat-rooms`)).body.chat_rooms[0].id;
    const mark = fake.requests.length;
    await org.owner.api.post(`${orgPath()}/spaces/${space}/chat-rooms/${room}/messages`, { content: "@Ada hi" });
    for (let i = 0; i < 200 && fake.requests.length === mark; i++) await Bun.sleep(25);
    expect(fake.requests[mark]?.body.messages[0].content).toStartWith(`${text}\n\nYou are Ada,`);
  });
});

describe("testing a provider key", () => {
  it("shows that the gateway accepted the stored key, then what it answered when it refuses it", async () => {
    await org.owner.api.put(`${orgPath()}/integrations/modelrouter`, { api_key: KEY });
    fake.handle(() => Response.json({ data: { label: "test key" } }));
    const page = await open("/settings/integrations");
    const panel = page.getByRole("region", { name: /Model gateway/ });
    await panel.getByRole("button", { name: "Test the model gateway key" }).click();
    await panel.getByRole("status").getByText("✓ The provider accepted the key").waitFor();
    expect(fake.requests.at(-1)?.path).toBe("/api/v1/key");
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    await screenshot(page, "settings-key-test");

    fake.handle(() => Response.json({ error: { code: 401, message: "User not found." } }, { status: 401 }));
    await panel.getByRole("button", { name: "Test the model gateway key" }).click();
    await panel.getByRole("status").getByText("✗ the model gateway answered 401: User not found.").waitFor();
    expect(await page.content()).not.toContain(KEY);
    // No key for cloud agents: nothing to test.
    const agents = page.getByRole("region", { name: /Cloud agents/ });
    await agents.getByText("Not set").waitFor();
    expect(await agents.getByRole("button", { name: /^Test/ }).count()).toBe(0);
  });
});
