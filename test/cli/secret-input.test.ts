/**
 * Secrets given to the CLI out of sight of `ps`: every command that takes a password or the install secret
 * reads it from standard input (`--…-stdin`) or the environment, and its help says so; the flags keep working
 * (cli.test.ts) and the help says what they cost. Each case runs the real CLI with its standard input piped.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { request } from "../helpers/http";
import {
  cleanEnv,
  cliCommand,
  type RunResult,
  runCli,
  type SpawnedServer,
  spawnServer,
  tempDir,
} from "../helpers/server";

const SECRET_PASSWORD = "correct horse battery staple";

let data: string;
let server: SpawnedServer;

/** Runs one CLI command with `stdin` piped to it; `whileWaiting` runs while the process reads it. */
async function runWithStdin(
  args: string[],
  stdin: string,
  options: { env?: Record<string, string>; whileWaiting?: (pid: number) => void } = {},
): Promise<RunResult> {
  const proc = Bun.spawn([...cliCommand("source"), ...args], {
    env: cleanEnv(options.env),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  options.whileWaiting?.(proc.pid);
  proc.stdin.write(stdin);
  await proc.stdin.end();
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

function oneLineFailure(result: RunResult): string {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

const login = (email: string, password: string) =>
  request(server.url, "POST", "/api/v1/auth/login", { body: { email, password } });

beforeAll(async () => {
  data = tempDir("tandem-secret-input-");
  let cmdline = "";
  const setup = await runWithStdin(
    ["setup", "--org-name", "Acme", "--admin-email", "owner@acme.test", "--admin-password-stdin", "--data", data],
    `${SECRET_PASSWORD}\n`,
    {
      whileWaiting: (pid) => {
        // As soon as the program runs: a moment after the spawn, the process may still show the test's own command
        // line, or none, for longer on a busy machine. It waits for its standard input, which comes after this.
        const until = Date.now() + 10_000;
        while (!cmdline.includes("setup") && Date.now() < until) cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      },
    },
  );
  expect(setup.stderr).toBe("");
  expect(setup.code).toBe(0);
  // What other users of the machine see of the process: no password.
  expect(cmdline).toContain("--admin-password-stdin");
  expect(cmdline).not.toContain("horse");
  server = await spawnServer({ dataDir: data });
});

afterAll(async () => {
  if (server && server.proc.exitCode === null) await server.stop();
  rmSync(data, { recursive: true, force: true });
});

describe("tandem setup --admin-password-stdin", () => {
  it("makes the owner with the password read from standard input", async () => {
    expect((await login("owner@acme.test", SECRET_PASSWORD)).status).toBe(200);
  });
});

describe("tandem users add / reset-password", () => {
  it("takes the password from standard input with --password-stdin (its line ending dropped, spaces kept)", async () => {
    const added = await runWithStdin(
      ["users", "add", "--email", "mia@acme.test", "--password-stdin", "--json", "--data", data],
      " spaced out password \r\n",
    );
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect((await login("mia@acme.test", " spaced out password ")).status).toBe(200);

    const reset = await runWithStdin(
      ["users", "reset-password", "--email", "mia@acme.test", "--password-stdin", "--data", data],
      "a brand new password\nignored second line\n",
    );
    expect(reset.code).toBe(0);
    expect((await login("mia@acme.test", "a brand new password")).status).toBe(200);
    expect((await login("mia@acme.test", " spaced out password ")).status).toBe(401);
  });

  it("takes the password from TANDEM_PASSWORD, and reads no standard input then", async () => {
    const env = { TANDEM_PASSWORD: "from the environment" };
    const added = await runWithStdin(["users", "add", "--email", "env@acme.test", "--data", data], "not this\n", {
      env,
    });
    expect(added.code).toBe(0);
    expect((await login("env@acme.test", "from the environment")).status).toBe(200);
    // --password-stdin wins over the variable: the one given on this command line is meant.
    const reset = await runWithStdin(
      ["users", "reset-password", "--email", "env@acme.test", "--password-stdin", "--data", data],
      "the piped password\n",
      { env },
    );
    expect(reset.code).toBe(0);
    expect((await login("env@acme.test", "the piped password")).status).toBe(200);
  });

  it("exits 1 with one line for a password given twice, none at all, or an empty standard input", async () => {
    const both = await runWithStdin(
      ["users", "add", "--email", "x@acme.test", "--password", "given-here", "--password-stdin", "--data", data],
      "and-here\n",
    );
    expect(oneLineFailure(both)).toBe("tandem: give the password once: --password or --password-stdin");
    const none = await runCli(["users", "add", "--email", "x@acme.test", "--data", data]);
    expect(oneLineFailure(none)).toBe(
      "tandem: a password is needed: --password-stdin (from standard input), TANDEM_PASSWORD, or --password PASSWORD",
    );
    const empty = await runWithStdin(
      ["users", "add", "--email", "x@acme.test", "--password-stdin", "--data", data],
      "",
    );
    expect(oneLineFailure(empty)).toBe("tandem: --password-stdin: standard input holds no password");
    // The API's rule still holds, whichever way the password came.
    const short = await runWithStdin(
      ["users", "add", "--email", "x@acme.test", "--password-stdin", "--data", data],
      "short\n",
    );
    expect(oneLineFailure(short)).toBe("tandem: --password: must be at least 8 characters");
  });
});

describe("tandem provisioning set --install-secret-stdin", () => {
  it("stores the secret read from standard input, or from TANDEM_INSTALL_SECRET", async () => {
    const base = ["provisioning", "set", "--base-url", "https://prov.example.com", "--install-id", "inst-1"];
    const set = await runWithStdin([...base, "--install-secret-stdin", "--data", data], "s3cret-from-stdin-wxyz\n");
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    const shown = async () => {
      const show = await runCli(["provisioning", "show", "--json", "--data", data]);
      const settings = JSON.parse(show.stdout).settings as { key: string; value: string }[];
      return settings.find((s) => s.key === "install_secret")?.value;
    };
    expect(await shown()).toBe("****wxyz");
    const fromEnv = await runCli([...base, "--data", data], { env: { TANDEM_INSTALL_SECRET: "env-secret-abcd" } });
    expect(fromEnv.code).toBe(0);
    expect(await shown()).toBe("****abcd");
  });
});

describe("the help of each command that takes a secret", () => {
  const commands: [string[], string, string][] = [
    [["setup"], "--admin-password", "TANDEM_ADMIN_PASSWORD"],
    [["users", "add"], "--password", "TANDEM_PASSWORD"],
    [["users", "reset-password"], "--password", "TANDEM_PASSWORD"],
    [["provisioning", "set"], "--install-secret", "TANDEM_INSTALL_SECRET"],
  ];

  it("offers standard input and the environment, and says the flag shows in ps", async () => {
    for (const [command, flag, env] of commands) {
      const help = await runCli([...command, "--help"]);
      expect(help.code).toBe(0);
      const text = help.stdout.replace(/\s+/g, " ");
      expect(text).toContain(`${flag}-stdin`);
      expect(text).toContain(env);
      expect(text).toContain("visible to other users of this machine (ps)");
    }
  });
});
