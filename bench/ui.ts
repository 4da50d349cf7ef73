/**
 * The web UI in Debian's Chromium (headless, 1280×800, on the load core; the server on its own core):
 * - the board of a space with 500 tasks (200 / 150 / 100 / 50 over its four columns), and
 * - a chat room of 1,000 messages, all loaded by scrolling back through history,
 * each scrolled from top to bottom at 40 px per frame, every frame timed with requestAnimationFrame, long
 * tasks counted with PerformanceObserver, and the renderer main thread's CPU time per frame read from a
 * Chromium trace (wall-clock frames suffer when the machine is busy; CPU time does not). The baseline, measured
 * in the same run: a static page of as many plain elements with the same text, scrolled the same way. Target
 * ("scrolls without jank"): no frame over 50 ms, the p95 frame within 1.5 × the baseline's, and under 16 ms of
 * main-thread CPU per frame (what 60 frames a second leave). A scroll that measured no frames fails.
 */
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../test/helpers/browser";
import { ADMIN, type ProbeScenario, type Row, startTandem } from "./harness";
import { api, space, times } from "./seed";

/** Frame times of one scripted scroll of the page's largest scrolling element (or the one `selector` names). */
interface Scroll {
  frames: number;
  p50: number;
  p95: number;
  max: number;
  over50: number;
  longTaskMs: number;
  /** Renderer main-thread CPU per animation frame, from the trace. */
  cpuPerFrame: number;
}

async function scroll(browser: Browser, page: Page, selector?: string): Promise<Scroll> {
  await browser.startTracing(page, { categories: ["devtools.timeline", "disabled-by-default-devtools.timeline"] });
  const measured = await frames(page, selector);
  const trace = JSON.parse((await browser.stopTracing()).toString());
  return { ...measured, cpuPerFrame: cpuPerFrame(trace) };
}

/** Renderer main-thread CPU per animation frame in a Chromium trace (the thread that runs the frames). */
function cpuPerFrame(trace: { traceEvents?: TraceEvent[] } | TraceEvent[]): number {
  const events = Array.isArray(trace) ? trace : (trace.traceEvents ?? []);
  const frameCount = new Map<string, number>();
  for (const e of events) {
    if (e.name === "FireAnimationFrame")
      frameCount.set(`${e.pid}:${e.tid}`, (frameCount.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  }
  const [thread, count] = [...frameCount.entries()].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
  let total = 0;
  for (const e of events) {
    if (`${e.pid}:${e.tid}` === thread && e.name === "RunTask" && typeof e.tdur === "number") total += e.tdur / 1000;
  }
  return total / Math.max(1, count);
}

interface TraceEvent {
  name: string;
  pid: number;
  tid: number;
  tdur?: number;
}

async function frames(page: Page, selector?: string): Promise<Omit<Scroll, "cpuPerFrame">> {
  return page.evaluate(
    (selector) =>
      new Promise<Omit<Scroll, "cpuPerFrame">>((resolve) => {
        const candidates = selector
          ? [...document.querySelectorAll<HTMLElement>(selector)]
          : [document.scrollingElement as HTMLElement, ...document.querySelectorAll<HTMLElement>("*")];
        const el = candidates.reduce((best, e) =>
          e && e.scrollHeight - e.clientHeight > best.scrollHeight - best.clientHeight ? e : best,
        );
        el.scrollTop = 0;
        const longTasks: number[] = [];
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) longTasks.push(entry.duration);
        });
        observer.observe({ type: "longtask" });
        const deltas: number[] = [];
        let last = 0;
        const step = (t: number) => {
          if (last) deltas.push(t - last);
          last = t;
          const before = el.scrollTop;
          el.scrollTop += 40;
          if (el.scrollTop !== before && deltas.length < 1500) requestAnimationFrame(step);
          else {
            observer.disconnect();
            deltas.sort((a, b) => a - b);
            const at = (q: number) => deltas[Math.min(deltas.length - 1, Math.floor(q * deltas.length))] ?? 0;
            resolve({
              frames: deltas.length,
              p50: at(0.5),
              p95: at(0.95),
              max: deltas[deltas.length - 1] ?? 0,
              over50: deltas.filter((d) => d > 50).length,
              longTaskMs: longTasks.reduce((a, b) => a + b, 0),
            });
          }
        };
        requestAnimationFrame(step);
      }),
    selector,
  );
}

/** The baseline: `n` plain elements of text in one scrolling page. */
async function baseline(browser: Browser, n: number, text: string): Promise<Scroll> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.setContent(
    `<body style="margin:0;font:14px system-ui">${Array.from({ length: n }, (_, i) => `<div style="padding:8px;border-bottom:1px solid #ddd"><b>Item ${i}</b><p>${text}</p></div>`).join("")}</body>`,
  );
  const result = await scroll(browser, page);
  await page.close();
  return result;
}

/** A page signed in as the bench admin. */
async function signedIn(browser: Browser, url: string, path: string): Promise<Page> {
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ADMIN),
  }).then((r) => r.json() as Promise<{ access_token: string; refresh_token: string; expires_in: number }>);
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 } });
  const session = JSON.stringify({ ...login, expires_at: Date.now() + login.expires_in * 1000, signup_pending: false });
  await context.addInitScript((value: string) => localStorage.setItem("tandem.session", value), session);
  const page = await context.newPage();
  await page.goto(path);
  return page;
}

