/**
 * dist/tandem when the filesystem of its data dir runs out of room or turns read-only, on real filesystems the
 * test mounts (as root; helpers/storage.ts):
 *
 * - A full disk (a 32 MiB tmpfs filled up while writers post chat messages, create tasks, upload files, PUT a
 *   text file and type in an editing socket): every write that cannot be stored answers 507 in words, the
 *   editing socket closes with 1011, reads go on, `/health` answers 503 "disk is full", and the process lives on.
 *   Once the space is freed, writes succeed again without a restart, what the editor typed meanwhile lands, and
 *   search catches up. Every write acknowledged before, during and after is there, after a restart too, and the
 *   stopped database passes `PRAGMA integrity_check`.
 * - `serve` on a full disk, or on a filesystem mounted read-only, exits 1 with one line saying so, and starts
 *   once the disk has room or is read-write again.
 * - The filesystem turned read-only by the kernel under the running server (an ext4 error with
 *   `errors=remount-ro`, the way a data dir goes read-only while files are open in it): every write answers a
 *   503 `the server cannot write to its disk: ...` that gives nothing of the inside away, reads go on, `/health` answers 503 "read-only", and
 *   the process lives on and stops when told. Once the filesystem is checked and mounted again, the server
 *   starts, and everything it acknowledged is there.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { allMessages } from "../helpers/factories";
import { type Client, client, type Reply } from "../helpers/http";
import {
  BINARY,
  binaryInstall,
  cleanEnv,
  type Leftovers,
  runCli,
  type SpawnedServer,
  tempDir,
} from "../helpers/server";
import { collabBase, type Editor, eventually, openEditor } from "../helpers/sockets";
import {
  failToReadOnly,
  fillDisk,
  freeDisk,
  integrity,
  mountExt4,
  mountTmpfs,
  remount,
  repairExt4,
  requireRoot,
  unmount,
} from "../helpers/storage";

const left: Leftovers = { dirs: [], spawned: [] };
const mounts: string[] = [];
const editors: Editor[] = [];

afterAll(async () => {
  for (const editor of editors) editor.destroy();
  await stopLeftRunning("SIGKILL");
  // Unmounted even when a test failed half-way: a read-only remount is unmounted as it is.
  for (const dir of mounts.reverse()) unmount(dir);
  for (const dir of left.dirs) rmSync(dir, { recursive: true, force: true });
});

/** How long any one request may take: a server that hangs on a failing disk fails the test, naming the request. */
const REQUEST_MS = 15_000;
const DISK_FULL = { error: "the server's disk is full: nothing can be stored until space is freed" };
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

type Kind = "post" | "task" | "upload" | "put" | "sign-in";

/** One answer to a write. */
interface Answer {
  kind: Kind;
  phase: string;
  status: number;
  body: unknown;
  text: string;
}

/** A space of a served install, and what the server acknowledged of the writes made in it. */
class Workspace {
  readonly answers: Answer[] = [];
  /** Acknowledged chat messages: id → content. */
  readonly posts = new Map<string, string>();
  /** Acknowledged tasks: id → title. */
  readonly tasks = new Map<string, string>();
  /** Acknowledged uploads: id → SHA-256 of the bytes sent. */
  readonly uploads = new Map<string, string>();
  /** The texts PUT to `textFile`, in order (one at a time), and the index of the last one acknowledged. */
  readonly puts = { sent: [] as string[], acked: -1 };
  api!: Client;
  spaceId = "";
  base = "";
  messages = "";
  column = "";
  textFile = "";
  typedFile = "";

  constructor(readonly orgId: string) {}

  /** Makes the space, its text files and the names the writes need. */
  async create(api: Client): Promise<void> {
    this.api = api;
    const space = await api.post(`/api/v1/organizations/${this.orgId}/spaces`, { name: "Storage" });
    expect(space.status).toBe(201);
    this.spaceId = space.body.id;
    this.base = `/api/v1/organizations/${this.orgId}/spaces/${this.spaceId}`;
    const room = (await api.get(`${this.base}/chat-rooms`)).body.chat_rooms[0].id;
    this.messages = `${this.base}/chat-rooms/${room}/messages`;
    const board = (await api.get(`${this.base}/board`)).body;
    this.column = board.columns[0].id;
    this.textFile = (await api.post(`${this.base}/files/text`, { name: "put.md", content: "" })).body.node.id;
    this.typedFile = (await api.post(`${this.base}/files/text`, { name: "typed.md", content: "" })).body.node.id;
  }

