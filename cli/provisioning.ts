/** `tandem provisioning set|show|clear`: the three provisioning settings (env vars of the same meaning win). */
import type { Command } from "commander";
import { type CommonOptions, DATABASE_URL_OPTION, groupAction, openServices, print } from "./common";
import { type SecretInput, secretHelp, secretOf, secretOptions } from "./secret-input";

/**
 * The install secret: `--install-secret-stdin`, `TANDEM_INSTALL_SECRET` or `--install-secret`. (Not
 * `PROVISIONING_INSTALL_SECRET`: that one, given to `serve`, stands in for the stored secret instead.)
 */
const INSTALL_SECRET: SecretInput = {
  flag: "install-secret",
  env: "TANDEM_INSTALL_SECRET",
  what: "the install secret",
  noun: "secret",
};

export function provisioningCommand(program: Command): void {
  const provisioning = program.command("provisioning").description("provisioning settings");

  const set = provisioning
    .command("set")
    .description("store the provisioning base URL, install id and install secret (encrypted)")
    .requiredOption("--base-url <url>", "provisioning base URL")
    .requiredOption("--install-id <id>", "install id");
  secretOptions(set, INSTALL_SECRET)
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON")
    .addHelpText("after", secretHelp("provisioning set", INSTALL_SECRET))
    .action(async (opts: CommonOptions & { baseUrl: string; installId: string }, command: Command) => {
      const installSecret = await secretOf(command, INSTALL_SECRET);
      // Allowed before the first start, given the key the server will have: an install can be provisioned
      // before it serves.
      const { services, close } = openServices(opts, { withEncryptionKey: true });
      try {
        services.instance.setProvisioning({
          base_url: opts.baseUrl,
          install_id: opts.installId,
          install_secret: installSecret,
        });
        print(opts.json, { ok: true }, "provisioning settings stored");
      } finally {
        close();
      }
    });

  provisioning
    .command("show")
    .description("show the effective settings (the secret only as a hint)")
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON")
    .action((opts: CommonOptions) => {
      const { services, close } = openServices(opts, { withEncryptionKey: true, mustExist: true });
      try {
        const entries = services.instance.provisioning();
        const enabled = services.instance.publicInstance().provisioning_enabled;
        print(
          opts.json,
          { provisioning_enabled: enabled, settings: entries },
          [
            `provisioning ${enabled ? "enabled" : "disabled"}`,
            ...entries.map((e) => `${e.key}\t${e.value ?? "-"}\t(${e.source})`),
          ].join("\n"),
        );
      } finally {
        close();
      }
    });

  provisioning
    .command("clear")
    .description("remove the stored settings")
    .option("--data <dir>", "data directory")
    .option(...DATABASE_URL_OPTION)
    .option("--json", "print JSON")
    .action((opts: CommonOptions) => {
      const { services, close } = openServices(opts, { mustExist: true });
      try {
        services.instance.clearProvisioning();
        print(opts.json, { ok: true }, "provisioning settings cleared");
      } finally {
        close();
      }
    });
  groupAction(provisioning, "set, show or clear");
}
