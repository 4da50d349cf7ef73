/** Fails when the schema would generate a migration that is not committed under migrations/. */

import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { $ } from "bun";

const out = mkdtempSync(join(tmpdir(), "tandem-migrations-"));
try {
  cpSync("migrations", out, { recursive: true });
  const before = readdirSync(out).filter((f) => f.endsWith(".sql")).length;
  await $`drizzle-kit generate --dialect sqlite --schema ./src/db/schema/index.ts --out ${out}`.quiet();
  const after = readdirSync(out).filter((f) => f.endsWith(".sql")).length;
  if (after !== before) {
    console.error("check:migrations: the schema changed without a migration; run `npm run db:generate` and commit it");
    process.exit(1);
  }
  console.log(`check:migrations: ${before} migration(s), schema matches`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