  private record(kind: Kind, phase: string, res: Reply): Reply {
    this.answers.push({ kind, phase, status: res.status, body: res.body, text: res.text });
    return res;
  }

  /** A chat message of about `size` characters, its words unique to it (`word`). */
  async post(phase: string, word: string, size = 0): Promise<Reply> {
    const content = `${phase} ${word} ${"x".repeat(size)}`.trim();
    const res = await this.api.post(this.messages, { content }, { signal: AbortSignal.timeout(REQUEST_MS) });
    if (res.status === 201) this.posts.set(res.body.message.id, content);
    return this.record("post", phase, res);
  }

  async task(phase: string, title: string, descriptionSize = 0): Promise<Reply> {
    const body = { title, column_id: this.column, description: "d".repeat(descriptionSize) };
    const res = await this.api.post(`${this.base}/tasks`, body, { signal: AbortSignal.timeout(REQUEST_MS) });
    if (res.status === 201) this.tasks.set(res.body.id, title);
    return this.record("task", phase, res);
  }

  /** A binary upload of `size` random bytes, as a browser sends it (multipart, streamed). */
  async upload(phase: string, name: string, size: number): Promise<Reply> {
    const bytes = randomBytes(size);
    const form = new FormData();
    form.append("file", new Blob([bytes], { type: "application/octet-stream" }), name);
    const res = await fetch(`${this.api.base}${this.base}/files/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.api.token}` },
      body: form,
      signal: AbortSignal.timeout(REQUEST_MS),
    });
    const text = await res.text();
    const reply: Reply = { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
    if (reply.status === 201) this.uploads.set(reply.body.node.id, sha256(bytes));
    return this.record("upload", phase, reply);
  }

  /** Replaces `textFile`'s text with `lines` new lines (never two PUTs at once: the last acknowledged stands). */
  async put(phase: string, tag: string, lines: number): Promise<Reply> {
    const text = `# ${tag}\n\n${Array.from({ length: lines }, (_, i) => `${tag} line ${i} ${"t".repeat(60)}`).join("\n")}\n`;
    this.puts.sent.push(text);
    const index = this.puts.sent.length - 1;
    const res = await this.api.put(`${this.base}/files/${this.textFile}/content`, undefined, {
      raw: text,
      contentType: "text/markdown",
      signal: AbortSignal.timeout(REQUEST_MS),
    });
    if (res.status === 200) this.puts.acked = index;
    return this.record("put", phase, res);
  }

  /** Signing in stores a session: a write too. */
  async signIn(phase: string): Promise<Reply> {
    const res = await client(this.api.base).post(
      "/api/v1/auth/login",
      { email: "o@acme.test", password: "owner-pass" },
      { signal: AbortSignal.timeout(REQUEST_MS) },
    );
    return this.record("sign-in", phase, res);
  }

  private rounds = 0;

  /** One write of each kind, small. */
  async oneOfEach(phase: string): Promise<Reply[]> {
    const n = ++this.rounds;
    return [
      await this.post(phase, `${phase}${n}post`),
      await this.task(phase, `${phase} task ${n}`),
      await this.upload(phase, `${phase}-${n}.bin`, 4096),
      await this.put(phase, `${phase} ${n}`, 3),
      await this.signIn(phase),
    ];
  }

  answersOf(phase: string): Answer[] {
    return this.answers.filter((a) => a.phase === phase);
  }

  /** The text `GET .../content` of a file answers now. */
  async content(api: Client, fileId: string): Promise<{ status: number; bytes: Uint8Array }> {
    const res = await fetch(`${api.base}${this.base}/files/${fileId}/content`, {
      headers: { authorization: `Bearer ${api.token}` },
      signal: AbortSignal.timeout(REQUEST_MS),
    });
    return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  /**
   * What the server has against what it acknowledged: each acknowledged message, task and upload (its exact
   * bytes), and the last acknowledged text of `textFile` and nothing after it (a PUT that failed stored none
   * of itself). Answers the text of `typedFile`.
   */
  async expectEverythingAcknowledged(api: Client): Promise<string> {
    const stored = new Map((await allMessages(api, this.messages)).map((m) => [m.id, m.content]));
    expect([...this.posts].filter(([id, content]) => stored.get(id) !== content)).toEqual([]);
    const tasks = (await api.get(`${this.base}/tasks`, { signal: AbortSignal.timeout(REQUEST_MS) })).body.tasks as {
      id: string;
      title: string;
    }[];
    const titles = new Map(tasks.map((t) => [t.id, t.title]));
    expect([...this.tasks].filter(([id, title]) => titles.get(id) !== title)).toEqual([]);
    for (const [id, checksum] of this.uploads) {
      const { status, bytes } = await this.content(api, id);
      expect({ id, status, checksum: sha256(bytes) }).toEqual({ id, status: 200, checksum });
    }
    const text = await this.content(api, this.textFile);
    expect(new TextDecoder().decode(text.bytes)).toBe(this.puts.sent[this.puts.acked] as string);
    return new TextDecoder().decode((await this.content(api, this.typedFile)).bytes);
  }
}

