/**
 * Email (contract §10) through a real SMTP server on loopback (`smtp-server`, AUTH on, plain SMTP): invites that
 * name an address, digests of inbox items left unread for 10 minutes, `all` and `off`, access checked again at
 * send time, retries after a failure, and nothing at all without `TANDEM_SMTP_URL`. The server runs in this
 * process: the 10 minutes pass by moving its clock (`setSystemTime`), and the sweep looks every 50 ms.
 */
import { afterAll, beforeAll, describe, expect, it, setSystemTime } from "bun:test";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { client } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";
import { type FakeSmtp, later, startFakeSmtp } from "../helpers/smtp";
import { castOn, generalOf, inbox, readUpTo, say, spacePath, type World } from "./world";

const FROM = "Tandem <tandem@acme.test>";
const MINUTE = 60 * 1000;

let smtp: FakeSmtp;
let w: World;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  const server = await startTestServer({
    env: { TANDEM_SMTP_URL: smtp.url, TANDEM_SMTP_FROM: FROM },
    email: { sweepMs: 50 },
  });
  w = await castOn(server);
});
afterAll(async () => {
  setSystemTime();
  await w.server.stop();
  await smtp.stop();
});

/** The emails about inbox items to `address` (each person here also got the invite that made them a member). */
const notices = (address: string) => smtp.to(address).filter((email) => !email.subject.includes(" invited you to "));

/** Waits until `address` has `count` emails about inbox items; then those emails. */
async function emailsTo(address: string, count: number, timeoutMs = 5000) {
  const until = performance.now() + timeoutMs;
  while (notices(address).length < count && performance.now() < until) await Bun.sleep(20);
  return notices(address);
}

const settings = () => `/api/v1/me/notifications?org_id=${w.org.id}`;

describe("GET /api/v1/public/instance", () => {
  it("says email is on when SMTP is set up", async () => {
    const res = await client(w.server.url).get("/api/v1/public/instance");
    expect(res.body.email_enabled).toBe(true);
  });
});

describe("invites by email", () => {
  it("an invite that names an address is emailed with the link that accepts it; the answer says `emailed`", async () => {
    const res = await w.owner.api.post(`/api/v1/organizations/${w.org.id}/invites`, { email: "newcomer@acme.test" });
    expect(res.status).toBe(201);
    expect(res.body.emailed).toBe(true);
    const until = performance.now() + 5000;
    while (smtp.to("newcomer@acme.test").length === 0 && performance.now() < until) await Bun.sleep(20);
    const [email, twice] = smtp.to("newcomer@acme.test");
    expect(twice).toBeUndefined();
    if (!email) throw new Error("no invite email");
    expect(email.from).toBe(FROM);
    expect(email.subject).toBe("Olivia Owner invited you to Acme on Tandem");
    const link = `${w.server.url}/invite?token=${res.body.token}`;
    expect(email.text).toContain(`Accept the invite: ${link}`);
    expect(email.html).toContain(`href="${link}"`);
    expect(w.server.logs.join("\n")).not.toContain(res.body.token);
  });

  it("an invite without an address is not emailed", async () => {
    const before = smtp.received.length;
    const res = await w.owner.api.post(`/api/v1/organizations/${w.org.id}/invites`, {});
    expect(res.status).toBe(201);
    expect(res.body.emailed).toBe(false);
    await Bun.sleep(200);
    expect(smtp.received.length).toBe(before);
  });
});

