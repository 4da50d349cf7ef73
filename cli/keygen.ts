/** `tandem keygen`: a fresh key for APP_SSH_ENCRYPTION_KEY. */
import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { print } from "./common";

export function keygenCommand(program: Command): void {
  program
    .command("keygen")
    .description("print a fresh base64 32-byte key for APP_SSH_ENCRYPTION_KEY")
    .option("--json", "print JSON")
    .option("--data <dir>", "data directory (not used: the key is only printed)")
    .action((opts: { json?: boolean }) => {
      const key = randomBytes(32).toString("base64");
      print(opts.json, { key }, key);
    });
}
