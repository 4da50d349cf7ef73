/**
 * Browser tests: the compiled `dist/tandem` in a temp data dir, driven by playwright-core in Debian's
 * Chromium (installed here with apt-get when it is missing). Pages start signed in by storing a real session
 * (tokens from the login route) where the app keeps it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { type Org, setupOrg } from "./factories";
import { client } from "./http";
import { BINARY, ROOT, spawnServer, type TestServer, tempDir } from "./server";

const CHROMIUM = "/usr/bin/chromium";
/** Without a color emoji font, reactions and the 💭 render as empty boxes in screenshots. */
const EMOJI_FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";

/** Installs Debian's Chromium (and a color emoji font) when they are not there yet. */
function ensureChromium(): void {
  if (existsSync(CHROMIUM) && existsSync(EMOJI_FONT)) return;
  const run = (args: string[]) => {
    const command = process.getuid?.() === 0 ? args : ["sudo", "-n", ...args];
    execFileSync(command[0] as string, command.slice(1), {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  };
  try {
    run(["apt-get", "install", "-y", "chromium", "fonts-noto-color-emoji"]);
  } catch {
    run(["apt-get", "update"]);
    run(["apt-get", "install", "-y", "chromium", "fonts-noto-color-emoji"]);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing after apt-get install chromium`);
}

/** Launches headless Chromium. */
export async function launchBrowser(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
    ],
  });
}

/** `dist/tandem serve` on a random port with a new data dir, as a TestServer (so the factories work). */
export async function startBinary(env: Record<string, string> = {}): Promise<TestServer> {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run ./install.sh first`);
  const dataDir = tempDir("tandem-ui-");
  const server = await spawnServer({ kind: "binary", dataDir, env });
  return {
    url: server.url,
    dataDir,
    setupToken: server.setupUrl ? new URL(server.setupUrl).searchParams.get("token") : null,
    logs: server.output,
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The binary with an organization set up through the API (owner "Olivia Owner"). */
export async function startWorkspace(env: Record<string, string> = {}): Promise<{ server: TestServer; org: Org }> {
  const server = await startBinary(env);
  return { server, org: await setupOrg(server) };
}

/** Desktop and phone viewports the tests use. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * A new browser context signed in as `email` / `password`: logs in over the API and stores the session where
 * the app keeps it, then opens `path`.
 */
export async function signedInPage(
  browser: Browser,
  server: TestServer,
  who: { email: string; password: string },
  path = "/spaces",
  options: {
    viewport?: { width: number; height: number };
    colorScheme?: "light" | "dark";
    /** Runs on the new page before it opens `path` (to route its requests, say). */
    setup?: (page: Page) => Promise<unknown>;
  } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const login = await client(server.url).post("/api/v1/auth/login", { email: who.email, password: who.password });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  const context = await browser.newContext({
    baseURL: server.url,
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? "light",
  });
  const session = JSON.stringify({
    access_token: login.body.access_token,
    refresh_token: login.body.refresh_token,
    expires_at: Date.now() + login.body.expires_in * 1000,
    signup_pending: false,
  });
  await context.addInitScript((value: string) => {
    if (!localStorage.getItem("tandem.session")) localStorage.setItem("tandem.session", value);
  }, session);
  const page = await context.newPage();
  await options.setup?.(page);
  await page.goto(path);
  return { context, page };
}

let shotsDir: string | undefined;

/**
 * Saves a screenshot of `page`: into docs/screenshots when UPDATE_SCREENSHOTS=1 (to refresh the README's
 * pictures), else into a temp dir, so every run still renders the screen.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  shotsDir ??= process.env.UPDATE_SCREENSHOTS === "1" ? join(ROOT, "docs", "screenshots") : tempDir("tandem-shots-");
  const dir = shotsDir;
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** WCAG contrast of two computed `rgb(...)` colours. */
export function contrast(a: string, b: string): number {
  const lum = (css: string) => {
    const [r, g, bl] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((n) => {
      const c = Number(n) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** Polls `check` until it passes, or throws its last failure after `timeout` ms (a page saves in the background). */
export async function eventually(check: () => Promise<void>, timeout = 5000): Promise<void> {
  const end = Date.now() + timeout;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > end) throw err;
      await Bun.sleep(50);
    }
  }
}