/** Asks `/health` until it answers `status` (each check's answer stands a second), and answers its body. */
async function healthBecomes(server: SpawnedServer, status: number): Promise<unknown> {
  const ask = () => client(server.url).get("/health", { signal: AbortSignal.timeout(REQUEST_MS) });
  let last = await ask();
  for (let i = 0; i < 30 && last.status !== status; i++) {
    await Bun.sleep(200);
    last = await ask();
  }
  expect(last.status).toBe(status);
  return last.body;
}

/** The process lives on: it neither exited nor was killed (the reads around this check show it answers). */
function expectAlive(server: SpawnedServer): void {
  expect({ exitCode: server.proc.exitCode, signal: server.proc.signalCode }).toEqual({ exitCode: null, signal: null });
}

/**
 * The server's log lines at level error, each with what it is about: its message, and the file it names when
 * it names one (a failure of one file is logged for that file).
 */
function errorLines(server: SpawnedServer): { about: string; line: string }[] {
  return server.output.flatMap((line) => {
    let entry: { level?: unknown; msg?: string; nodeId?: string; file_id?: string };
    try {
      entry = JSON.parse(line);
    } catch {
      return [{ about: "(not a log line)", line }];
    }
    if (entry.level !== "error" && entry.level !== "fatal") return [];
    return [{ about: [entry.msg, entry.nodeId ?? entry.file_id].filter(Boolean).join(" "), line }];
  });
}

/** Stops the servers a failed test left running, so that the next one starts on a data dir no server has open. */
async function stopLeftRunning(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  for (const s of left.spawned) if (s.proc.exitCode === null && s.proc.signalCode === null) await s.stop(signal);
}

/**
 * `tandem serve` on a data dir it must refuse: its exit code and what it printed. One that starts after all is
 * killed after 15 s, and then has no exit code of its own.
 */
