import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let files: string;

interface Node {
  id: string;
  name: string;
  kind: string;
  parent_id: string | null;
  mime_type: string | null;
  size_bytes: number | null;
  checksum_sha256: string | null;
  editable: boolean;
}

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  files = `/api/v1/organizations/${org.id}/spaces/${space.body.id}/files`;
});
afterAll(() => server.stop());

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

let counter = 0;
/** A name no other test uses. */
const unique = (name: string) => `${++counter}-${name}`;

async function textFile(name: string, content: string): Promise<Node> {
  const res = await member.api.post(`${files}/text`, { name, content });
  if (res.status !== 201) throw new Error(`text create failed: ${res.status} ${res.text}`);
  return res.body.node;
}

/** A multipart upload as a browser sends it. */
async function upload(
  parts: { file?: { bytes: Uint8Array; name: string; type?: string }; parent_id?: string },
  token = member.token,
) {
  const form = new FormData();
  if (parts.parent_id !== undefined) form.append("parent_id", parts.parent_id);
  if (parts.file) {
    const blob = new Blob(
      [parts.file.bytes as BlobPart],
      parts.file.type === undefined ? {} : { type: parts.file.type },
    );
    form.append("file", blob, parts.file.name);
  }
  const res = await fetch(`${server.url}${files}/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** GET .../content as bytes. */
async function download(id: string, token = member.token) {
  const res = await fetch(`${server.url}${files}/${id}/content`, { headers: { authorization: `Bearer ${token}` } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes };
}

/** PUT .../content with a raw body. */
function putContent(id: string, bytes: Uint8Array | string, contentType: string, as: Person = member) {
  return as.api.put(`${files}/${id}/content`, undefined, { raw: bytes, contentType });
}

/** The node as GET answers it now. */
async function nodeOf(id: string): Promise<Node> {
  return (await member.api.get(`${files}/${id}`)).body.node;
}

/** Asserts that the node's size and checksum describe exactly the bytes the content route returns. */
async function expectConsistent(id: string): Promise<Uint8Array> {
  const node = await nodeOf(id);
  const got = await download(id);
  expect(got.status).toBe(200);
  expect(node.size_bytes).toBe(got.bytes.byteLength);
  expect(node.checksum_sha256).toBe(sha256(got.bytes));
  expect(got.headers.get("etag")).toBe(`"${node.checksum_sha256}"`);
  return got.bytes;
}

describe("GET .../files/{nodeId}/content of a text file", () => {
  it("answers the text with a text Content-Type; size and checksum match the bytes", async () => {
    const content = "# Roadmap\n\n- ship\n- rest\n";
    const node = await textFile(unique("roadmap.md"), content);
    const res = await download(node.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(new TextDecoder().decode(res.bytes)).toBe(content);
    expect(node.size_bytes).toBe(res.bytes.byteLength);
    expect(node.checksum_sha256).toBe(sha256(res.bytes));
    expect(node.checksum_sha256).toMatch(/^[0-9a-f]{64}$/);
    await expectConsistent(node.id);
  });

  it("counts bytes, not characters, for unicode text", async () => {
    const content = "héllo wörld — 👋 日本語 👨‍👩‍👧‍👦\n";
    const node = await textFile(unique("unicode.txt"), content);
    expect(node.size_bytes).toBe(Buffer.byteLength(content, "utf8"));
    expect(node.size_bytes).not.toBe(content.length);
    expect(node.checksum_sha256).toBe(sha256(Buffer.from(content, "utf8")));
    const res = await download(node.id);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(new TextDecoder().decode(res.bytes)).toBe(content);
    await expectConsistent(node.id);
  });

  it("answers an empty body for an empty file", async () => {
    const node = await textFile(unique("empty.txt"), "");
    const res = await download(node.id);
    expect(res.status).toBe(200);
    expect(res.bytes.byteLength).toBe(0);
    await expectConsistent(node.id);
  });

  it("keeps CRLF line ends and NUL characters exactly", async () => {
    const content = "line one\r\nline two\u0000end\n";
    const up = await upload({ file: { bytes: Buffer.from(content), name: unique("crlf.txt"), type: "text/plain" } });
    expect(up.status).toBe(201);
    expect(up.body.node.editable).toBe(true);
    const bytes = await expectConsistent(up.body.node.id);
    expect(Buffer.from(bytes).equals(Buffer.from(content))).toBe(true);
  });

  it("is readable with files.read: a Viewer downloads", async () => {
    const node = await textFile(unique("shared.txt"), "for everyone");
    const res = await download(node.id, viewer.token);
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode(res.bytes)).toBe("for everyone");
  });
});

describe("PUT .../files/{nodeId}/content of a text file", () => {
  it("replaces the text: 200 {node} with the new size and checksum", async () => {
    const node = await textFile(unique("notes.md"), "first draft");
    const next = "second draft — with ümlauts and 🚀\n";
    const res = await putContent(node.id, next, "text/plain; charset=utf-8");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["node"]);
    expect(res.body.node).toMatchObject({
      id: node.id,
      size_bytes: Buffer.byteLength(next),
      checksum_sha256: sha256(next),
      editable: true,
      mime_type: "text/markdown",
    });
    const bytes = await expectConsistent(node.id);
    expect(new TextDecoder().decode(bytes)).toBe(next);
  });

  it("replaces the text with an empty body", async () => {
    const node = await textFile(unique("wipe.txt"), "something");
    const res = await putContent(node.id, "", "text/plain");
    expect(res.status).toBe(200);
    expect(res.body.node).toMatchObject({ size_bytes: 0, checksum_sha256: sha256("") });
    expect((await download(node.id)).bytes.byteLength).toBe(0);
  });

  it("refuses bytes that are not UTF-8: 400 content must be UTF-8 text, content unchanged", async () => {
    const node = await textFile(unique("strict.txt"), "valid");
    const res = await putContent(node.id, new Uint8Array([0x48, 0x69, 0xff, 0xfe, 0xc3]), "text/plain");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "content must be UTF-8 text" });
    expect(new TextDecoder().decode((await download(node.id)).bytes)).toBe("valid");
    await expectConsistent(node.id);
  });

  it("needs files.write: a Viewer gets 403 missing permission: files.write", async () => {
    const node = await textFile(unique("guarded.txt"), "keep");
    const res = await putContent(node.id, "changed", "text/plain", viewer);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: files.write" });
    expect(new TextDecoder().decode((await download(node.id)).bytes)).toBe("keep");
  });
});

describe("POST .../files/upload", () => {
  it("answers 201 {node} with the right size, checksum and mime; the download is byte-identical", async () => {
    // Over 256 KiB, so the blob spans several stored chunks.
    const bytes = new Uint8Array(randomBytes(700 * 1024 + 13));
    const res = await upload({ file: { bytes, name: unique("photo.png"), type: "image/png" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["node"]);
    expect(res.body.node).toMatchObject({
      kind: "file",
      parent_id: null,
      mime_type: "image/png",
      size_bytes: bytes.byteLength,
      checksum_sha256: sha256(bytes),
      editable: false,
      created_by: member.id,
    });
    const got = await download(res.body.node.id);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true);
    await expectConsistent(res.body.node.id);
  });

  it("puts the file under parent_id", async () => {
    const folder = await member.api.post(`${files}/folders`, { name: unique("uploads") });
    const res = await upload({
      file: { bytes: new Uint8Array([1, 2, 3]), name: "tiny.bin", type: "application/octet-stream" },
      parent_id: folder.body.node.id,
    });
    expect(res.status).toBe(201);
    expect(res.body.node.parent_id).toBe(folder.body.node.id);
    const listed = await member.api.get(`${files}?parentId=${folder.body.node.id}`);
    expect(listed.body.nodes.map((n: Node) => n.name)).toEqual(["tiny.bin"]);
  });

  it("takes a 20 MiB upload and gives it back with a matching checksum", async () => {
    const bytes = new Uint8Array(randomBytes(20 * 1024 * 1024));
    const res = await upload({ file: { bytes, name: unique("big.bin"), type: "application/octet-stream" } });
    expect(res.status).toBe(201);
    expect(res.body.node).toMatchObject({ size_bytes: 20 * 1024 * 1024, checksum_sha256: sha256(bytes) });
    const got = await download(res.body.node.id);
    expect(got.status).toBe(200);
    expect(got.bytes.byteLength).toBe(bytes.byteLength);
    expect(sha256(got.bytes)).toBe(sha256(bytes));
  });

  it("finishes a download of the old content when the file is replaced meanwhile, every byte of it", async () => {
    const old = new Uint8Array(randomBytes(12 * 1024 * 1024));
    const made = await upload({ file: { bytes: old, name: unique("replaced.bin"), type: "application/octet-stream" } });
    const id = made.body.node.id;
    const res = await fetch(`${server.url}${files}/${id}/content`, {
      headers: { authorization: `Bearer ${member.token}` },
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const parts: Uint8Array[] = [];
    const first = await reader.read();
    parts.push(first.value as Uint8Array);
    const put = await fetch(`${server.url}${files}/${id}/content`, {
      method: "PUT",
      headers: { authorization: `Bearer ${member.token}`, "content-type": "application/octet-stream" },
      body: new Uint8Array(randomBytes(1024)),
    });
    expect(put.status).toBe(200);
    for (let part = await reader.read(); !part.done; part = await reader.read()) parts.push(part.value);
    const got = Buffer.concat(parts);
    expect(got.byteLength).toBe(old.byteLength);
    expect(sha256(got)).toBe(sha256(old));
    expect((await download(id)).bytes.byteLength).toBe(1024);
  });

  it("makes a small .md or .csv upload an editable text file", async () => {
    const md = "# Title\n\nBody with é\n";
    const mdRes = await upload({ file: { bytes: Buffer.from(md), name: unique("readme.md"), type: "text/markdown" } });
    expect(mdRes.status).toBe(201);
    expect(mdRes.body.node).toMatchObject({
      editable: true,
      mime_type: "text/markdown",
      size_bytes: Buffer.byteLength(md),
      checksum_sha256: sha256(md),
    });
    const mdGot = await download(mdRes.body.node.id);
    expect(mdGot.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(new TextDecoder().decode(mdGot.bytes)).toBe(md);

    const csv = "name,qty\nwidget,3\n";
    const csvRes = await upload({ file: { bytes: Buffer.from(csv), name: unique("stock.csv"), type: "text/csv" } });
    expect(csvRes.status).toBe(201);
    expect(csvRes.body.node).toMatchObject({
      editable: true,
      mime_type: "text/csv",
      size_bytes: Buffer.byteLength(csv),
    });
    expect(new TextDecoder().decode((await download(csvRes.body.node.id)).bytes)).toBe(csv);
    await expectConsistent(csvRes.body.node.id);

    // An upload sent without a part Content-Type is recognised by its extension.
    const bare = await upload({ file: { bytes: Buffer.from(csv), name: unique("untyped.csv") } });
    expect(bare.body.node).toMatchObject({ editable: true, mime_type: "text/csv" });
  });

  it("keeps a .png or an octet-stream upload binary: editable false", async () => {
    const png = await upload({
      file: { bytes: Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), name: unique("icon.png"), type: "image/png" },
    });
    expect(png.status).toBe(201);
    expect(png.body.node).toMatchObject({ editable: false, mime_type: "image/png" });

    const bin = await upload({
      file: { bytes: new Uint8Array([0, 1, 2, 250]), name: unique("payload"), type: "application/octet-stream" },
    });
    expect(bin.status).toBe(201);
    expect(bin.body.node).toMatchObject({ editable: false, mime_type: "application/octet-stream", size_bytes: 4 });
  });

  it("keeps an upload with a text name but bytes that are not UTF-8 as a binary file, byte for byte", async () => {
    const bytes = new Uint8Array([0x68, 0x69, 0xff, 0x00, 0xfe]);
    const res = await upload({ file: { bytes, name: unique("latin.txt"), type: "text/plain" } });
    expect(res.status).toBe(201);
    expect(res.body.node.editable).toBe(false);
    const got = await download(res.body.node.id);
    expect(Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true);
    await expectConsistent(res.body.node.id);
  });

  it("keeps a text upload over 5 MiB as a binary file, byte for byte", async () => {
    const bytes = Buffer.from("a".repeat(5 * 1024 * 1024 + 1));
    const res = await upload({ file: { bytes, name: unique("huge.txt"), type: "text/plain" } });
    expect(res.status).toBe(201);
    expect(res.body.node).toMatchObject({
      editable: false,
      size_bytes: bytes.byteLength,
      checksum_sha256: sha256(bytes),
    });
    const got = await download(res.body.node.id);
    expect(got.bytes.byteLength).toBe(bytes.byteLength);
    expect(sha256(got.bytes)).toBe(sha256(bytes));
  });

  it("serves a text upload that starts with a UTF-8 byte order mark with the size and checksum it reports", async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("name,qty\nwidget,3\n")]);
    const res = await upload({ file: { bytes, name: unique("excel-export.csv"), type: "text/csv" } });
    expect(res.status).toBe(201);
    expect(res.body.node).toMatchObject({ size_bytes: bytes.byteLength, checksum_sha256: sha256(bytes) });
    const got = await download(res.body.node.id);
    // A leading byte order mark is content: GET gives back exactly the uploaded bytes, as size and checksum say.
    // (Spreadsheet exports commonly start with one.)
    expect(got.bytes.byteLength).toBe(res.body.node.size_bytes as number);
    expect(sha256(got.bytes)).toBe(res.body.node.checksum_sha256 as string);
    expect(Buffer.from(got.bytes).equals(bytes)).toBe(true);
  });

  it("refuses an upload without a file part: 400 file: required", async () => {
    const res = await upload({ parent_id: "" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "file: required" });
  });

  it("refuses a name a live sibling has: 409 name already exists", async () => {
    const name = unique("twice.bin");
    expect((await upload({ file: { bytes: new Uint8Array([1]), name } })).status).toBe(201);
    const res = await upload({ file: { bytes: new Uint8Array([2]), name: name.toUpperCase() } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "name already exists" });
  });

  it("logs a request its client cancels mid-body as 499, not as a server error, and stores nothing", async () => {
    const before = (await member.api.get(`${files}/tree`)).body.nodes.length;
    const url = new URL(server.url);
    const boundary = "cancelled-upload";
    const cut = [
      {
        path: `${files}/upload`,
        type: `multipart/form-data; boundary=${boundary}`,
        head: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${unique("cut.bin")}"\r\n\r\n`,
      },
      { path: `${files}/text`, type: "application/json", head: `{"name":"${unique("cut.md")}","content":"` },
    ];
    for (const { path, type, head } of cut) {
      const socket = await Bun.connect({
        hostname: url.hostname,
        port: Number(url.port),
        socket: { data: () => undefined },
      });
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${member.token}\r\n` +
          `Content-Type: ${type}\r\nContent-Length: ${900 * 1024}\r\n\r\n${head}${"x".repeat(300 * 1024)}`,
      );
      await Bun.sleep(100);
      socket.end();
      const cancelled = () =>
        server.logs.find((line) => line.includes(`"path":"${path}"`) && line.includes('"status":499'));
      for (let i = 0; i < 100 && !cancelled(); i++) await Bun.sleep(20);
      expect(cancelled(), path).toBeDefined();
    }
    expect(server.logs.filter((line) => line.includes("unhandled error"))).toEqual([]);
    expect((await member.api.get(`${files}/tree`)).body.nodes.length).toBe(before);
  });

  it("needs files.write: a Viewer gets 403 missing permission: files.write", async () => {
    const res = await upload({ file: { bytes: new Uint8Array([1]), name: unique("viewer.bin") } }, viewer.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: files.write" });
  });
});

describe("PUT .../files/{nodeId}/content of an uploaded file", () => {
  it("replaces the bytes: a new checksum, and a later download returns the new bytes", async () => {
    const first = new Uint8Array(randomBytes(300 * 1024));
    const up = await upload({ file: { bytes: first, name: unique("chart.png"), type: "image/png" } });
    const id = up.body.node.id;
    const second = new Uint8Array(randomBytes(1024 + 7));
    const res = await putContent(id, second, "application/octet-stream");
    expect(res.status).toBe(200);
    expect(res.body.node).toMatchObject({
      id,
      size_bytes: second.byteLength,
      checksum_sha256: sha256(second),
      mime_type: "image/png",
      editable: false,
    });
    expect(res.body.node.checksum_sha256).not.toBe(up.body.node.checksum_sha256);
    const got = await download(id);
    expect(Buffer.from(got.bytes).equals(Buffer.from(second))).toBe(true);
    await expectConsistent(id);
  });

  it("takes the body's Content-Type as the new mime_type", async () => {
    const up = await upload({ file: { bytes: new Uint8Array([1, 2]), name: unique("image"), type: "image/png" } });
    const res = await putContent(up.body.node.id, new Uint8Array([3, 4, 5]), "image/jpeg");
    expect(res.status).toBe(200);
    expect(res.body.node.mime_type).toBe("image/jpeg");
    expect((await download(up.body.node.id)).headers.get("content-type")).toBe("image/jpeg");
  });
});

describe("the mime_type of replaced and named content", () => {
  it("keeps the mime_type when a PUT declares nothing specific or something that is not a media type", async () => {
    const up = await upload({ file: { bytes: new Uint8Array([1, 2]), name: unique("data"), type: "image/gif" } });
    const id = up.body.node.id;
    for (const declared of ["application/x-www-form-urlencoded", "garbage", "application/octet-stream"]) {
      const res = await putContent(id, new Uint8Array([3, 4]), declared);
      expect(res.status).toBe(200);
      expect(res.body.node.mime_type).toBe("image/gif");
    }
    expect((await download(id)).headers.get("content-type")).toBe("image/gif");
  });

  it("gives a text file made under a binary-sounding name a text type", async () => {
    const node = await textFile(unique("notes.png"), "not a picture");
    expect(node).toMatchObject({ mime_type: "text/plain", editable: true });
    expect((await download(node.id)).headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });

  it("serves a binary file with its declared text type, without claiming UTF-8", async () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1: not UTF-8
    const up = await upload({ file: { bytes: latin1, name: unique("old.txt"), type: "text/plain" } });
    expect(up.body.node.editable).toBe(false);
    expect((await download(up.body.node.id)).headers.get("content-type")).toBe("text/plain");
  });
});

describe("conditional and partial downloads", () => {
  const get = (id: string, headers: Record<string, string>) =>
    fetch(`${server.url}${files}/${id}/content`, { headers: { authorization: `Bearer ${member.token}`, ...headers } });

  it("answers 304 to If-None-Match with the file's ETag, and 200 once the file changed", async () => {
    const node = await textFile(unique("cached.txt"), "v1");
    const etag = `"${node.checksum_sha256}"`;
    const same = await get(node.id, { "if-none-match": `"other", W/${etag}` });
    expect(same.status).toBe(304);
    expect(same.headers.get("etag")).toBe(etag);
    expect(await same.text()).toBe("");
    await putContent(node.id, "v2", "text/plain");
    const changed = await get(node.id, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe("v2");
  });

  it("answers one byte range with 206, and a whole file without Content-Range", async () => {
    const node = await textFile(unique("ranged.txt"), "0123456789");
    const whole = await get(node.id, {});
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-range")).toBeNull();
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    for (const [range, body, contentRange] of [
      ["bytes=2-4", "234", "bytes 2-4/10"],
      ["bytes=7-", "789", "bytes 7-9/10"],
      ["bytes=-3", "789", "bytes 7-9/10"],
      ["bytes=8-100", "89", "bytes 8-9/10"],
    ] as const) {
      const res = await get(node.id, { range });
      expect(res.status).toBe(206);
      expect(res.headers.get("content-range")).toBe(contentRange);
      expect(await res.text()).toBe(body);
    }
    // Several ranges, or one that does not parse: the whole file.
    for (const range of ["bytes=0-1,4-5", "bytes=5-2", "lines=1-2"]) {
      const res = await get(node.id, { range });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("0123456789");
    }
  });

  it("answers 416 in the API's error shape for a range past the end", async () => {
    const node = await textFile(unique("short.txt"), "12345678");
    const res = await get(node.id, { range: "bytes=500-" });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe("bytes */8");
    expect(await res.json()).toEqual({ error: "range not satisfiable" });
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});

describe("content of a folder", () => {
  it("answers 400 a folder has no content to GET and PUT", async () => {
    const folder = await member.api.post(`${files}/folders`, { name: unique("no-content") });
    const get = await member.api.get(`${files}/${folder.body.node.id}/content`);
    expect(get.status).toBe(400);
    expect(get.body).toEqual({ error: "a folder has no content" });
    const put = await putContent(folder.body.node.id, "text", "text/plain");
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ error: "a folder has no content" });
  });
});

describe("content response headers", () => {
  it("carries a sandboxing Content-Security-Policy on every download", async () => {
    const text = await textFile(unique("plain.txt"), "hi");
    const bin = await upload({ file: { bytes: new Uint8Array([9, 9]), name: unique("blob.png") } });
    for (const id of [text.id, bin.body.node.id]) {
      const res = await download(id);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("sandbox");
      expect(csp).toContain("default-src 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("answers Content-Length and an ETag of the checksum for a text file", async () => {
    const node = await textFile(unique("sized.txt"), "naïve café ☕");
    const res = await download(node.id);
    expect(res.headers.get("content-length")).toBe(String(node.size_bytes));
    expect(res.headers.get("etag")).toBe(`"${node.checksum_sha256}"`);
  });

  it("answers Content-Length and an ETag of the checksum for an uploaded binary file", async () => {
    const bytes = new Uint8Array(randomBytes(300 * 1024 + 1));
    const up = await upload({ file: { bytes, name: unique("sized.png"), type: "image/png" } });
    const res = await download(up.body.node.id);
    expect(res.status).toBe(200);
    expect(res.bytes.byteLength).toBe(bytes.byteLength);
    expect(res.headers.get("etag")).toBe(`"${sha256(bytes)}"`);
    // Binary files up to 8 MiB carry their exact Content-Length (larger ones stream chunked, docs/api.md).
    expect(res.headers.get("content-length")).toBe(String(bytes.byteLength));
  });

  it("serves XML as an attachment", async () => {
    const xml = await textFile(unique("feed.xml"), '<?xml version="1.0"?><feed/>');
    const res = await download(xml.id);
    expect(res.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(res.headers.get("content-disposition") ?? "").toStartWith("attachment");
  });

  it("serves XML of any kind as an attachment: RSS, XSLT", async () => {
    for (const [name, type] of [
      ["feed.rss", "application/rss+xml"],
      ["style.xsl", "application/xslt+xml"],
      ["data.xsd", "text/xsl"],
    ] as const) {
      const up = await upload({ file: { bytes: Buffer.from("<x/>\xff"), name: unique(name), type } });
      expect(up.status).toBe(201);
      const res = await download(up.body.node.id);
      expect(res.headers.get("content-disposition") ?? "").toStartWith("attachment");
    }
  });

  it("writes the file name in Content-Disposition as RFC 8187 asks: ' ( ) * percent-encoded", async () => {
    const node = await textFile(unique('it\'s (1)*;"x" ü.txt'), "hi");
    const res = await download(node.id);
    const value = (res.headers.get("content-disposition") ?? "").split("filename*=UTF-8''")[1] ?? "";
    expect(value).toMatch(/^[A-Za-z0-9!#$&+.^_`|~%-]+$/);
    expect(decodeURIComponent(value)).toBe(node.name);
  });

  it("keeps the charset an upload declared for a binary file, and a PUT's", async () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in windows-1252: not UTF-8
    const up = await upload({
      file: { bytes: latin1, name: unique("latin.csv"), type: "text/csv; charset=windows-1252" },
    });
    expect(up.status).toBe(201);
    expect(up.body.node.mime_type).toBe("text/csv; charset=windows-1252");
    expect((await download(up.body.node.id)).headers.get("content-type")).toBe("text/csv; charset=windows-1252");
    const put = await putContent(up.body.node.id, latin1, "text/csv; charset=ISO-8859-1");
    expect(put.status).toBe(200);
    expect(put.body.node.mime_type).toBe("text/csv; charset=iso-8859-1");
    // An image has no charset, whatever the upload said.
    const png = await upload({
      file: { bytes: new Uint8Array([1, 2]), name: unique("i.png"), type: "image/png; charset=utf-8" },
    });
    expect(png.body.node.mime_type).toBe("image/png");
  });

  it("serves HTML and SVG as attachments", async () => {
    const html = await textFile(unique("page.html"), "<script>alert(document.cookie)</script>");
    const svg = await upload({
      file: {
        bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        name: unique("logo.svg"),
        type: "image/svg+xml",
      },
    });
    expect(svg.status).toBe(201);
    for (const [id, type] of [
      [html.id, "text/html"],
      [svg.body.node.id, "image/svg+xml"],
    ] as const) {
      const res = await download(id);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")?.split(";")[0]).toBe(type);
      expect(res.headers.get("content-disposition") ?? "").toStartWith("attachment");
      expect(res.headers.get("content-security-policy") ?? "").toContain("sandbox");
    }
  });
});

