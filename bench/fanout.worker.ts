/**
 * A thread of the live-event clients of `fanout` (bench/realtime.ts): opens its share of the sockets and notes
 * when each post's event reaches each of them, in ms since the epoch (the clock every thread shares). At the
 * sustained load the sockets get tens of thousands of frames a second; the threads spread them over the load's
 * cores (BENCH_THREADS), and a frame's post number is found in its text without parsing the JSON.
 */
declare const self: Worker;

export type ClientRequest = { type: "open"; urls: string[] } | { type: "count" } | { type: "finish" };
export type ClientReport =
  | { type: "opened" }
  | { type: "failed"; message: string }
  | { type: "count"; count: number }
  | { type: "finished"; posts: number[]; at: number[] };

const POSTED = '{"type":"chat.message.created"';
const MARK = '"content":"post #';

const sockets: WebSocket[] = [];
const posts: number[] = [];
const at: number[] = [];

const report = (message: ClientReport) => self.postMessage(message);

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.onmessage = (event) => {
      const now = performance.timeOrigin + performance.now();
      const text = String(event.data);
      if (!text.startsWith(POSTED)) return;
      const mark = text.indexOf(MARK);
      if (mark < 0) return;
      posts.push(Number.parseInt(text.slice(mark + MARK.length), 10));
      at.push(now);
    };
    ws.onopen = () => resolve(ws);
    ws.onerror = () => reject(new Error(`could not connect to ${url}`));
  });
}

self.onmessage = async (event: MessageEvent<ClientRequest>) => {
  const request = event.data;
  if (request.type === "open") {
    try {
      for (const url of request.urls) sockets.push(await open(url));
      report({ type: "opened" });
    } catch (error) {
      report({ type: "failed", message: (error as Error).message });
    }
  } else if (request.type === "count") {
    report({ type: "count", count: posts.length });
  } else {
    for (const ws of sockets) ws.close();
    report({ type: "finished", posts, at });
  }
};
