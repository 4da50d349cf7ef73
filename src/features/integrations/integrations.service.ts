/**
 * The organization's provider keys (contract §6): stored AES-256-GCM encrypted under APP_SSH_ENCRYPTION_KEY,
 * shown only as a hint, decrypted only to call their provider.
 */

import type { OrgActor } from "../../core/actor";
import { conflict, notFound } from "../../core/errors";
import { orgEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { DecryptError, decryptSecret, encryptSecret, secretHint } from "../../lib/encryption";
import { ProviderError } from "../../providers/http";
import { type KeyCheckOut, PROVIDERS, type Provider } from "./integrations.schemas";
import type { IntegrationRow, IntegrationsStore } from "./integrations.store";

/** A provider name from a path: anything else is a route that does not exist. */
export function providerOf(raw: string): Provider {
  if (!(PROVIDERS as readonly string[]).includes(raw)) throw notFound("page not found");
  return raw as Provider;
}

/** A stored key that this server's APP_SSH_ENCRYPTION_KEY cannot open: it was stored under another one. */
export class UnreadableKey extends Error {
  constructor(readonly provider: Provider) {
    super(`the stored ${provider} key cannot be read with this server's APP_SSH_ENCRYPTION_KEY`);
  }
}

/**
 * One cheap authenticated call to a provider with a key: resolves when the provider accepts it, throws a
 * `ProviderError` saying what it answered otherwise.
 */
export type KeyCheck = (key: string, signal: AbortSignal) => Promise<void>;

/** Longer than a check's own attempt (10 s): the provider clients time out first, with their own words. */
const CHECK_DEADLINE_MS = 30_000;

export class IntegrationsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: IntegrationsStore,
    /** Null in CLI commands that never touch keys. */
    private readonly encryptionKey: Uint8Array | null,
    /** How each provider's key is checked; absent in CLI commands, which check none. */
    private readonly checks: Partial<Record<Provider, KeyCheck>> = {},
  ) {}

  get(actor: OrgActor, provider: Provider): IntegrationRow | undefined {
    return this.store.get(actor.orgId, provider);
  }

  put(actor: OrgActor, provider: Provider, apiKey: string): IntegrationRow {
    const row: IntegrationRow = {
      orgId: actor.orgId,
      provider,
      keyCiphertext: encryptSecret(this.key(), apiKey),
      keyHint: secretHint(apiKey),
      updatedBy: actor.userId,
      updatedAt: Date.now(),
    };
    this.uow.write((unit) => {
      const replaced = this.store.get(actor.orgId, provider) !== undefined;
      this.store.put(row);
      unit.emit(orgEvent(actor.orgId, "integration.key.set", { provider, replaced }, actor));
    });
    return row;
  }

  /** Removes the key; with none stored, nothing changes (and nothing is announced). */
  delete(actor: OrgActor, provider: Provider): void {
    this.uow.write((unit) => {
      if (this.store.get(actor.orgId, provider) === undefined) return;
      this.store.delete(actor.orgId, provider);
      unit.emit(orgEvent(actor.orgId, "integration.key.cleared", { provider }, actor));
    });
  }

  /**
   * Calls the provider once with the stored key: `{ok: true}` when it accepts it, else `{ok: false, error}` with
   * what it answered (its status and message, never the key). 409 when no key is stored, or when the stored one
   * cannot be read with this server's encryption key.
   */
  async test(actor: OrgActor, provider: Provider): Promise<KeyCheckOut> {
    let key: string | null;
    try {
      key = this.reveal(actor.orgId, provider);
    } catch (error) {
      if (!(error instanceof UnreadableKey)) throw error;
      throw conflict("the stored key cannot be read with this server's encryption key: store it again");
    }
    if (key === null) throw conflict("no key is set");
    const check = this.checks[provider];
    if (!check) throw new Error(`no check of ${provider} keys in this process`);
    try {
      await check(key, AbortSignal.timeout(CHECK_DEADLINE_MS));
      return { ok: true };
    } catch (error) {
      if (error instanceof ProviderError) return { ok: false, error: error.message };
      if (error instanceof DOMException && error.name === "TimeoutError") {
        return { ok: false, error: `no answer within ${CHECK_DEADLINE_MS / 1000} s` };
      }
      throw error;
    }
  }

  /**
   * The plain key, for the provider client only; null when none is stored. A key stored under another
   * encryption key throws UnreadableKey (restore the key it was stored with, or store it again).
   */
  reveal(orgId: string, provider: Provider): string | null {
    const row = this.store.get(orgId, provider);
    if (!row) return null;
    try {
      return decryptSecret(this.key(), row.keyCiphertext);
    } catch (error) {
      if (error instanceof DecryptError) throw new UnreadableKey(provider);
      throw error;
    }
  }

  /** The providers whose stored key this server cannot read (after a restore without the right key). */
  unreadable(): Provider[] {
    return this.store
      .all()
      .filter((row) => {
        try {
          decryptSecret(this.key(), row.keyCiphertext);
          return false;
        } catch (error) {
          if (error instanceof DecryptError) return true;
          throw error;
        }
      })
      .map((row) => row.provider as Provider);
  }

  private key(): Uint8Array {
    if (!this.encryptionKey) throw new Error("the encryption key is not loaded");
    return this.encryptionKey;
  }
}
