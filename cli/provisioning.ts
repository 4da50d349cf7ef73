/** `tandem provisioning set|show|clear`: the three provisioning settings (env vars of the same meaning win). */
import type { Command } from "commander";
import { type CommonOptions, groupAction, openServices, print } from "./common";

export function provisioningCommand(program: Command): void {
  const provisioning = program.command("provisioning").description("provisioning settings");

  provisioning
    .command("set")
    .description("store the provisioning base URL, install id and install secret (encrypted)")
    .requiredOption("--base-url <url>", "provisioning base URL")
    .requiredOption("--install-id <id>", "install id")
    .requiredOption("--install-secret <secret>", "install secret")
    .option("--data <dir>", "data directory")
    .option("--json", "print JSON")
    .action((opts: CommonOptions & { baseUrl: string; installId: string; installSecret: string }) => {
      // Allowed before the first start, given the key the server will have: an install can be provisioned
      // before it serves.
      const { services, close } = openServices(opts, { withEncryptionKey: true });
      try {
        services.instance.setProvisioning({
          base_url: opts.baseUrl,
          install_id: opts.installId,
          install_secret: opts.installSecret,
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
