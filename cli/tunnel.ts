/**
 * `tandem tunnel`: a local web service reached through Tandem, for an active `reverse_tunnel` automation
 * (contract §8). It connects out to the server as the token's owner and relays what visitors of
 * `/tunnels/{automationId}/…` ask to the `--to` service. A dropped connection is made again with backoff; a
 * refusal (a bad token, an automation that is not active or not a tunnel, no permission, another connector that
 * replaced this one) ends the command with the server's reason.
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { isUuid } from "../src/lib/ids";
import { CliError, print } from "./common";
import { firstLineOfStdin } from "./secret-input";
import { CONNECTOR_CLOSE, Relay, type RelayEnd } from "./tunnel-relay";

interface TunnelOptions {
  server: URL;
  automation: string;
  to: URL;
  token?: string;
  json?: boolean;
}

/** Pauses between attempts: doubling from 1 s to 30 s, each ±20%; back to 1 s once a connection opened. */
const FIRST_PAUSE_MS = 1000;
const LAST_PAUSE_MS = 30_000;

function httpUrl(what: string) {
  return (value: string): URL => {
    const url = URL.canParse(value) ? new URL(value) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw new InvalidArgumentError(`${what} must be an http(s) URL`);
    }
    return url;
  };
}

function localOrigin(value: string): URL {
  const url = httpUrl("the local service")(value);
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new InvalidArgumentError("must be an http(s) origin, like http://127.0.0.1:3000, without a path");
  }
  return url;
}

function automationId(value: string): string {
  if (!isUuid(value.trim())) throw new InvalidArgumentError("must be an automation id (a UUID)");
  return value.trim().toLowerCase();
}

export function tunnelCommand(program: Command): void {
  program
    .command("tunnel")
    .description("reach a local web service through Tandem, for a reverse_tunnel automation")
    .requiredOption("--server <url>", "Tandem's URL, as in the browser", httpUrl("--server"))
    .requiredOption("--automation <id>", "the reverse_tunnel automation's id", automationId)
    .requiredOption("--to <url>", "the local service, like http://127.0.0.1:3000 (http or https)", localOrigin)
    .addOption(
      new Option(
        "--token <token>",
        "an access token, or a staff member's sa_ token, with files.write in the automation's space; `-` reads it from the first line of standard input. Better given as TANDEM_TOKEN or `-`: on the command line it shows in `ps` and the shell's history",
      ).env("TANDEM_TOKEN"),
    )
    .option("--json", "print events as JSON lines")
    .option("--data <dir>", "data directory (not used)")
    .addHelpText("after", HELP_AFTER)
    .action((opts: TunnelOptions) => runTunnel(opts));
}

const HELP_AFTER = `
The token, out of sight of \`ps\` (other users of the machine can read every process's arguments):
  export TANDEM_TOKEN=...            # from the environment
  tandem tunnel --token - ... < FILE # or the first line of standard input (typed, then Enter)
  tandem tunnel --token TOKEN ...    # works too, but shows in \`ps\` and the shell's history

Example:
  TANDEM_TOKEN=sa_... tandem tunnel --server https://tandem.acme.test \\
    --automation 0190f2a4-... --to http://127.0.0.1:3000

A person's access token is needed for the first connection only: the server then hands the connector a
token of its own for reconnecting, good for 24 hours. For a connector that runs for days, use a staff
member's sa_ token.

The automation must be an active reverse_tunnel. While this runs, the space's members open the service at
{server}/tunnels/{automation}/ (with their token, or in a browser through a one-time link of the automation).
A dropped connection is made again (pauses of 1 s doubling to 30 s); Ctrl-C stops it (exit 0). It exits 1
with the server's reason when refused or closed for good: a bad token, no files.write, not a tunnel, not
active (paused meanwhile), deleted, connected by another member, or replaced by a newer connector.`;

/**
 * The token: the one given, or with \`-\` the first line of standard input. Read up to its newline rather than to
 * the end, so a token typed at a terminal needs Enter only.
 */
