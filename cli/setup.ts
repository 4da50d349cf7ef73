/** `tandem setup`: non-interactive first-run setup. */
import type { Command } from "commander";
import { checkSetupInput } from "../src/features/organization/organization.service";
import { emailIn, newPasswordIn } from "../src/http/schemas";
import { DATABASE_URL_OPTION, openServices } from "./common";
import { checkAsApi } from "./parse";
import { type SecretInput, secretHelp, secretOf, secretOptions } from "./secret-input";

interface SetupOptions {
  orgName: string;
  adminEmail: string;
  adminName?: string;
  data?: string;
  databaseUrl?: string;
}

/** The owner's password: `--admin-password-stdin`, `TANDEM_ADMIN_PASSWORD` or `--admin-password`. */
const ADMIN_PASSWORD: SecretInput = {
  flag: "admin-password",
  env: "TANDEM_ADMIN_PASSWORD",
  what: "the owner's password (8 to 1024 characters)",
  noun: "password",
};

export function setupCommand(program: Command): void {
  const setup = program
    .command("setup")
    .description("create the organization and its owner; prints {organization_id, user_id}")
    .requiredOption("--org-name <name>", "organization name")
    .requiredOption("--admin-email <email>", "owner's email");
  secretOptions(setup, ADMIN_PASSWORD)
    .option("--admin-name <name>", "owner's display name")
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON (setup always does)")
    .addHelpText("after", secretHelp("setup", ADMIN_PASSWORD))
    .action(async (opts: SetupOptions, command: Command) => {
      const adminPassword = await secretOf(command, ADMIN_PASSWORD);
      checkSetupInput({ orgName: opts.orgName, adminEmail: opts.adminEmail, adminPassword, adminName: opts.adminName });
      // What POST /api/v1/public/setup also holds them to (the service checks only the shortest password).
      checkAsApi("admin_email", emailIn, opts.adminEmail);
      checkAsApi("admin_password", newPasswordIn, adminPassword);
      const { services, close } = openServices(opts);
      try {
        const { org, user } = await services.organization.setup({
          orgName: opts.orgName,
          adminEmail: opts.adminEmail,
          adminPassword,
          adminName: opts.adminName,
        });
        process.stdout.write(`${JSON.stringify({ organization_id: org.id, user_id: user.id })}\n`);
      } finally {
        close();
      }
    });
}
