/**
 * SQLite's SQL, as drizzle's SQLite dialect and the stores write it, said in PostgreSQL's. The stores have one
 * text per statement; this turns it, once per statement, into the text PostgreSQL runs and the order its
 * parameters bind in:
 *
 * - `?` placeholders become `$1`, `$2`, ...; named ones (`$name`, `:name`, `@name`) become positional, each name
 *   bound from the object the statement is run with;
 * - the few SQLite words with another spelling in PostgreSQL (`INSERT OR IGNORE`, `group_concat`,
 *   `json_group_array`, `json_each`, `json_extract`, `instr`) are respelled; the `tandem_json_*` functions they
 *   become are made by PostgreSQL's first migration, with SQLite's answers (JSON as text, arrays' elements);
 * - SQLite's scalar `max(a, b)` and `min(a, b)` become `greatest` and `least`;
 * - a camelCase alias (`AS spaceId`) is quoted, as PostgreSQL would fold it to lower case.
 *
 * String literals, quoted identifiers and comments are copied as they are.
 */

export interface Translated {
  /** The statement in PostgreSQL's SQL. */
  readonly text: string;
  /** For named parameters: the name each `$n` binds, in order; null for positional ones. */
  readonly names: readonly string[] | null;
  /** How many positional parameters the statement takes. */
  readonly count: number;
  /**
   * The parameters (1-based) a `LIMIT` takes: SQLite reads a negative limit as none, PostgreSQL refuses it, so
   * one is bound as NULL (no limit) there.
   */
  readonly limits: readonly number[];
}

const WORD_REWRITES: readonly [RegExp, string][] = [
  [/\bINSERT\s+OR\s+IGNORE\s+INTO\b/gi, "INSERT INTO"],
  [/\bgroup_concat\s*\(/gi, "string_agg("],
  [/\bjson_group_array\s*\(/gi, "tandem_json_agg("],
  [/\binstr\s*\(/gi, "strpos("],
  [/\bjson_each\s*\(/gi, "tandem_json_each("],
  [/\bjson_extract\s*\(/gi, "tandem_json_extract("],
  // A row's address, for the deletes that go in steps.
  [/\browid\b/gi, "ctid"],
];

/** Translates one statement. */
export function translate(sql: string): Translated {
  let out = "";
  let count = 0;
  const names: string[] = [];
  const byName = new Map<string, number>();
  let named = false;
  let chunk = "";
  const flush = () => {
    out += rewriteWords(chunk);
    chunk = "";
  };
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i] as string;
    if (c === "'" || c === '"' || c === "`") {
      flush();
      const end = closing(sql, i, c);
      const quoted = sql.slice(i, end + 1);
      out += c === "`" ? `"${quoted.slice(1, -1)}"` : quoted;
      i = end;
      continue;
    }
    if (c === "-" && sql[i + 1] === "-") {
      flush();
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end;
      out += "\n";
      continue;
    }
    if (c === "/" && sql[i + 1] === "*") {
      flush();
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 1;
      out += " ";
      continue;
    }
    if (c === "?") {
      flush();
      // `?NNN` numbers a parameter; drizzle writes plain `?`.
      const digits = /^\d+/.exec(sql.slice(i + 1))?.[0];
      if (digits) {
        out += `$${digits}`;
        count = Math.max(count, Number(digits));
        i += digits.length;
      } else {
        out += `$${++count}`;
      }
      continue;
    }
    if (
      (c === "$" || c === ":" || c === "@") &&
      /[A-Za-z_]/.test(sql[i + 1] ?? "") &&
      !(c === ":" && sql[i - 1] === ":")
    ) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))?.[0] as string;
      flush();
      named = true;
      let n = byName.get(name);
      if (n === undefined) {
        names.push(name);
        n = names.length;
        byName.set(name, n);
      }
      out += `$${n}`;
      i += name.length;
      continue;
    }
    chunk += c;
  }
  flush();
  // `$1 IS NULL`: PostgreSQL cannot tell a parameter's type from IS; text takes any value bound there.
  out = out.replace(/(\$\d+)(\s+IS\b)/gi, "$1::text$2");
  if (ignoresConflicts(sql)) out = onConflictDoNothing(out);
  // drizzle names a conflict target's columns with their table (`("t"."c")`): PostgreSQL takes bare names.
  out = out.replace(
    /\bon conflict\s*\(([^)]*)\)/gi,
    (_, cols: string) => `on conflict (${cols.replace(/"[^"]+"\."([^"]+)"/g, '"$1"')})`,
  );
  out = scalarMinMax(out);
  if (named && count > 0) throw new Error("a statement mixes named and positional parameters");
  const limits = [...out.matchAll(/\blimit\s+\$(\d+)/gi)].map((m) => Number(m[1]));
  return { text: out, names: named ? names : null, count: named ? names.length : count, limits };
}

function rewriteWords(text: string): string {
  let out = text;
  for (const [pattern, replacement] of WORD_REWRITES) out = out.replace(pattern, replacement);
  // A camelCase alias (`space_id AS spaceId`) keeps its case in SQLite; PostgreSQL folds a bare name to lower
  // case, so it is quoted, wherever it is named.
  return out.replace(/(?<![\w"$])([a-z][a-z0-9_]*[A-Z][A-Za-z0-9_]*)(?![\w"(])/g, '"$1"');
}

/** The index of the quote that closes the one at `start` (a doubled quote stands for itself). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i;
    }
    i++;
  }
  return sql.length - 1;
}

/** Whether an `INSERT` was `INSERT OR IGNORE` (PostgreSQL says it at the end: `ON CONFLICT DO NOTHING`). */
function ignoresConflicts(sql: string): boolean {
  return /^\s*INSERT\s+OR\s+IGNORE\b/i.test(sql);
}

/** `ON CONFLICT DO NOTHING` before the statement's `RETURNING`, or at its end. */
function onConflictDoNothing(text: string): string {
  const returning = /\sRETURNING\s/i.exec(text);
  if (!returning) return `${text.replace(/;?\s*$/, "")} ON CONFLICT DO NOTHING`;
  return `${text.slice(0, returning.index)} ON CONFLICT DO NOTHING${text.slice(returning.index)}`;
}

/**
 * SQLite's `max(a, b)` and `min(a, b)` of several arguments are scalar functions, PostgreSQL's `greatest` and
 * `least` (which skip a NULL where SQLite answers NULL: the statements here give none). Of one argument they stay
 * aggregates.
 */
function scalarMinMax(text: string): string {
  let out = text;
  const call = /\b(max|min)\s*\(/gi;
  for (let found = call.exec(out); found; found = call.exec(out)) {
    const open = found.index + found[0].length - 1;
    if (commasAt(out, open) === 0) continue;
    const name = (found[1] as string).toLowerCase() === "max" ? "greatest" : "least";
    out = `${out.slice(0, found.index)}${name}${out.slice(found.index + (found[1] as string).length)}`;
    call.lastIndex = found.index + name.length;
  }
  return out;
}

/** How many commas separate the arguments of the call whose `(` is at `open` (nested calls and quotes skipped). */
function commasAt(text: string, open: number): number {
  let depth = 0;
  let commas = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') i = closing(text, i, c);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return commas;
    else if (c === "," && depth === 1) commas++;
  }
  return commas;
}