async function tokenOf(given: string | undefined): Promise<string> {
  const token = given === "-" ? await firstLineOfStdin("token (then Enter): ") : (given ?? "");
  if (token.trim() === "") {
    throw new CliError("a token is needed: --token TOKEN, --token - (read from standard input) or TANDEM_TOKEN");
  }
  return token.trim();
}

/** Connects, relays, and connects again, until refused or stopped (Ctrl-C). */
async function runTunnel(opts: TunnelOptions): Promise<void> {
  const token = await tokenOf(opts.token);
  const base = opts.server.href.replace(/\/+$/, "");
  const connect = `${base}/api/v1/tunnels/${opts.automation}/connect`;
  const to = opts.to.origin;
  let resume: string | null = null;
  let pause = FIRST_PAUSE_MS;
  let relay: Relay | null = null;
  let stopping = false;
  const stop = () => {
    stopping = true;
    relay?.close(CONNECTOR_CLOSE.stopped, "connector stopped");
    wake?.();
  };
  let wake: (() => void) | null = null;
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const retry = async (event: Record<string, unknown>, human: string) => {
    const ms = Math.round(pause * (0.8 + Math.random() * 0.4));
    print(
      opts.json,
      { ...event, retry_in_ms: ms },
      `${human}; trying again in ${Math.max(1, Math.round(ms / 1000))} s`,
    );
    pause = Math.min(pause * 2, LAST_PAUSE_MS);
    await wait(ms);
  };
  try {
    while (!stopping) {
      const credential = resume ?? token;
      const refusal = await preflight(connect, credential);
      if (refusal?.kind === "unreachable") {
        await retry({ event: "unreachable", error: refusal.message }, `cannot reach ${base} (${refusal.message})`);
        continue;
      }
      if (refusal?.kind === "refused") {
        // A resume token that no longer works (expired, its session ended): the token given may still.
        if (credential === resume && refusal.status === 401) {
          resume = null;
          continue;
        }
        throw new CliError(`the server refused the tunnel: ${refusal.message}`);
      }
      relay = new Relay({
        url: connect.replace(/^http/, "ws"),
        credential,
        target: opts.to,
        onHello: (hello) => {
          pause = FIRST_PAUSE_MS;
          resume = hello.resume ?? resume;
          print(
            opts.json,
            { event: "connected", url: hello.url, to, run_id: hello.run_id },
            `tunnel connected: ${hello.url} -> ${to} (run ${hello.run_id})`,
          );
        },
        onResume: (fresh) => {
          resume = fresh;
        },
      });
      const end: RelayEnd = await relay.ended;
      relay = null;
      if (stopping) break;
      if (end.opened && end.code >= 4400 && end.code < 4500 && end.code !== CONNECTOR_CLOSE.silent) {
        if (end.code === 4401 && credential === resume) {
          resume = null;
          continue;
        }
        throw new CliError(`the server closed the tunnel: ${end.reason || end.code}`);
      }
      const why = end.reason || `code ${end.code}`;
      await retry({ event: "disconnected", code: end.code, reason: end.reason }, `tunnel disconnected (${why})`);
    }
    print(opts.json, { event: "stopped" }, "tunnel stopped");
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

type Refusal = { kind: "unreachable"; message: string } | { kind: "refused"; status: number; message: string };

/**
 * Asks the connect route without the upgrade, so the server's reason for a refusal can be read (a refused
 * WebSocket upgrade shows only its status). Passing every check, it answers 400 `websocket upgrade required`.
 * Unreachable: no answer, a 5xx or a 429; worth trying again.
 */
async function preflight(url: string, credential: string): Promise<Refusal | null> {
  let answer: Response;
  try {
    answer = await fetch(url, {
      headers: { authorization: `Bearer ${credential}` },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    return { kind: "unreachable", message: error instanceof Error ? error.message : String(error) };
  }
  const body = (await answer.json().catch(() => null)) as { error?: unknown } | null;
  const message = typeof body?.error === "string" ? body.error : `HTTP ${answer.status}`;
  if (answer.status === 400 && message === "websocket upgrade required") return null;
  if (answer.status >= 500 || answer.status === 429) return { kind: "unreachable", message };
  return { kind: "refused", status: answer.status, message };
}
