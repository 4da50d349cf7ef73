/**
 * PostgreSQL mode from the command line (contract §9), on a real PostgreSQL (helpers/postgres.ts), whichever engine
 * the other tests run on: `--database-url` on every command that opens the database, the secrets every node must
 * be given, `migrate-to-postgres` of an install made through the API, and `backup` / `restore` of a PostgreSQL
 * database, into PostgreSQL and into SQLite. A URL's password never shows in what a command prints.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { copyFileSync, existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { addMember, type Org, OWNER, type Person, setupOrg } from "../helpers/factories";
import { type Client, client } from "../helpers/http";
import { newDatabase, psql as psqlOutput } from "../helpers/postgres";
import { type RunResult, runCli, startTestServer, type TestServer, tempDir } from "../helpers/server";

const dirs: string[] = [];
const running: TestServer[] = [];

afterAll(async () => {
  for (const server of running) await server.stop().catch(() => {});
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One value psql printed. */
const psql = (url: string, sql: string) => psqlOutput(url, sql).trim();

function dir(): string {
  const made = tempDir("tandem-pg-cli-");
  dirs.push(made);
  return made;
}

/** A URL with a password (the test cluster trusts every connection, so any password is accepted). */
const PASSWORD = "s3cret-Pa55word";
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

/**
 * A server on `dataDir`: SQLite (`url` null) or the PostgreSQL database at `url`, its secrets those of `env`, else
 * of the data dir (whichever engine the other tests run on).
 */
async function serve(dataDir: string, url: string | null, env: Record<string, string> = {}): Promise<TestServer> {
  const unset = { JWT_SECRET: undefined, APP_SSH_ENCRYPTION_KEY: undefined } as unknown as Record<string, string>;
  const server = await startTestServer({ dataDir, env: { ...unset, TANDEM_DATABASE_URL: url ?? "", ...env } });
  running.push(server);
  return server;
}

async function stop(server: TestServer): Promise<void> {
  await server.stop();
  running.splice(running.indexOf(server), 1);
}

/** A command's run with nothing of the engine under test in its environment but what `env` says. */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return runCli(args, {
    env: { TANDEM_DATABASE_URL: undefined, JWT_SECRET: undefined, APP_SSH_ENCRYPTION_KEY: undefined, ...env },
  });
}

