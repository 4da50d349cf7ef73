/** The `tandem` command line. Every failure prints one line on stderr and exits non-zero. */
import { Command, CommanderError } from "commander";
import { BUILD, ConfigError, resolveDataDir } from "../src/config";
import { AppError } from "../src/core/errors";
import { BackupError } from "../src/db/backup";
import { backupCommands } from "./backup";
import { CliError, print } from "./common";
import { keygenCommand } from "./keygen";
import { migrateToPostgresCommand } from "./migrate-to-postgres";
import { provisioningCommand } from "./provisioning";
import { serveCommand } from "./serve";
import { setupCommand } from "./setup";
import { tunnelCommand } from "./tunnel";
import { usersCommand } from "./users";

function buildProgram(): Command {
  const program = new Command("tandem")
    .description("Tandem: a workspace where people and AI staff work side by side")
    .version(BUILD.version, "-V, --version", "print the version")
    .exitOverride()
    .showHelpAfterError(false)
    // Commander's own one-line errors (an unknown option, a missing argument) read like ours.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, "tandem: ")) });
  serveCommand(program);
  setupCommand(program);
  keygenCommand(program);
  usersCommand(program);
  provisioningCommand(program);
  backupCommands(program);
  migrateToPostgresCommand(program);
  tunnelCommand(program);
  program
    .command("version")
    .description("print the version and git sha")
    .option("--json", "print JSON")
    .option("--data <dir>", "data directory (not used)")
    .action((opts: { json?: boolean }) => {
      print(
        opts.json,
        { version: BUILD.version, git_sha: BUILD.gitSha },
        `tandem ${BUILD.version}${BUILD.gitSha ? ` (${BUILD.gitSha})` : ""}`,
      );
    });
  for (const command of program.commands) command.exitOverride();
  for (const group of program.commands) for (const command of group.commands) command.exitOverride();
  return program;
}

/**
 * The message of an error the operator can act on; unknown errors keep theirs too, on one line. The services
 * name a bad input by the API's field (`admin_password: ...`); where the command has a flag of that name
 * (`--admin-password`), the message names the flag, which is what the operator typed.
 */
function reason(error: unknown, command: Command | undefined): string {
  if (error instanceof AppError) {
    const field = /^([a-z_-]+):/.exec(error.message)?.[1];
    const flag = field && `--${field.replaceAll("_", "-")}`;
    const typed = flag && command?.options.some((option) => option.long === flag);
    return typed ? `${flag}${error.message.slice(field.length)}` : error.message;
  }
  if (error instanceof ConfigError || error instanceof CliError || error instanceof BackupError) {
    return error.message;
  }
  // SQLite's words for a full disk ("database or disk is full") name neither the disk nor what to do.
  if ((error as { code?: unknown } | null)?.code === "SQLITE_FULL") {
    return `the disk holding ${dataDirOf(command)} is full: free some space, then try again`;
  }
  return error instanceof Error ? (error.message.split("\n")[0] ?? "failed") : String(error);
}

/** The data dir the command ran on, as its flags and the environment name it. */
function dataDirOf(command: Command | undefined): string {
  try {
    return resolveDataDir(command?.opts() ?? {});
  } catch {
    return "the data dir";
  }
}

/** Runs the CLI with `argv` (as `process.argv`). */
export async function runCli(argv: string[]): Promise<void> {
  const program = buildProgram();
  if (argv.length <= 2) {
    const names = program.commands.map((command) => command.name());
    process.stderr.write(`tandem: needs a command: ${names.slice(0, -1).join(", ")} or ${names.at(-1)}\n`);
    process.exit(1);
  }
  let running: Command | undefined;
  program.hook("preAction", (_program, command) => {
    running = command;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed its own message (or help/version) already.
      process.exit(error.exitCode);
    }
    process.stderr.write(`tandem: ${reason(error, running)}\n`);
    process.exit(1);
  }
}
