/** The install itself: health, what the public may know, first-run setup and provisioning settings. */
import { timingSafeEqual } from "node:crypto";
import { BUILD, type Config, PROVISIONING_KEYS, type ProvisioningKey } from "../../config";
import { AppError, conflict, forbidden, invalid } from "../../core/errors";
import { orgEvent } from "../../core/events";
import type { StorageHealth } from "../../db/health";
import type { UnitOfWork } from "../../db/unit";
import { DecryptError, decryptSecret, encryptSecret, secretHint } from "../../lib/encryption";
import type { AuthService } from "../auth/auth.service";
import type { OrganizationService } from "../organization/organization.service";
import type { SetupIn, SetupOut } from "./instance.schemas";
import type { SettingsStore } from "./instance.store";

const SETTING = (key: ProvisioningKey) => `provisioning.${key}`;

/** One provisioning setting as `tandem provisioning show` prints it; the secret only as a hint. */
export interface ProvisioningEntry {
  key: ProvisioningKey;
  value: string | null;
  /** `unreadable`: stored under another encryption key than the one loaded. */
  source: "env" | "stored" | "unreadable" | "unset";
}

/** The install's own operations. */
export class InstanceService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly config: Config,
    private readonly settings: SettingsStore,
    private readonly organization: OrganizationService,
    private readonly sessions: AuthService,
    /** The encryption key, when this process has loaded it (serve and the provisioning commands). */
    private readonly encryptionKey: Uint8Array | null,
    /** The one-time token of the setup URL, held only by a serving process that started without an org. */
    private readonly setupToken: string | null,
    /** Whether the data dir still keeps what it is given. */
    private readonly storage: StorageHealth,
  ) {}

  /** `ok` with the build, or 503 saying what failed: the database or the data dir (no path, no detail beyond). */
  health() {
    const problem = this.storage.problem();
    if (problem !== null) throw new AppError("unavailable", problem);
    return { status: "ok", version: BUILD.version, git_sha: BUILD.gitSha };
  }

  publicInstance() {
    const values = this.provisioningValues();
    const enabled = PROVISIONING_KEYS.every((k) => values[k]);
    return {
      provisioning_enabled: enabled,
      provisioning_base_domain: enabled ? hostnameOf(values.base_url ?? "") : "",
      needs_setup: this.organization.needsSetup(),
      open_signups_enabled: this.organization.signupsOpen(),
      email_enabled: this.config.smtp !== null,
    };
  }

  /** First-run setup from the web page: needs the token of the logged setup URL; signs the owner in. */
  async setupFromWeb(input: SetupIn): Promise<SetupOut> {
    if (!this.organization.needsSetup()) throw conflict("organization already exists");
    if (!this.setupToken || !sameSecret(input.token, this.setupToken)) throw forbidden("invalid setup token");
    const { org, user } = await this.organization.setup({
      orgName: input.org_name,
      adminEmail: input.admin_email,
      adminPassword: input.admin_password,
      adminName: input.admin_name,
    });
    return { organization_id: org.id, user_id: user.id, ...(await this.sessions.startSession(user.id)) };
  }

  // Backups

  /**
   * Announces a backup written from this database, or this database restored from one, in the install's
   * organization (none yet: nothing to tell); the command line does both, as no one signed in.
   */
  backupMade(type: "backup.created" | "backup.restored", file: string, bytes: number): void {
    const org = this.organization.current();
    if (!org) return;
    this.uow.write((unit) => unit.emit(orgEvent(org.id, type, { file, bytes })));
  }

  // Provisioning

  /** The effective settings: env first, then stored (the secret decrypted). */
  private provisioningValues(): Partial<Record<ProvisioningKey, string>> {
    const values: Partial<Record<ProvisioningKey, string>> = {};
    for (const key of PROVISIONING_KEYS) {
      const value = this.config.provisioningEnv[key] ?? this.stored(key);
      if (value) values[key] = value;
    }
    return values;
  }

  private stored(key: ProvisioningKey): string | undefined {
    const raw = this.settings.get(SETTING(key));
    if (raw === undefined) return undefined;
    // The secret is encrypted at rest; its presence is all that counts when the key is not loaded.
    if (key !== "install_secret") return raw;
    if (!this.encryptionKey) return raw;
    try {
      return decryptSecret(this.encryptionKey, raw);
    } catch (error) {
      // Stored under another key (a restore without the old key): as good as unset, never a 500.
      if (error instanceof DecryptError) return undefined;
      throw error;
    }
  }

  provisioning(): ProvisioningEntry[] {
    return PROVISIONING_KEYS.map((key) => {
      const env = this.config.provisioningEnv[key];
      const value = env ?? this.stored(key) ?? null;
      const shown = key === "install_secret" && value !== null ? secretHint(value) : value;
      const isStored = this.settings.get(SETTING(key)) !== undefined;
      const source = env !== undefined ? "env" : value !== null ? "stored" : isStored ? "unreadable" : "unset";
      return { key, value: shown, source };
    });
  }

  setProvisioning(values: Record<ProvisioningKey, string>): void {
    let url: URL;
    try {
      url = new URL(values.base_url);
    } catch {
      throw invalid("base-url: must be an http(s) URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("base-url: must be an http(s) URL");
    if (!values.install_id.trim()) throw invalid("install-id: must not be empty");
    if (!values.install_secret) throw invalid("install-secret: must not be empty");
    if (!this.encryptionKey) throw new Error("the encryption key is needed to store the install secret");
    const secret = encryptSecret(this.encryptionKey, values.install_secret);
    // The three together or none: a half-stored provisioning would answer with another install's id.
    this.uow.write(() => {
      this.settings.set(SETTING("base_url"), values.base_url);
      this.settings.set(SETTING("install_id"), values.install_id.trim());
      this.settings.set(SETTING("install_secret"), secret);
    });
  }

  clearProvisioning(): void {
    this.uow.write(() => {
      for (const key of PROVISIONING_KEYS) this.settings.delete(SETTING(key));
    });
  }
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