async function refusedStart(dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = Bun.spawn([BINARY, "serve", "--port", "0", "--host", "127.0.0.1", "--data", dataDir], {
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  const kill = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(kill);
  return { code: proc.signalCode === null ? proc.exitCode : null, stdout, stderr };
}

/** `tandem setup` of a new install (the data dir to add). */
const SETUP = ["setup", "--org-name", "Fresh", "--admin-email", "f@fresh.test", "--admin-password", "fresh-pass"];

/** A refusal to start: exit code 1, and one line on stderr, `tandem: ...`, without a stack trace. */
function expectOneLineRefusal(result: { code: number | null; stdout: string; stderr: string }, says: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^tandem: /);
  expect(lines[0]).toMatch(says);
}

describe("a full disk", () => {
  let mount: string;
  let install: Awaited<ReturnType<typeof binaryInstall>>;
  let ws: Workspace;

  beforeAll(async () => {
    requireRoot("test/reliability/storage.test.ts");
    mount = tempDir("tandem-full-disk-");
    left.dirs.push(mount);
    mountTmpfs(mount, 32);
    mounts.push(mount);
    install = await binaryInstall("", left, {}, join(mount, "data"));
    ws = new Workspace(install.orgId);
  }, 30_000);

  it("answers 507 to every write it cannot store, serves reads, and recovers without a restart, losing nothing it acknowledged", async () => {
    const { server, api } = await install.start();
    await ws.create(api);
    const editor = openEditor(collabBase(server.url, install.orgId, ws.spaceId), ws.typedFile, api.token as string);
    editors.push(editor);
    const closes: number[] = [];
    editor.provider.on("connection-close", (event) => {
      if (event) closes.push(event.code);
    });
    await editor.synced();
    editor.insert(0, "typed before\n");
    const typed = async () => new TextDecoder().decode((await ws.content(api, ws.typedFile)).bytes);
    for (let i = 0; i < 100 && (await typed()) !== editor.text(); i++) await Bun.sleep(50);
    expect(await typed()).toBe(editor.text());

    // Before: every write lands.
    for (const res of await ws.oneOfEach("before")) expect(res.status).toBeLessThan(300);

    // Writers of each kind, and an editor typing; the disk fills up under them once each kind has landed (or
    // at the first write that fails: the writers filled it by themselves). They go on until each kind has
    // failed twice and the editor's socket was closed for an update it could not store.
    const kinds = ["post", "task", "upload", "put", "sign-in"] as const;
    const count = (kind: Kind, landed: boolean) =>
      ws.answersOf("full").filter((a) => a.kind === kind && a.status < 300 === landed).length;
    const deadline = Date.now() + 30_000;
    let filler: string | undefined;
    const filling = (async () => {
      const fill = () => kinds.every((kind) => count(kind, true) > 0) || kinds.some((kind) => count(kind, false) > 0);
      while (!fill() && Date.now() < deadline) await Bun.sleep(5);
      filler = fillDisk(mount);
    })();
    const going = (kind: Kind) => count(kind, false) < 2 && Date.now() < deadline;
    let line = 0;
    const typing = (async () => {
      while (!closes.includes(1011) && Date.now() < deadline) {
        editor.insert(editor.text().length, `typed while writing ${line++}\n`);
        await Bun.sleep(20);
      }
    })();
    const writer = async (kind: Kind, write: (n: number) => Promise<unknown>) => {
      for (let n = 0; going(kind); n++) await write(n);
    };
    await Promise.all([
      ...[0, 1, 2].map((w) => writer("post", (n) => ws.post("full", `w${w}p${n}z`, 30_000))),
      ...[0, 1].map((w) => writer("task", (n) => ws.task("full", `full w${w} task ${n}`, 20_000))),
      writer("upload", (n) => ws.upload("full", `full-${n}.bin`, 300_000)),
      writer("put", (n) => ws.put("full", `full ${n}`, 800)),
      writer("sign-in", () => ws.signIn("full")),
    ]);
    await Promise.all([filling, typing]);
    expect(filler).toBeDefined();

    // Writes landed while the disk filled up, and each kind failed once it was full (a small write may still
    // land now and then, in room a larger one could not use); each failure said why, in words, and nothing
    // else: no hang, no 500, no stack.
    expect(ws.answersOf("full").filter((a) => a.status < 300).length).toBeGreaterThan(0);
    for (const kind of kinds) expect({ kind, failed: count(kind, false) >= 2 }).toEqual({ kind, failed: true });
    for (const answer of ws.answersOf("full").filter((a) => a.status >= 300)) {
      expect({ kind: answer.kind, status: answer.status, body: answer.body }).toEqual({
        kind: answer.kind,
        status: 507,
        body: DISK_FULL,
      });
    }
    // The editor's socket closed with 1011 ("could not store"); the stock client keeps reconnecting.
    expect(closes).toContain(1011);
    expect(await healthBecomes(server, 503)).toEqual({ error: "the data directory's disk is full" });
    // The disk stays full a while: background work (search indexing, checkpoints) keeps failing meanwhile.
    await Bun.sleep(2500);

    // Reads go on, and show everything acknowledged so far.
    await ws.expectEverythingAcknowledged(api);
    expect((await api.get(`${ws.base}/board`)).status).toBe(200);
    expectAlive(server);

    // Space returns: writes land again, without a restart; the editor's text lands; search catches up.
    freeDisk(filler as string);
    expect(await healthBecomes(server, 200)).toMatchObject({ status: "ok" });
    for (const res of await ws.oneOfEach("after")) expect(res.status).toBeLessThan(300);
    editor.insert(editor.text().length, "typed after\n");
    await eventually(() => editor.provider.wsconnected && editor.provider.synced, "the editor to reconnect", 10_000);
    for (let i = 0; i < 100 && (await typed()) !== editor.text(); i++) await Bun.sleep(100);
    expect(await typed()).toBe(editor.text());
    expect(editor.text()).toContain(`typed while writing ${line - 1}\n`);
    // Search indexes in batches after the posts: the batch that failed while the disk was full lands now.
    const searched = [...ws.posts.values()].filter((c) => c.startsWith("full ")).map((c) => c.split(" ")[1] as string);
    for (const word of searched.slice(-5)) {
      const find = () => api.get(`/api/v1/organizations/${install.orgId}/search?q=${word}&types=message`);
      let hits = 0;
      for (let i = 0; i < 50 && hits === 0; i++) {
        hits = ((await find()).body.results as unknown[]).length;
        if (hits === 0) await Bun.sleep(100);
      }
      expect({ word, hits }).toEqual({ word, hits: 1 });
    }
    const text = editor.text();
    editor.destroy();
    editors.splice(editors.indexOf(editor), 1);

    // No failure went unhandled, and one that lasts (tried again and again) is logged once a minute, not at
    // every try (docs/operations.md).
    const errors = errorLines(server);
    expect(errors.filter((e) => e.about === "unhandled error").map((e) => e.line)).toEqual([]);
    const times = new Map<string, number>();
    for (const e of errors) times.set(e.about, (times.get(e.about) ?? 0) + 1);
    expect([...times].filter(([, n]) => n > 1)).toEqual([]);

    expect(await server.stop("SIGTERM")).toBe(0);
    expect(integrity(install.dataDir)).toBe("ok");
    const again = await install.start();
    expect(await ws.expectEverythingAcknowledged(again.api)).toBe(text);
    expect(await again.server.stop("SIGTERM")).toBe(0);
  }, 60_000);

  it("refuses to start on a full disk in one line, and starts once there is room", async () => {
    await stopLeftRunning();
    const filler = fillDisk(mount);
    try {
      expectOneLineRefusal(await refusedStart(install.dataDir), /: the disk holding \S+ is full: free some space/);
      // A new install with a little room left (its migrations need more) is refused as plainly, and is made once
      // there is room (below).
      truncateSync(filler, statSync(filler).size - 256 * 1024);
      const fresh = join(mount, "fresh");
      const setup = await runCli([...SETUP, "--data", fresh], { kind: "binary" });
      expectOneLineRefusal(
        setup,
        new RegExp(`^tandem: the disk holding ${fresh} is full: free some space, then try again$`),
      );
    } finally {
      freeDisk(filler);
    }
    expect((await runCli([...SETUP, "--data", join(mount, "fresh")], { kind: "binary" })).code).toBe(0);
    const { server, api } = await install.start();
    ws.api = api;
    for (const res of await ws.oneOfEach("restarted")) expect(res.status).toBeLessThan(300);
    await ws.expectEverythingAcknowledged(api);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(integrity(install.dataDir)).toBe("ok");
  }, 30_000);

  it("refuses to start on a read-only filesystem in one line, and starts once it is read-write", async () => {
    await stopLeftRunning();
    remount(mount, "ro");
    try {
      expectOneLineRefusal(
        await refusedStart(install.dataDir),
        /: the filesystem holding \S+ is read-only: mount it read-write/,
      );
      // A data dir still to be made there is refused as plainly.
      const missing = join(mount, "another");
      expectOneLineRefusal(
        await refusedStart(missing),
        new RegExp(
          `^tandem: cannot create the data dir ${missing}: the filesystem holding ${mount} is read-only: mount it read-write`,
        ),
      );
    } finally {
      remount(mount, "rw");
    }
    const { server, api } = await install.start();
    ws.api = api;
    for (const res of await ws.oneOfEach("read-write")) expect(res.status).toBeLessThan(300);
    await ws.expectEverythingAcknowledged(api);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(integrity(install.dataDir)).toBe("ok");
  }, 30_000);
});

describe("a filesystem the kernel turns read-only under the server", () => {
  let mount: string;
  let image: string;
  let install: Awaited<ReturnType<typeof binaryInstall>>;
  let ws: Workspace;

  beforeAll(async () => {
    requireRoot("test/reliability/storage.test.ts");
    const dir = tempDir("tandem-read-only-");
    left.dirs.push(dir);
    image = join(dir, "ext4.img");
    mount = join(dir, "mnt");
    mkdirSync(mount);
    mountExt4(image, mount, 64);
    mounts.push(mount);
    install = await binaryInstall("", left, {}, join(mount, "data"));
    ws = new Workspace(install.orgId);
  }, 30_000);

  it("answers each write 503 in words, serves reads, and keeps everything it acknowledged once repaired", async () => {
    const { server, api } = await install.start();
    await ws.create(api);
    const editor = openEditor(collabBase(server.url, install.orgId, ws.spaceId), ws.typedFile, api.token as string);
    editors.push(editor);
    const closes: number[] = [];
    editor.provider.on("connection-close", (event) => {
      if (event) closes.push(event.code);
    });
    await editor.synced();
    editor.insert(0, "typed before\n");
    for (let i = 0; i < 3; i++) for (const res of await ws.oneOfEach("before")) expect(res.status).toBeLessThan(300);
    await eventually(() => editor.provider.synced, "the editor to sync");
    // What was acknowledged is on the disk within about a tenth of a second (docs/operations.md): the checkpoint
    // thread syncs it. Then the filesystem fails as at an I/O error: read-only, from here on.
    await Bun.sleep(1000);
    failToReadOnly(mount);

    for (let i = 0; i < 2; i++) await ws.oneOfEach("read-only");
    await ws.post("read-only", "large", 30_000);
    await ws.upload("read-only", "large.bin", 300_000);
    editor.insert(editor.text().length, "typed on a read-only disk\n");
    await eventually(() => closes.includes(1011), "the editing socket to close with 1011", 10_000);
    editor.destroy();
    editors.splice(editors.indexOf(editor), 1);
    for (const answer of ws.answersOf("read-only")) {
      // 503 in words of its own: no stack, no path, nothing of SQLite's.
      expect({ kind: answer.kind, status: answer.status, body: answer.body }).toEqual({
        kind: answer.kind,
        status: 503,
        body: { error: "the server cannot write to its disk: nothing can be stored until it is repaired" },
      });
      expect(answer.text).not.toMatch(/SQLite|sqlite|\bat \S+ \(|\/tmp\/|I\/O|EROFS/);
    }
    expect(await healthBecomes(server, 503)).toEqual({ error: "the data directory's filesystem is read-only" });
    await ws.expectEverythingAcknowledged(api);
    expectAlive(server);

    // The operator stops the server, checks the filesystem and mounts it again; the server starts on it.
    expect(await server.stop("SIGTERM")).toBe(0);
    repairExt4(image, mount);
    expect(integrity(install.dataDir)).toBe("ok");
    const again = await install.start();
    // Its keys, generated at its first start, were on the disk: none is generated anew (which would sign everyone
    // out, and leave every secret stored under the old encryption key unreadable).
    expect(again.server.output.filter((line) => line.includes("generated one"))).toEqual([]);
    ws.api = again.api;
    expect(await ws.expectEverythingAcknowledged(again.api)).toBe("typed before\n");
    for (const res of await ws.oneOfEach("repaired")) expect(res.status).toBeLessThan(300);
    expect(await again.server.stop("SIGTERM")).toBe(0);
    expect(integrity(install.dataDir)).toBe("ok");
  }, 60_000);
});
