/** `tandem setup`: non-interactive first-run setup. */
import type { Command } from "commander";
import { checkSetupInput } from "../src/features/organization/organization.service";
import { emailIn, newPasswordIn } from "../src/http/schemas";
import { openServices } from "./common";
import { checkAsApi } from "./parse";

interface SetupOptions {
  orgName: string;
  adminEmail: string;
  adminPassword: string;
  adminName?: string;
  data?: string;
}

export function setupCommand(program: Command): void {
  program
    .command("setup")
    .description("create the organization and its owner; prints {organization_id, user_id}")
    .requiredOption("--org-name <name>", "organization name")
    .requiredOption("--admin-email <email>", "owner's email")
    .requiredOption("--admin-password <password>", "owner's password (8 to 1024 characters)")
    .option("--admin-name <name>", "owner's display name")
    .option("--data <dir>", "data directory")
    .option("--json", "print JSON (setup always does)")
    .action(async (opts: SetupOptions) => {
      checkSetupInput({
        orgName: opts.orgName,
        adminEmail: opts.adminEmail,
        adminPassword: opts.adminPassword,
        adminName: opts.adminName,
      });
      // What POST /api/v1/public/setup also holds them to (the service checks only the shortest password).
      checkAsApi("admin_email", emailIn, opts.adminEmail);
      checkAsApi("admin_password", newPasswordIn, opts.adminPassword);
      const { services, close } = openServices(opts);
      try {
        const { org, user } = await services.organization.setup({
          orgName: opts.orgName,
          adminEmail: opts.adminEmail,
          adminPassword: opts.adminPassword,
          adminName: opts.adminName,
        });
        process.stdout.write(`${JSON.stringify({ organization_id: org.id, user_id: user.id })}\n`);
      } finally {
        close();
      }
    });
}
