/** Loaded before every test file (bunfig.toml): what the whole run shares is ended after its last test. */
import { afterAll } from "bun:test";
import { stopPostgres } from "./postgres";

// Bun's test runner does not emit `exit`: the PostgreSQL cluster of the run is stopped here.
afterAll(() => stopPostgres());