function oneLineFailure(result: RunResult): string {
  expect(result.code).toBe(1);
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

function json(result: RunResult): any {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

/** The owner's data dir secrets copied into another data dir, as an operator copies them to a new node. */
function copySecrets(from: string, to: string): void {
  for (const file of ["jwt_secret", "encryption_key"]) copyFileSync(join(from, file), join(to, file));
}

/** What the install holds, made through the API on SQLite, and the reads whose answers must survive each move. */
interface Install {
  dataDir: string;
  org: Org;
  member: Person;
  base: string;
  textId: string;
  uploadId: string;
  upload: Uint8Array;
  /** Every answer, read through `api` (the owner's or the member's token on the server there). */
  answers(server: TestServer, token?: string): Promise<Record<string, unknown>>;
}

async function form(api: Client, path: string, name: string, bytes: Uint8Array, type: string) {
  const body = new FormData();
  body.append("file", new Blob([bytes as BlobPart], { type }), name);
  const res = await fetch(`${api.base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${api.token}` },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** An install on SQLite made through the API: people, chat, tasks, a text file edited, uploads, an automation. */
async function makeInstall(): Promise<Install> {
  const dataDir = dir();
  const server = await serve(dataDir, null);
  const org = await setupOrg(server);
  const member = await addMember(org, ["Member"], "Mia Member");
  const owner = org.owner.api;
  const spaces = `/api/v1/organizations/${org.id}/spaces`;
  const space = await owner.post(spaces, { name: "Launch" });
  expect(space.status).toBe(201);
  const base = `${spaces}/${space.body.id}`;
  await owner.post(`${base}/members`, { user_id: member.id });
  const room = (await owner.get(`${base}/chat-rooms`)).body.chat_rooms[0].id as string;
  const messages = `${base}/chat-rooms/${room}/messages`;
  const hello = await owner.post(messages, { content: "Hello @Mia Member, the plan is ready" });
  expect(hello.status).toBe(201);
  expect((await member.api.post(messages, { thread_root_id: hello.body.message.id, content: "On it" })).status).toBe(
    201,
  );
  expect((await member.api.post(`${messages}/${hello.body.message.id}/reactions`, { emoji: "👍" })).status).toBe(201);
  const attached = await form(
    owner,
    `${base}/chat-rooms/${room}/uploads`,
    "plan.pdf",
    Buffer.from("%PDF-1"),
    "application/pdf",
  );
  expect(attached.status).toBe(201);
  expect((await owner.post(messages, { content: "The plan", attachments: [attached.body.attachment] })).status).toBe(
    201,
  );
  const column = (await owner.get(`${base}/board`)).body.columns[0].id;
  const task = await owner.post(`${base}/tasks`, {
    title: "Ship it",
    column_id: column,
    description: "by Friday",
    assignee_user_id: member.id,
  });
  expect(task.status).toBe(201);
  expect((await member.api.post(`${base}/tasks/${task.body.id}/messages`, { content: "Done soon" })).status).toBe(201);
  const text = await owner.post(`${base}/files/text`, { name: "notes.md", content: "# Notes\n" });
  expect(text.status).toBe(201);
  const textId = text.body.node.id as string;
  const edited = await owner.put(`${base}/files/${textId}/content`, undefined, {
    raw: "# Notes\n\nShip on Friday.\n",
    contentType: "text/markdown",
  });
  expect(edited.status).toBe(200);
  const upload = Uint8Array.from({ length: 600 * 1024 }, (_, i) => (i * 31) % 251);
  const uploaded = await form(owner, `${base}/files/upload`, "photo.bin", upload, "application/octet-stream");
  expect(uploaded.status).toBe(201);
  const automation = await owner.post(`${base}/automations`, {
    name: "Stand-up",
    kind: "scheduled",
    status: "active",
    config: { cron: "0 0 9 * * *", channel: "general", message: "Stand-up!" },
  });
  expect(automation.status).toBe(201);
  await stop(server);

  const answers = async (at: TestServer, token = org.owner.token) => {
    const api = client(at.url, token);
    const read = async (path: string) => {
      const res = await api.get(path);
      expect(res.status, path).toBe(200);
      return res.body;
    };
    const bytes = async (path: string) => {
      const res = await fetch(`${at.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, path).toBe(200);
      return new Bun.CryptoHasher("sha256").update(await res.arrayBuffer()).digest("hex");
    };
    return {
      me: await read("/api/v1/me"),
      members: await read(`/api/v1/organizations/${org.id}/members`),
      spaces: await read(spaces),
      rooms: await read(`${base}/chat-rooms`),
      messages: await read(messages),
      thread: await read(`${messages}/${hello.body.message.id}/replies`),
      board: await read(`${base}/board`),
      tasks: await read(`${base}/tasks`),
      taskMessages: await read(`${base}/tasks/${task.body.id}/messages`),
      files: await read(`${base}/files`),
      text: await bytes(`${base}/files/${textId}/content`),
      upload: await bytes(`${base}/files/${uploaded.body.node.id}/content`),
      attachment: await bytes(new URL(attached.body.attachment.url, at.url).pathname),
      automations: await read(`${base}/automations`),
      inbox: await client(at.url, member.token)
        .get(`/api/v1/me/inbox?org_id=${org.id}`)
        .then((r) => r.body),
    };
  };
  return { dataDir, org, member, base, textId, uploadId: uploaded.body.node.id, upload, answers };
}

let install: Install;
/** The answers of the SQLite install, read before any move. */
let before: Record<string, unknown>;

beforeAll(async () => {
  install = await makeInstall();
  const server = await serve(install.dataDir, null);
  before = await install.answers(server);
  await stop(server);
}, 120_000);

describe("tandem migrate-to-postgres", () => {
  let url: string;
  let migrated: RunResult;

  beforeAll(async () => {
    url = newDatabase();
    migrated = await cli([
      "migrate-to-postgres",
      "--data",
      install.dataDir,
      "--database-url",
      withPassword(url),
      "--json",
    ]);
  }, 60_000);

  it("prints every table copied with its rows, and the database without its password", () => {
    const out = json(migrated);
    expect(migrated.stdout).not.toContain(PASSWORD);
    expect(out.database).toBe(withPassword(url).replace(PASSWORD, "***"));
    const rows = Object.fromEntries(out.tables.map((t: { name: string; rows: number }) => [t.name, t.rows]));
    expect(rows.users).toBe(2);
    expect(rows.organizations).toBe(1);
    expect(rows.tasks).toBe(1);
    expect(rows.automations).toBe(1);
    expect(rows.blob_chunks).toBeGreaterThanOrEqual(3);
    expect(out.rows).toBe(out.tables.reduce((n: number, t: { rows: number }) => n + t.rows, 0));
    expect(Number(psql(url, "SELECT count(*) FROM chat_messages"))).toBe(rows.chat_messages);
  });

  it("gives a server on PostgreSQL the same answers, to the tokens the SQLite server signed (same JWT_SECRET)", async () => {
    const server = await serve(install.dataDir, url);
    try {
      expect(await install.answers(server)).toEqual(before);
      const login = await client(server.url).post("/api/v1/auth/login", {
        email: OWNER.email,
        password: OWNER.password,
      });
      expect(login.status).toBe(200);
      expect((await client(server.url, login.body.access_token).get("/api/v1/me")).status).toBe(200);
    } finally {
      await stop(server);
    }
  }, 60_000);

  it("sets each sequence past the rows copied: new rows of those tables get new keys", async () => {
    for (const [table, column] of [
      ["search_docs", "doc"],
      ["file_doc_updates", "seq"],
      ["jobs", "seq"],
    ]) {
      const max = Number(psql(url, `SELECT coalesce(max(${column}), 0) FROM ${table}`));
      const next = psql(
        url,
        `SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM ${table}_${column}_seq`,
      );
      expect(Number(next), table).toBeGreaterThan(max);
    }
    expect(Number(psql(url, "SELECT count(*) FROM search_docs"))).toBeGreaterThan(0);
    const server = await serve(install.dataDir, url);
    try {
      const api = client(server.url, install.org.owner.token);
      // A new folder is indexed for search in its own transaction: a row of search_docs, keyed by the sequence.
      const folder = await api.post(`${install.base}/files/folders`, { name: "After the move" });
      expect(folder.status, server.logs.filter((l) => l.includes('"error"')).join("\n")).toBe(201);
      const room = (await api.get(`${install.base}/chat-rooms`)).body.chat_rooms[0].id;
      const posted = await api.post(`${install.base}/chat-rooms/${room}/messages`, { content: "After the move" });
      expect(posted.status).toBe(201);
    } finally {
      await stop(server);
    }
  }, 60_000);

  it("refuses a database that is not empty, in one line, and leaves it as it was", async () => {
    const tables = psql(url, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'");
    const again = await cli(["migrate-to-postgres", "--data", install.dataDir, "--database-url", withPassword(url)]);
    const line = oneLineFailure(again);
    expect(line).toContain("is not empty");
    expect(line).not.toContain(PASSWORD);
    expect(psql(url, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")).toBe(tables);
  });

  it("refuses while a server holds the data dir, and copies nothing", async () => {
    const server = await serve(install.dataDir, null);
    const empty = newDatabase();
    try {
      const line = oneLineFailure(
        await cli(["migrate-to-postgres", "--data", install.dataDir, "--database-url", empty]),
      );
      expect(line).toContain("is in use by another `tandem serve`");
      expect(psql(empty, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")).toBe("0");
    } finally {
      await stop(server);
    }
  });

  it("carries the install's VAPID key over, encrypted: browsers' push subscriptions go on", async () => {
    const stored = psql(url, "SELECT value FROM settings WHERE key = 'push.vapid_private_key'");
    expect(stored).toStartWith("v1:");
    const onSqlite = await pushKeyOnSqlite();
    const server = await serve(install.dataDir, url);
    try {
      expect((await client(server.url).get("/api/v1/public/push-key")).body).toEqual(onSqlite);
    } finally {
      await stop(server);
    }
  });

  it("needs a database URL, and a data dir with a database", async () => {
    expect(oneLineFailure(await cli(["migrate-to-postgres", "--data", install.dataDir]))).toContain(
      "needs --database-url",
    );
    expect(
      oneLineFailure(await cli(["migrate-to-postgres", "--data", dir(), "--database-url", newDatabase()])),
    ).toContain("no database at");
  });
});

/** The install's answers from a server on `dataDir` and `url` (SQLite when null), stopped after. */
async function answersOn(dataDir: string, url: string | null): Promise<Record<string, unknown>> {
  const server = await serve(dataDir, url);
  try {
    return await install.answers(server);
  } finally {
    await stop(server);
  }
}

/** The push key the SQLite install answers (its data dir's VAPID key). */
async function pushKeyOnSqlite(): Promise<unknown> {
  const server = await serve(install.dataDir, null);
  try {
    return (await client(server.url).get("/api/v1/public/push-key")).body;
  } finally {
    await stop(server);
  }
}

describe("tandem backup and restore on PostgreSQL", () => {
  let source: string;
  let file: string;

  beforeAll(async () => {
    source = newDatabase();
    json(await cli(["migrate-to-postgres", "--data", install.dataDir, "--database-url", source, "--json"]));
    file = join(dir(), "tandem.backup");
  }, 60_000);

  it("writes a backup while a server serves the database, without the URL's password", async () => {
    const server = await serve(install.dataDir, source);
    try {
      const made = await cli(["backup", "--out", file, "--database-url", withPassword(source), "--data", dir()]);
      expect(made.code).toBe(0);
      expect(made.stdout).toContain("tables");
      expect(made.stdout + made.stderr).not.toContain(PASSWORD);
      expect(existsSync(file)).toBe(true);
      expect(readdirSync(join(file, "..")).filter((name) => name.includes(".partial-"))).toEqual([]);
    } finally {
      await stop(server);
    }
  }, 60_000);

  it("restores into an empty PostgreSQL database, which serves the same answers", async () => {
    const target = newDatabase();
    const node = dir();
    copySecrets(install.dataDir, node);
    const restored = await cli([
      "restore",
      "--from",
      file,
      "--database-url",
      withPassword(target),
      "--data",
      node,
      "--json",
    ]);
    const out = json(restored);
    expect(restored.stdout).not.toContain(PASSWORD);
    expect(out.tables.find((t: { name: string }) => t.name === "users").rows).toBe(2);
    expect(await answersOn(node, target)).toEqual(before);
  }, 60_000);

  it("restores into an empty SQLite data dir too: one format for both engines", async () => {
    const node = dir();
    copySecrets(install.dataDir, node);
    expect((await cli(["restore", "--from", file, "--data", node])).code).toBe(0);
    expect(await answersOn(node, null)).toEqual(before);
  }, 60_000);

  it("restores a backup of SQLite into PostgreSQL", async () => {
    const sqliteBackup = join(dir(), "sqlite.backup");
    expect((await cli(["backup", "--out", sqliteBackup, "--data", install.dataDir])).code).toBe(0);
    const target = newDatabase();
    const node = dir();
    copySecrets(install.dataDir, node);
    expect((await cli(["restore", "--from", sqliteBackup, "--database-url", target, "--data", node])).code).toBe(0);
    expect(await answersOn(node, target)).toEqual(before);
  }, 60_000);

  it("refuses to restore into a database that is not empty", async () => {
    const line = oneLineFailure(
      await cli(["restore", "--from", file, "--database-url", withPassword(source), "--data", dir()]),
    );
    expect(line).toContain("is not empty");
    expect(line).not.toContain(PASSWORD);
  });
});

describe("serve on PostgreSQL", () => {
  it("refuses to start without JWT_SECRET and APP_SSH_ENCRYPTION_KEY, in one line naming both, generating nothing", async () => {
    const node = dir();
    const url = newDatabase();
    const line = oneLineFailure(await cli(["serve", "--port", "0", "--data", node, "--database-url", url]));
    expect(line).toContain("JWT_SECRET");
    expect(line).toContain("APP_SSH_ENCRYPTION_KEY");
    expect(line).toContain("every node");
    expect(readdirSync(node)).toEqual([]);
    const onlyJwt = await cli(["serve", "--port", "0", "--data", node, "--database-url", url], {
      JWT_SECRET: "a-jwt-secret-of-at-least-32-characters-0123",
    });
    const named = oneLineFailure(onlyJwt);
    expect(named).toContain("APP_SSH_ENCRYPTION_KEY");
    expect(named).not.toContain("JWT_SECRET (");
  });

  it("has one VAPID key for every node, made by the first and stored encrypted in the database", async () => {
    const url = newDatabase();
    const env = {
      JWT_SECRET: "a-jwt-secret-of-at-least-32-characters-0123",
      APP_SSH_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64"),
    };
    const [first, second] = [dir(), dir()];
    const one = await serve(first, url, env);
    const two = await serve(second, url, env);
    try {
      const keys = await Promise.all([one, two].map((s) => client(s.url).get("/api/v1/public/push-key")));
      expect(keys[0]?.body.public_key).toBeString();
      expect(keys[1]?.body).toEqual(keys[0]?.body);
      expect(psql(url, "SELECT value FROM settings WHERE key = 'push.vapid_private_key'")).toStartWith("v1:");
      for (const node of [first, second]) expect(readdirSync(node)).not.toContain("vapid_private_key");
      // A node given another encryption key could read none of the stored secrets: refused at its start.
      const other = { ...env, APP_SSH_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString("base64") };
      await expect(serve(dir(), url, other)).rejects.toThrow(
        "the VAPID key stored in the database cannot be read with this APP_SSH_ENCRYPTION_KEY",
      );
    } finally {
      await stop(one);
      await stop(two);
    }
  });

  it("logs the database it serves without the URL's password", async () => {
    const url = withPassword(newDatabase());
    const server = await serve(dir(), url, {
      JWT_SECRET: "a-jwt-secret-of-at-least-32-characters-0123",
      APP_SSH_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64"),
    });
    try {
      const listening = server.logs.find((line) => line.includes("tandem is listening")) ?? "";
      expect(JSON.parse(listening).database).toBe(url.replace(PASSWORD, "***"));
      expect(server.logs.join("\n")).not.toContain(PASSWORD);
    } finally {
      await stop(server);
    }
  });
});

describe("--database-url", () => {
  const commands = [
    ["serve"],
    ["setup"],
    ["users", "add"],
    ["users", "list"],
    ["users", "reset-password"],
    ["provisioning", "set"],
    ["provisioning", "show"],
    ["provisioning", "clear"],
    ["backup"],
    ["restore"],
    ["migrate-to-postgres"],
  ];

  it("is in the help of every command that opens the database, with TANDEM_DATABASE_URL", async () => {
    for (const command of commands) {
      const help = await cli([...command, "--help"]);
      expect(help.stdout, command.join(" ")).toContain("--database-url <url>");
      expect(help.stdout.replace(/\s+/g, " "), command.join(" ")).toContain("env TANDEM_DATABASE_URL");
    }
  });

  it("takes setup, users and provisioning to PostgreSQL: the data dir gets no database", async () => {
    const node = dir();
    const url = newDatabase();
    const key = { APP_SSH_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64") };
    const on = ["--data", node, "--database-url", withPassword(url)];
    const setup = await cli([
      "setup",
      "--org-name",
      "Acme",
      "--admin-email",
      "o@acme.test",
      "--admin-password",
      "owner-pass",
      ...on,
    ]);
    expect(setup.code).toBe(0);
    expect((await cli(["users", "add", "--email", "b@acme.test", "--password", "b-password", ...on])).code).toBe(0);
    expect(
      (await cli(["users", "reset-password", "--email", "b@acme.test", "--password", "c-password", ...on])).code,
    ).toBe(0);
    const list = json(await cli(["users", "list", "--json", ...on]));
    expect(list.users.map((u: { email: string }) => u.email).sort()).toEqual(["b@acme.test", "o@acme.test"]);
    const set = [
      "provisioning",
      "set",
      "--base-url",
      "https://p.test",
      "--install-id",
      "i-1",
      "--install-secret",
      "s-1",
    ];
    expect((await cli([...set, ...on], key)).code).toBe(0);
    const shown = json(await cli(["provisioning", "show", "--json", ...on], key));
    expect(shown.provisioning_enabled).toBe(true);
    expect((await cli(["provisioning", "clear", ...on])).code).toBe(0);
    expect(psql(url, "SELECT count(*) FROM users")).toBe("2");
    expect(existsSync(join(node, "tandem.db"))).toBe(false);
  }, 60_000);

  it("refuses an empty value and a URL of another kind, in one line, without quoting it", async () => {
    expect(oneLineFailure(await cli(["users", "list", "--data", dir(), "--database-url", ""]))).toBe(
      "tandem: --database-url must not be empty",
    );
    const line = oneLineFailure(
      await cli(["users", "list", "--data", dir(), "--database-url", `mysql://u:${PASSWORD}@h/db`]),
    );
    expect(line).toBe("tandem: --database-url must be a postgres:// URL");
  });

  it("names a database that does not answer without its password", async () => {
    const line = oneLineFailure(
      await cli(["users", "list", "--data", dir(), "--database-url", `postgres://tandem:${PASSWORD}@127.0.0.1:1/none`]),
    );
    expect(line).toContain("postgres://tandem:***@127.0.0.1:1/none");
    expect(line).not.toContain(PASSWORD);
  });
});
