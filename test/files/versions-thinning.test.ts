/**
 * Versions thin as they age (docs/api.md "Versions"): every version of the last 24 hours, then the last of each
 * hour for a week, then the last of each day; a dropped version's authors move to the kept one after it. The
 * server's versions run on a clock this test moves on; REST writes make the versions.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { startTestServer, type TestServer } from "../helpers/server";

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const START = Date.parse("2026-03-02T08:05:00.000Z");

let clock = START;
let server: TestServer;
let org: Org;
let ann: Person;
let bob: Person;
let files: string;

beforeAll(async () => {
  server = await startTestServer({ versionsClock: () => clock });
  org = await setupOrg(server);
  [ann, bob] = await Promise.all([addMember(org, ["Member"], "Ann"), addMember(org, ["Member"], "Bob")]);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Docs" });
  files = `/api/v1/organizations/${org.id}/spaces/${space.body.id}/files`;
});
afterAll(() => server.stop());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function put(fileId: string, text: string, as: Person): Promise<void> {
  const res = await as.api.put(`${files}/${fileId}/content`, undefined, { raw: text, contentType: "text/plain" });
  expect(res.status).toBe(200);
}

async function versions(
  fileId: string,
): Promise<{ checksum_sha256: string; author_user_ids: string[]; created_at: string }[]> {
  const res = await ann.api.get(`${files}/${fileId}/versions`);
  expect(res.status).toBe(200);
  return res.body.versions;
}

describe("thinning of old versions", () => {
  it("keeps the last version of each hour past a day, and of each day past a week, with every author", async () => {
    const file = (await ann.api.post(`${files}/text`, { name: "plan.md", content: "v0\n" })).body.node;
    // Day 1: a write every 20 minutes from 08:05 to 10:45, Ann and Bob in turn.
    const texts: string[] = [];
    for (let i = 1; i <= 9; i++, clock += 20 * 60_000) {
      texts.push(`v${i}\n`);
      await put(file.id, `v${i}\n`, i % 2 === 0 ? bob : ann);
    }
    const dayOne = await versions(file.id);
    // The creator's first text, then one per write: all kept while younger than a day.
    expect(dayOne.map((v) => v.checksum_sha256)).toEqual(["v9\n", ...texts.slice(0, 8).reverse(), "v0\n"].map(sha256));

    // Two days later, the next write thins day 1 to the last version of each of its hours (08:xx, 09:xx, 10:xx).
    clock = START + 2 * DAY;
    await put(file.id, "later\n", bob);
    const thinned = await versions(file.id);
    expect(thinned.map((v) => v.checksum_sha256)).toEqual(["later\n", "v9\n", "v6\n", "v3\n"].map(sha256));
    const authors = (v: { author_user_ids: string[] }) => [...v.author_user_ids].sort();
    // 08:xx: v0 (Ann created the file), v1 (Ann), v2 (Bob), v3 (Ann): all in the version kept for the hour.
    expect(authors(thinned[3] as { author_user_ids: string[] })).toEqual([ann.id, bob.id].sort());
    expect(new Date((thinned[3] as { created_at: string }).created_at).getUTCHours()).toBe(8);
    expect(new Date((thinned[2] as { created_at: string }).created_at).getUTCHours()).toBe(9);
    expect(new Date((thinned[1] as { created_at: string }).created_at).getUTCHours()).toBe(10);

    // Past a week, day 1 keeps one version: its last, with everyone who changed the file that day.
    clock = START + 9 * DAY;
    await put(file.id, "much later\n", ann);
    const daily = await versions(file.id);
    expect(daily.map((v) => v.checksum_sha256)).toEqual(["much later\n", "later\n", "v9\n"].map(sha256));
    expect(authors(daily[2] as { author_user_ids: string[] })).toEqual([ann.id, bob.id].sort());
    // Every kept version still gives its text back.
    const oldest = (await ann.api.get(`${files}/${file.id}/versions`)).body.versions.at(-1);
    expect((await ann.api.get(`${files}/${file.id}/versions/${oldest.id}/content`)).text).toBe("v9\n");
  });
});