describe("staff and existing files", () => {
  it("a service account adds files but gets 403 changing one, and the file stays as it was", async () => {
    const staff = await addStaff(org, { name: "Filer" });
    const mine = await staff.api.post(`${files}/text`, { name: unique("staff-notes.md"), content: "by staff" });
    expect(mine.status).toBe(201);
    const file = await textFile(unique("human.md"), "written by a person");
    const refused = { error: "service accounts cannot change existing files: propose a patch instead" };
    const put = await fetch(`${server.url}${files}/${file.id}/content`, {
      method: "PUT",
      headers: { authorization: `Bearer ${staff.token}`, "content-type": "text/plain" },
      body: "overwritten by staff",
    });
    expect(put.status).toBe(403);
    expect(await put.json()).toEqual(refused);
    for (const res of [
      await staff.api.patch(`${files}/${file.id}`, { name: unique("renamed.md") }),
      await staff.api.delete(`${files}/${file.id}`),
      await staff.api.delete(`${files}/${mine.body.node.id}`),
    ]) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: refused });
    }
    const after = await download(file.id);
    expect(new TextDecoder().decode(after.bytes)).toBe("written by a person");
    const proposal = await staff.api.post(`${files}/${file.id}/proposals`, { proposed_content: "a better text" });
    expect(proposal.status).toBe(201);
  });
});

