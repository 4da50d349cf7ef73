/** `tandem users add|list|reset-password`: people without the web UI. */
import type { Command } from "commander";
import { invalid } from "../src/core/errors";
import { emailIn, newPasswordIn } from "../src/http/schemas";
import { type CommonOptions, DATABASE_URL_OPTION, groupAction, openServices, print } from "./common";
import { checkAsApi } from "./parse";
import { type SecretInput, secretHelp, secretOf, secretOptions } from "./secret-input";

/** The password of `users add`: `--password-stdin`, `TANDEM_PASSWORD` or `--password`. */
const PASSWORD: SecretInput = {
  flag: "password",
  env: "TANDEM_PASSWORD",
  what: "the password (8 to 1024 characters)",
  noun: "password",
};

/** The same for `users reset-password`, the new password. */
const NEW_PASSWORD: SecretInput = { ...PASSWORD, what: "the new password (8 to 1024 characters)" };

export function usersCommand(program: Command): void {
  const users = program.command("users").description("manage user accounts");

  const add = users
    .command("add")
    .description("add a user as a member of the organization")
    .requiredOption("--email <email>", "email address");
  secretOptions(add, PASSWORD)
    .option("--name <name>", "display name")
    .option("--role <name>", "role name (default Member)")
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON")
    .addHelpText("after", secretHelp("users add", PASSWORD))
    .action(async (opts: CommonOptions & { email: string; name?: string; role?: string }, command: Command) => {
      checkAsApi("email", emailIn, opts.email);
      const password = await secretOf(command, PASSWORD);
      checkAsApi("password", newPasswordIn, password);
      // An absent --name means the email's local part; an empty one is a mistake, as `setup --admin-name ""` is.
      if (opts.name?.trim() === "") throw invalid("name: must be 1 to 100 characters");
      // An absent --role means Member; an empty one names no role.
      if (opts.role?.trim() === "") throw invalid("role: must name a role");
      const { services, close } = openServices(opts, { mustExist: true });
      try {
        const user = await services.members.addUser(services.organization.requireOrg().id, {
          email: opts.email,
          password,
          name: opts.name,
          roleName: opts.role,
        });
        print(
          opts.json,
          { id: user.id, email: user.email, display_name: user.displayName },
          `added ${user.email} (${user.id})`,
        );
      } finally {
        close();
      }
    });

  users
    .command("list")
    .description("list user accounts with their roles")
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON")
    .action((opts: CommonOptions) => {
      const { services, close } = openServices(opts, { mustExist: true });
      try {
        const list = services.signups.listUsers();
        const rows = list.map(
          (u) => `${u.email}\t${u.displayName}\t${u.roleNames.join(", ") || "(no role)"}\t${u.status}\t${u.id}`,
        );
        print(
          opts.json,
          {
            users: list.map((u) => ({
              id: u.id,
              email: u.email,
              display_name: u.displayName,
              role_names: u.roleNames,
            })),
          },
          ["EMAIL\tNAME\tROLES\tSTATUS\tID", ...rows].join("\n"),
        );
      } finally {
        close();
      }
    });

  const reset = users
    .command("reset-password")
    .description("set a new password and end the user's sessions")
    .requiredOption("--email <email>", "email address");
  secretOptions(reset, NEW_PASSWORD)
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON")
    .addHelpText("after", secretHelp("users reset-password", NEW_PASSWORD))
    .action(async (opts: CommonOptions & { email: string }, command: Command) => {
      const password = await secretOf(command, NEW_PASSWORD);
      checkAsApi("password", newPasswordIn, password);
      const { services, close } = openServices(opts, { mustExist: true });
      try {
        const user = await services.auth.resetPassword(opts.email, password);
        print(opts.json, { id: user.id, email: user.email }, `password reset for ${user.email}`);
      } finally {
        close();
      }
    });
  groupAction(users, "add, list or reset-password");
}