describe("digests", () => {
  it("items unread for 10 minutes are emailed as one digest per person, escaped in HTML, and only once", async () => {
    await say(w, w.ada, "@Bob Builder can you check <b>the launch</b>?");
    await say(w, w.owner, "@Bob Builder and the budget & dates");
    // Not yet: nothing waited 10 minutes.
    await later(5 * MINUTE, () => Bun.sleep(300));
    expect(notices(w.bob.email)).toHaveLength(0);
    const [digest] = await later(11 * MINUTE, () => emailsTo(w.bob.email, 1));
    if (!digest) throw new Error("no digest");
    expect(digest.subject).toBe("2 things need you in Acme");
    expect(digest.from).toBe(FROM);
    expect(digest.text).toContain("Hi Bob Builder,");
    expect(digest.text).toContain(
      "- Ada Lovelace mentioned you in Launch:\n  @Bob Builder can you check <b>the launch</b>?",
    );
    expect(digest.text).toContain("- Olivia Owner mentioned you in Launch:\n  @Bob Builder and the budget & dates");
    expect(digest.text).toContain(`${w.server.url}/spaces/${w.spaceId}/chat/${w.roomId}`);
    expect(digest.html).toContain("can you check &lt;b&gt;the launch&lt;/b&gt;?");
    expect(digest.html).toContain("the budget &amp; dates");
    expect(digest.html).not.toContain("<b>the launch");
    // Emailing reads nothing: the items wait in the inbox.
    expect((await inbox(w, w.bob)).unread).toBe(2);
    await later(12 * MINUTE, () => Bun.sleep(300));
    expect(notices(w.bob.email)).toHaveLength(1);
  });

  it("an item read within 10 minutes is not emailed", async () => {
    const carl = await addMember(w.org, ["Member"], "Carl Reader");
    const dora = await addMember(w.org, ["Member"], "Dora Away");
    const message = await say(w, w.ada, "@Carl Reader @Dora Away standup?");
    expect((await readUpTo(w, carl, message.id)).status).toBe(204);
    // Dora's digest shows the sweep went by; Carl's read item was not in it.
    await later(11 * MINUTE, () => emailsTo(dora.email, 1));
    await later(11 * MINUTE, () => Bun.sleep(300));
    expect(notices(carl.email)).toHaveLength(0);
    expect(notices(dora.email)).toHaveLength(1);
  });

  it("`off` emails nothing; `all` emails each item on its own after a minute", async () => {
    const erin = await addMember(w.org, ["Member"], "Erin Off");
    const finn = await addMember(w.org, ["Member"], "Finn All");
    expect((await erin.api.put(settings(), { email: "off" })).status).toBe(200);
    expect((await finn.api.put(settings(), { email: "all" })).status).toBe(200);
    await say(w, w.ada, "@Erin Off @Finn All first");
    await say(w, w.owner, "@Finn All second");
    const emails = await later(2 * MINUTE, () => emailsTo(finn.email, 2));
    expect(emails.map((e) => e.subject).sort()).toEqual([
      "Ada Lovelace mentioned you in Launch (Acme)",
      "Olivia Owner mentioned you in Launch (Acme)",
    ]);
    expect(emails.find((e) => e.subject.startsWith("Ada"))?.text).toContain("@Erin Off @Finn All first");
    await later(11 * MINUTE, () => Bun.sleep(300));
    expect(notices(erin.email)).toHaveLength(0);
    expect(notices(finn.email)).toHaveLength(2);
  });

  it("a private space's item is not emailed to someone who lost access to it before the digest", async () => {
    const gus = await addMember(w.org, ["Member"], "Gus Removed");
    await w.owner.api.post(`${spacePath(w, w.privateId)}/members`, { user_id: gus.id });
    await say(w, w.owner, "@Gus Removed the secret codename is Falcon", w.privateRoomId, w.privateId);
    await say(w, w.owner, "@Gus Removed public hello");
    expect((await w.owner.api.delete(`${spacePath(w, w.privateId)}/members/${gus.id}`)).status).toBe(204);
    const [digest] = await later(11 * MINUTE, () => emailsTo(gus.email, 1));
    if (!digest) throw new Error("no digest");
    expect(digest.subject).toBe("1 thing needs you in Acme");
    expect(digest.text).toContain("public hello");
    expect(digest.raw).not.toContain("Falcon");
    expect(digest.raw).not.toContain("Secret");
  });

  it("an SMTP failure is retried later: the digest arrives once, nothing lost or doubled", async () => {
    const hank = await addMember(w.org, ["Member"], "Hank Retry");
    const invited = performance.now() + 5000;
    while (smtp.to(hank.email).length === 0 && performance.now() < invited) await Bun.sleep(20);
    await say(w, w.ada, "@Hank Retry ping");
    smtp.failNext(1);
    await later(11 * MINUTE, () => Bun.sleep(300));
    expect(notices(hank.email)).toHaveLength(0);
    // The sweep pauses 30 s after a failure: 12 minutes on, it is over.
    const emails = await later(12 * MINUTE, () => emailsTo(hank.email, 1));
    expect(emails).toHaveLength(1);
    expect(emails[0]?.text).toContain("@Hank Retry ping");
    await later(12 * MINUTE, () => Bun.sleep(300));
    expect(notices(hank.email)).toHaveLength(1);
    expect(w.server.logs.some((line) => line.includes("sending email failed; trying again later"))).toBe(true);
  });

  it("never writes the SMTP password into the log", () => {
    expect(w.server.logs.length).toBeGreaterThan(0);
    expect(w.server.logs.join("\n")).not.toContain(smtp.password);
  });
});

describe("a wrong SMTP password", () => {
  it("fails the email, not the invite, and the log names the failure without the password", async () => {
    const server = await startTestServer({
      env: { TANDEM_SMTP_URL: `smtp://tandem:wrong-Pa55word@127.0.0.1:${smtp.port}`, TANDEM_SMTP_FROM: FROM },
    });
    const org = await setupOrg(server);
    const res = await org.owner.api.post(`/api/v1/organizations/${org.id}/invites`, { email: "nobody@acme.test" });
    expect(res.status).toBe(201);
    const until = performance.now() + 5000;
    const failed = () => server.logs.find((line) => line.includes("the invite could not be emailed"));
    while (!failed() && performance.now() < until) await Bun.sleep(20);
    await server.stop();
    expect(JSON.parse(failed() ?? "{}").smtp_code).toBe("EAUTH");
    expect(server.logs.join("\n")).not.toContain("wrong-Pa55word");
    expect(server.logs.join("\n")).not.toContain(res.body.token);
    expect(smtp.to("nobody@acme.test")).toHaveLength(0);
  });
});

describe("without SMTP", () => {
  let server: TestServer;
  let org: Org;
  let ivy: Person;
  beforeAll(async () => {
    server = await startTestServer({ email: { sweepMs: 50 } });
    org = await setupOrg(server);
    ivy = await addMember(org, ["Member"], "Ivy Quiet");
  });
  afterAll(() => server.stop());

  it("sends nothing, breaks nothing, and the public instance says email is off", async () => {
    expect((await client(server.url).get("/api/v1/public/instance")).body.email_enabled).toBe(false);
    const invite = await org.owner.api.post(`/api/v1/organizations/${org.id}/invites`, { email: "quiet@acme.test" });
    expect(invite.status).toBe(201);
    expect(invite.body.emailed).toBe(false);
    const spaceId = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Quiet" })).body.id;
    const roomId = await generalOf(org.owner.api, org.id, spaceId);
    const posted = await org.owner.api.post(
      `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms/${roomId}/messages`,
      { content: "@Ivy Quiet hello" },
    );
    expect(posted.status).toBe(201);
    const before = smtp.received.length;
    await later(11 * MINUTE, () => Bun.sleep(300));
    expect(smtp.received.length).toBe(before);
    const items = await ivy.api.get(`/api/v1/me/inbox?org_id=${org.id}`);
    expect(items.body.unread).toBe(1);
  });
});
