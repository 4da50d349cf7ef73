/**
 * Secrets a command is given (a password, the install secret, a token), out of sight of the machine's other
 * users: anyone on it can read every process's arguments (`ps`, `/proc/PID/cmdline`), and a shell keeps them in
 * its history. So a secret is read from standard input (`--NAME-stdin`) or from the environment; `--NAME VALUE`
 * keeps working, and its help says what it costs.
 */
import { type Command, Option } from "commander";
import { CliError } from "./common";

/** One secret a command takes. */
export interface SecretInput {
  /** The flag, without its dashes: `admin-password`. */
  readonly flag: string;
  /** The environment variable read when no flag gives it. */
  readonly env: string;
  /** What it is, for the help: `the owner's password (8 to 1024 characters)`. */
  readonly what: string;
  /** Its name in messages and in the help's placeholder: `password`. */
  readonly noun: string;
}

/** Adds `--FLAG <value>` (also read from the variable) and `--FLAG-stdin` to `command`. */
export function secretOptions(command: Command, secret: SecretInput): Command {
  const stdin = `--${secret.flag}-stdin`;
  return command
    .option(stdin, `read ${secret.what} from the first line of standard input (piped, or typed then Enter)`)
    .addOption(
      new Option(
        `--${secret.flag} <${secret.noun}>`,
        `${secret.what}; visible to other users of this machine (ps) and kept in the shell's history: better ${stdin} or ${secret.env}`,
      ).env(secret.env),
    );
}

/** The help's closing lines for a command's secret: how to keep it out of `ps`. */
export function secretHelp(command: string, secret: SecretInput): string {
  const lines: [string, string][] = [
    [`tandem ${command} --${secret.flag}-stdin ... < FILE`, "the first line of standard input (or typed, then Enter)"],
    [`${secret.env}=... tandem ${command} ...`, "or the environment"],
    [
      `tandem ${command} --${secret.flag} ${secret.noun.toUpperCase()} ...`,
      "works too, but shows in `ps` and the shell's history",
    ],
  ];
  const width = Math.max(...lines.map(([example]) => example.length));
  const shown = lines.map(([example, note]) => `  ${example.padEnd(width)}  # ${note}`);
  return `\nThe ${secret.noun}, out of sight of \`ps\` (other users of the machine can read every process's arguments):\n${shown.join("\n")}\n`;
}

/** `admin-password` → `adminPassword`, as commander names an option's value. */
const keyOf = (flag: string) => flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The secret as given: from standard input with `--FLAG-stdin`, else `--FLAG` or the variable (an empty
 * variable counts as unset). One line and exit 1 when it is given twice over, or not at all.
 */
export async function secretOf(command: Command, secret: SecretInput): Promise<string> {
  const key = keyOf(secret.flag);
  const opts = command.opts<Record<string, unknown>>();
  const source = command.getOptionValueSource(key);
  const given = typeof opts[key] === "string" && !(source === "env" && opts[key] === "") ? opts[key] : undefined;
  if (opts[`${key}Stdin`] === true) {
    if (source === "cli")
      throw new CliError(`give the ${secret.noun} once: --${secret.flag} or --${secret.flag}-stdin`);
    const line = await firstLineOfStdin(`${secret.noun} (then Enter): `);
    if (line === "") throw new CliError(`--${secret.flag}-stdin: standard input holds no ${secret.noun}`);
    return line;
  }
  if (given !== undefined) return given;
  throw new CliError(
    `a ${secret.noun} is needed: --${secret.flag}-stdin (from standard input), ${secret.env}, or --${secret.flag} ${secret.noun.toUpperCase()}`,
  );
}

/**
 * The first line of standard input, without its line ending (spaces are kept: they may be part of a password).
 * Read up to its newline rather than to the end, so a secret typed at a terminal needs Enter only; `prompt` is
 * shown there, on standard error.
 */
export async function firstLineOfStdin(prompt: string): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write(prompt);
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of Bun.stdin.stream()) {
    text += decoder.decode(chunk, { stream: true });
    const newline = text.indexOf("\n");
    if (newline !== -1) return text.slice(0, newline).replace(/\r$/, "");
  }
  return text.replace(/\r$/, "");
}