describe("the upload limit (TANDEM_MAX_UPLOAD_BYTES)", () => {
  const LIMIT = 64 * 1024;
  let small: TestServer;
  let owner: Org["owner"];
  let base: string;

  beforeAll(async () => {
    small = await startTestServer({ env: { TANDEM_MAX_UPLOAD_BYTES: String(LIMIT) } });
    const smallOrg = await setupOrg(small);
    owner = smallOrg.owner;
    const space = await owner.api.post(`/api/v1/organizations/${smallOrg.id}/spaces`, { name: "Limits" });
    base = `/api/v1/organizations/${smallOrg.id}/spaces/${space.body.id}/files`;
  });
  afterAll(() => small.stop());

  const send = async (bytes: number, name: string) => {
    const form = new FormData();
    form.append("file", new Blob([randomBytes(bytes)]), name);
    const res = await fetch(`${small.url}${base}/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.token}` },
      body: form,
    });
    return { status: res.status, body: await res.text() };
  };

  it("takes a file of exactly the limit and refuses one byte more with 413 file too large, storing nothing", async () => {
    expect((await send(LIMIT, "fits.bin")).status).toBe(201);
    expect(await send(LIMIT + 1, "over.bin")).toEqual({ status: 413, body: '{"error":"file too large"}' });
    const tree = await owner.api.get(`${base}/tree`);
    expect(JSON.stringify(tree.body)).not.toContain("over.bin");
  });

  it("holds a text file's PUT to the limit too, when it is below the text file limit", async () => {
    const made = await owner.api.post(`${base}/text`, { name: "notes.md", content: "short" });
    const put = (size: number) =>
      owner.api.put(`${base}/${made.body.node.id}/content`, undefined, {
        raw: "x".repeat(size),
        contentType: "text/markdown",
      });
    expect((await put(LIMIT)).status).toBe(200);
    const over = await put(LIMIT + 1);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ error: "file too large" });
  });

  it("holds a new text file's content to the limit as well", async () => {
    const fits = await owner.api.post(`${base}/text`, { name: "fits.md", content: "x".repeat(LIMIT) });
    expect(fits.status).toBe(201);
    const over = await owner.api.post(`${base}/text`, { name: "over.md", content: "x".repeat(LIMIT + 1) });
    expect({ status: over.status, body: over.body }).toEqual({ status: 413, body: { error: "file too large" } });
    const tree = await owner.api.get(`${base}/tree`);
    expect(JSON.stringify(tree.body)).not.toContain("over.md");
  });

  it("holds a proposal's text to the limit: 413 file too large, nothing proposed", async () => {
    const made = await owner.api.post(`${base}/text`, { name: "proposed.md", content: "short" });
    const proposals = `${base}/${made.body.node.id}/proposals`;
    const over = await owner.api.post(proposals, { proposed_content: "x".repeat(LIMIT + 1) });
    expect({ status: over.status, body: over.body }).toEqual({ status: 413, body: { error: "file too large" } });
    expect((await owner.api.get(proposals)).body.proposals).toEqual([]);
    expect((await owner.api.post(proposals, { proposed_content: "x".repeat(LIMIT) })).status).toBe(201);
  });

  it("answers far larger bodies in the API's shape too: 413 file too large, and request body too large on JSON", async () => {
    expect(await send(3 * 1024 * 1024, "huge.bin")).toEqual({ status: 413, body: '{"error":"file too large"}' });
    const json = await fetch(`${small.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "a@b.co", password: "x".repeat(3 * 1024 * 1024) }),
    });
    expect(json.status).toBe(413);
    expect(await json.json()).toEqual({ error: "request body too large" });
  });
});
