/**
 * The import rules of the source tree, read from the imports themselves (docs: ARCHITECTURE.md): transport
 * knows no feature, the core knows only itself and `lib/`, and a feature reaches another feature through its
 * service, never its store.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "./helpers/server";

const SRC = join(ROOT, "src");

/** Every TypeScript file below `dir`, relative to `src/`. */
function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [relative(SRC, path)] : [];
  });
}

interface Import {
  from: string;
  line: number;
  /** The imported module, relative to `src/` (no extension); null for a package. */
  to: string | null;
}

const IMPORT = /(?:^|\s)(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The imports of one file (static, re-exports, and dynamic with a literal path). */
function importsOf(file: string): Import[] {
  const text = readFileSync(join(SRC, file), "utf8");
  return [...text.matchAll(IMPORT)].map((match) => {
    const spec = (match[1] ?? match[2]) as string;
    const line = text.slice(0, match.index).split("\n").length;
    const to = spec.startsWith(".") ? relative(SRC, resolve(SRC, dirname(file), spec)).replace(/\.tsx?$/, "") : null;
    return { from: file, line, to };
  });
}

const FILES = sources();
const IMPORTS = FILES.flatMap(importsOf);

/** `features/<name>/...` → `<name>`; anything else → null. */
const featureOf = (path: string) => /^features\/([^/]+)\//.exec(path)?.[1] ?? null;
const under = (path: string, folder: string) => path.startsWith(`${folder}/`);
const where = (i: Import) => `src/${i.from}:${i.line} imports src/${i.to}`;

/** The imports breaking a rule, as `file:line imports module`. */
const breaking = (rule: (i: Import & { to: string }) => boolean) =>
  IMPORTS.filter((i): i is Import & { to: string } => i.to !== null && rule(i as Import & { to: string })).map(where);

describe("the import rules", () => {
  it("reads the tree it checks", () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(IMPORTS.filter((i) => i.to !== null).length).toBeGreaterThan(500);
    expect(FILES.filter((f) => under(f, "http")).length).toBeGreaterThan(5);
    expect(new Set(FILES.map(featureOf).filter(Boolean)).size).toBeGreaterThan(10);
  });

  it("http/ is transport only: it imports no feature, no job, no collaborative editing", () => {
    expect(
      breaking((i) => under(i.from, "http") && ["features", "jobs", "collab"].some((f) => under(i.to, f))),
    ).toEqual([]);
  });

  it("core/ imports only core/ and lib/", () => {
    expect(breaking((i) => under(i.from, "core") && !under(i.to, "core") && !under(i.to, "lib"))).toEqual([]);
  });

  it("db/ and lib/ import no feature, no transport, no job", () => {
    expect(
      breaking(
        (i) =>
          (under(i.from, "db") || under(i.from, "lib")) &&
          ["features", "http", "jobs", "collab"].some((f) => under(i.to, f)),
      ),
    ).toEqual([]);
  });

  it("jobs/ is the generic durable runner: it imports no feature (each job kind lives with its feature)", () => {
    expect(
      breaking((i) => under(i.from, "jobs") && ["features", "http", "collab"].some((f) => under(i.to, f))),
    ).toEqual([]);
  });

  it("no feature imports another feature's store: it asks that feature's service", () => {
    expect(
      breaking((i) => {
        const mine = featureOf(i.from);
        const theirs = featureOf(i.to);
        return mine !== null && theirs !== null && mine !== theirs && i.to.endsWith(".store");
      }),
    ).toEqual([]);
  });

  it("nothing below features/, http/, core/, db/ or jobs/ imports the composition root (services, app, server)", () => {
    const roots = ["services", "app", "server"];
    expect(breaking((i) => !roots.includes(i.from.replace(/\.tsx?$/, "")) && roots.includes(i.to))).toEqual([]);
  });
});
