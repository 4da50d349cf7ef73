/**
 * The VAPID key of an install on PostgreSQL (contract §9), where several nodes serve one database: a browser
 * subscribes to Web Push with the key's public half, and its push service refuses pushes signed with another,
 * so every node pushes with the same key. The first node to start makes it and stores it in the settings,
 * encrypted under APP_SSH_ENCRYPTION_KEY as every secret at rest is; the others read it. On SQLite the key stays
 * in the data dir (config.ts); TANDEM_VAPID_PRIVATE_KEY, when set, wins on either engine.
 */
import { ConfigError, newVapidPrivateKey, parseVapidPrivateKey } from "../../config";
import type { Db } from "../../db/client";
import { DecryptError, decryptSecret, encryptSecret } from "../../lib/encryption";
import { SettingsStore } from "./instance.store";

/** The setting that holds the encrypted key (`v1:...`, lib/encryption.ts). */
export const VAPID_SETTING = "push.vapid_private_key";

/** The database's VAPID private key, made and stored by the first node that asks. */
export function sharedVapidKey(db: Db, encryptionKey: Uint8Array): Uint8Array {
  const stored = new SettingsStore(db).getOrAdd(VAPID_SETTING, () =>
    encryptSecret(encryptionKey, newVapidPrivateKey()),
  );
  let key: string;
  try {
    key = decryptSecret(encryptionKey, stored);
  } catch (error) {
    if (!(error instanceof DecryptError)) throw error;
    throw new ConfigError(
      "the VAPID key stored in the database cannot be read with this APP_SSH_ENCRYPTION_KEY: every node needs the key of the node that stored it",
    );
  }
  return parseVapidPrivateKey(key);
}

/**
 * Stores `key` (base64url, as the data dir's file holds it) as the database's VAPID key, in the caller's
 * transaction: `migrate-to-postgres` carries a SQLite install's key over, so its browsers' subscriptions go on.
 */
export function storeVapidKey(db: Db, encryptionKey: Uint8Array, key: Uint8Array): void {
  new SettingsStore(db).set(VAPID_SETTING, encryptSecret(encryptionKey, Buffer.from(key).toString("base64url")));
}
