/**
 * A reverse tunnel's pieces for tests (contract §8): the connector, `tandem tunnel` run from source as a child
 * process, and a local web service behind it whose download and upload prove that bodies stream (a gate holds
 * each back until the other end has its first bytes; a byte pattern tells a byte out of place).
 */
import { expect } from "bun:test";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { cleanEnv, cliCommand } from "./server";
import { eventually } from "./sockets";

const MiB = 1024 * 1024;

/** A gate a handler waits at until the test opens it. */
export function gate() {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { opened: promise, open: () => resolve() };
}

/** Byte `i` of the generated download: a pattern, so a checksum tells a byte out of place. */
export const patterned = (from: number, length: number) => {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (from + i) % 251;
  return bytes;
};

/** A connector: `tandem tunnel`, a child process. */
export interface Connector {
  proc: ReturnType<typeof Bun.spawn>;
  /** Its `--json` events, as they came. */
  events: Record<string, any>[];
  /** Waits for its `n`th `connected` event. */
  connected(n?: number): Promise<Record<string, any>>;
  exited: Promise<{ code: number; stderr: string }>;
  stop(): Promise<void>;
}

/** Starts a connector of the tunnel `automationId` on `serverUrl`, relaying to `to`. */
export function connector(
  serverUrl: string,
  automationId: string,
  token: string,
  to: string,
  via: "env" | "stdin" | "flag" = "env",
): Connector {
  const args = ["tunnel", "--server", serverUrl, "--automation", automationId, "--to", to, "--json"];
  if (via !== "env") args.push("--token", via === "stdin" ? "-" : token);
  const proc = Bun.spawn([...cliCommand("source"), ...args], {
    env: cleanEnv(via === "env" ? { TANDEM_TOKEN: token } : {}),
    stdin: via === "stdin" ? "pipe" : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (via === "stdin") {
    // As a token typed at a terminal: its line, and standard input left open.
    const stdin = proc.stdin as import("bun").FileSink;
    stdin.write(`${token}\n`);
    void stdin.flush();
  }
  const events: Record<string, any>[] = [];
  void (async () => {
    let buffer = "";
    for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      buffer += new TextDecoder().decode(chunk);
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        events.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    }
  })();
  const exited = Promise.all([new Response(proc.stderr as ReadableStream).text(), proc.exited]).then(
    ([stderr, code]) => ({ code, stderr }),
  );
  return {
    proc,
    events,
    async connected(n = 1) {
      const of = () => events.filter((e) => e.event === "connected");
      await eventually(() => of().length >= n || proc.exitCode !== null, "the connector to connect", 20_000);
      const event = of()[n - 1];
      if (!event) throw new Error(`the connector exited: ${(await exited).stderr}`);
      return event;
    },
    exited,
    async stop() {
      proc.kill("SIGINT");
      await proc.exited;
    },
  };
}

/**
 * The local service's common paths: `/echo` (what it received, as JSON; `?status=` answers with that status),
 * `/big` (a patterned download of `downloadBytes`, held back after `holdAt` until the test opens its gate),
 * `/upload` (the bytes and SHA-256 of the body; its gate opens once the first MiB is in), `/slow` (3 s), `/gzip`.
 * `handle` answers null for any other path.
 */
export function localService(downloadBytes: number, holdAt: number) {
  const download = { produced: 0, gate: gate() };
  const upload = { received: 0, firstMiB: gate() };
  async function handle(request: Request): Promise<Response | null> {
    const url = new URL(request.url);
    switch (url.pathname) {
      case "/echo":
        return Response.json(
          {
            method: request.method,
            path: url.pathname,
            query: url.search,
            headers: Object.fromEntries(request.headers),
            body: request.body ? await request.text() : null,
          },
          { status: Number(url.searchParams.get("status") ?? 200) },
        );
      case "/big":
        download.produced = 0;
        download.gate = gate();
        return new Response(
          new ReadableStream<Uint8Array>({
            async pull(controller) {
              if (download.produced >= holdAt) await download.gate.opened;
              const n = Math.min(256 * 1024, downloadBytes - download.produced);
              controller.enqueue(patterned(download.produced, n));
              download.produced += n;
              if (download.produced >= downloadBytes) controller.close();
            },
          }),
          { headers: { "content-type": "application/octet-stream" } },
        );
      case "/upload": {
        upload.received = 0;
        const hash = createHash("sha256");
        for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
          upload.received += chunk.byteLength;
          hash.update(chunk);
          if (upload.received >= MiB) upload.firstMiB.open();
        }
        return Response.json({ bytes: upload.received, sha256: hash.digest("hex") });
      }
      case "/slow":
        await Bun.sleep(3000);
        return new Response("too late");
      case "/gzip":
        return new Response(gzipSync("squeezed ".repeat(1000)), {
          headers: { "content-encoding": "gzip", "content-type": "text/plain" },
        });
      default:
        return null;
    }
  }

  return {
    handle,
    /**
     * Reads `/big` as `res` brings it: its first MiB must arrive while the service is still held back (a relay
     * that read the whole answer before sending it would never get there), then all of it, byte for byte.
     */
    async expectStreamedDownload(res: Response): Promise<void> {
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const hash = createHash("sha256");
      let received = 0;
      while (received < MiB) {
        const { value } = await reader.read();
        if (!value) throw new Error("the download ended early");
        received += value.byteLength;
        hash.update(value);
      }
      expect(download.produced).toBeLessThan(downloadBytes);
      download.gate.open();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        received += value.byteLength;
        hash.update(value);
      }
      expect(received).toBe(downloadBytes);
      expect(hash.digest("hex")).toBe(createHash("sha256").update(patterned(0, downloadBytes)).digest("hex"));
    },
    /**
     * Uploads `total` bytes to `/upload` at `url` with `init` (its credentials), sending nothing past the first MiB
     * until the service has that MiB; all of it must arrive, byte for byte.
     */
    async expectStreamedUpload(url: string, init: RequestInit, total: number): Promise<void> {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent >= MiB) await upload.firstMiB.opened;
          const n = Math.min(256 * 1024, total - sent);
          controller.enqueue(patterned(sent, n));
          sent += n;
          if (sent >= total) controller.close();
        },
      });
      const res = await fetch(url, { ...init, method: "POST", body, duplex: "half" } as RequestInit);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        bytes: total,
        sha256: createHash("sha256").update(patterned(0, total)).digest("hex"),
      });
    },
  };
}
