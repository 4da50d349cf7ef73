/**
 * `takeFrames`: a socket's frames go straight to the handler it names, on Elysia's WebSocket routes as the server
 * runs them, and a handler that throws closes its own socket (1011) and is logged, where a throw at that depth
 * would otherwise end the process.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { ServerWebSocket } from "bun";
import { Elysia } from "elysia";
import { takeFrames } from "../../src/http/sockets";
import { createLogger } from "../../src/lib/log";

const logged: string[] = [];
const log = createLogger("error", { write: (line: string) => logged.push(line) });
const received: string[] = [];

const app = new Elysia()
  .ws("/frames", {
    open: (ws) =>
      takeFrames(
        ws.raw as ServerWebSocket<unknown>,
        (socket, frame) => {
          const text = String(frame);
          if (text === "boom") throw new Error("the handler failed");
          received.push(text);
          socket.send(`got ${text}`);
        },
        log,
      ),
  })
  .get("/alive", () => "yes")
  .listen({ port: 0, hostname: "127.0.0.1" });
const base = `127.0.0.1:${app.server?.port}`;
afterAll(() => app.stop(true));

function open(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${base}/frames`);
    ws.onopen = () => resolve(ws);
    ws.onerror = () => reject(new Error("could not connect"));
  });
}

const next = (ws: WebSocket) =>
  new Promise<string>((resolve) => {
    ws.onmessage = (event) => resolve(String(event.data));
  });

describe("takeFrames", () => {
  test("hands each frame, as it came, to the handler with the runtime's socket", async () => {
    const ws = await open();
    const answer = next(ws);
    ws.send("hello");
    expect(await answer).toBe("got hello");
    expect(received).toContain("hello");
    ws.close();
  });

  test("a handler that throws closes that socket alone with 1011, logged; the others and the server go on", async () => {
    const failing = await open();
    const other = await open();
    const closed = new Promise<number>((resolve) => {
      failing.onclose = (event) => resolve(event.code);
    });
    failing.send("boom");
    expect(await closed).toBe(1011);
    expect(logged.some((line) => line.includes("socket frame failed") && line.includes("the handler failed"))).toBe(
      true,
    );
    const answer = next(other);
    other.send("still here");
    expect(await answer).toBe("got still here");
    expect(await (await fetch(`http://${base}/alive`)).text()).toBe("yes");
    other.close();
  });
});