function row(name: string, data: string, measured: Scroll, base: Scroll, loadMs: number): Row {
  const target = "no frame > 50 ms, p95 ≤ 1.5 × baseline, CPU < 16 ms/frame";
  // Nothing scrolled means nothing was timed: p95 0 and no slow frame would read as a pass.
  const unmeasured = [measured.frames === 0 && "the page", base.frames === 0 && "the baseline"].filter(Boolean);
  if (unmeasured.length > 0) {
    return {
      scenario: name,
      measured: `${data}; loaded in ${loadMs.toFixed(0)} ms; measured no frames of ${unmeasured.join(" and ")}: nothing scrolled`,
      target,
      pass: false,
      details: { measured, baseline: base, loadMs },
    };
  }
  const ratio = measured.p95 / base.p95;
  return {
    scenario: name,
    ratio,
    measured: `${data}; loaded in ${loadMs.toFixed(0)} ms; ${measured.frames} frames: p50 ${measured.p50.toFixed(1)} ms, p95 ${measured.p95.toFixed(1)} ms, max ${measured.max.toFixed(1)} ms, ${measured.over50} over 50 ms, long tasks ${measured.longTaskMs.toFixed(0)} ms, CPU ${measured.cpuPerFrame.toFixed(1)} ms/frame (baseline ${base.cpuPerFrame.toFixed(1)} ms/frame, p95 ${base.p95.toFixed(1)} ms, max ${base.max.toFixed(1)} ms)`,
    target,
    pass: measured.over50 === 0 && ratio <= 1.5 && measured.cpuPerFrame < 16,
    details: { measured, baseline: base, loadMs },
  };
}

const TEXT = "A line of text of about the length a task title or a chat message has in practice.";

export const ui: ProbeScenario[] = [
  {
    kind: "probe",
    name: "UI: board of 500 tasks, scrolling",
    async run() {
      const server = await startTandem();
      const browser = await launchBrowser();
      try {
        const s = await space(server, "Board bench");
        const counts = [200, 150, 100, 50];
        const jobs = counts.flatMap((n, c) => Array.from({ length: n }, (_, i) => ({ c, i })));
        await times(jobs.length, 8, (k) => {
          const { c, i } = jobs[k] as { c: number; i: number };
          return api(server, "POST", `${s.base}/tasks`, { title: `Task ${c}-${i}: ${TEXT}`, column_id: s.columns[c] });
        });
        const start = performance.now();
        const page = await signedIn(browser, server.url, `/spaces/${s.id}/board`);
        await page.waitForFunction(() => document.querySelectorAll("[data-task-id]").length >= 500, null, {
          timeout: 60_000,
        });
        const loadMs = performance.now() - start;
        // Each column scrolls on its own at 1280 px when it is long; the page when it is not. Scroll the longest.
        const measured = await scroll(browser, page);
        return row(
          "UI: board of 500 tasks, scrolling",
          "500 tasks over 4 columns",
          measured,
          await baseline(browser, 200, TEXT),
          loadMs,
        );
      } finally {
        await browser.close();
        await server.stop();
      }
    },
  },
  {
    kind: "probe",
    name: "UI: chat of 1,000 loaded messages, scrolling",
    async run() {
      const server = await startTandem();
      const browser = await launchBrowser();
      try {
        const s = await space(server, "Chat bench");
        // One at a time, so their order is their number.
        await times(1000, 1, (i) =>
          api(server, "POST", `${s.base}/chat-rooms/${s.room}/messages`, { content: `Message ${i}: ${TEXT}` }),
        );
        const start = performance.now();
        const page = await signedIn(browser, server.url, `/spaces/${s.id}/chat/${s.room}`);
        await page.waitForFunction(() => document.querySelectorAll("article.message").length >= 50, null, {
          timeout: 60_000,
        });
        // Scroll back through history until every message is loaded.
        for (let i = 0; i < 100; i++) {
          const loaded = await page.evaluate(() => document.querySelectorAll("article.message").length);
          if (loaded >= 1000) break;
          await page.evaluate(() => {
            for (const el of document.querySelectorAll<HTMLElement>("*")) {
              if (el.scrollHeight > el.clientHeight + 10 && getComputedStyle(el).overflowY !== "visible")
                el.scrollTop = 0;
            }
          });
          await page.waitForTimeout(150);
        }
        const loaded = await page.evaluate(() => document.querySelectorAll("article.message").length);
        if (loaded < 1000) throw new Error(`only ${loaded} messages loaded`);
        const loadMs = performance.now() - start;
        const measured = await scroll(browser, page, ".chat-scroll");
        return row(
          "UI: chat of 1,000 loaded messages, scrolling",
          "1,000 messages",
          measured,
          await baseline(browser, 1000, TEXT),
          loadMs,
        );
      } finally {
        await browser.close();
        await server.stop();
      }
    },
  },
];
