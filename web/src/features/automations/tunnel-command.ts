/**
 * The `tandem tunnel` command that connects a local service to a reverse_tunnel automation, as the page offers it
 * to copy: one option a line, ready to paste into a POSIX shell. The token is asked for on standard input
 * (`--token -`), so it stays out of `ps` and the shell's history, as docs/operations.md advises.
 */

/** `value` as one shell word: as it is when plain, else single-quoted (so `&` or `?` in an address stay in it). */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** The command for Tandem at `server` (its origin, as in the browser), `automationId` and the service at `target`. */
export function tunnelCommand(server: string, automationId: string, target: string): string {
  return [
    "tandem tunnel \\",
    `  --server ${shellWord(server)} \\`,
    `  --automation ${automationId} \\`,
    `  --to ${shellWord(target)} \\`,
    "  --token -",
  ].join("\n");
}

/**
 * Why `tandem tunnel` would refuse `target` as its `--to`, or null: it takes an http(s) origin, such as
 * `http://127.0.0.1:3000`, without a path, query or user.
 */
export function targetProblem(target: string): string | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return "An address such as http://127.0.0.1:3000.";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "It starts with http:// or https://.";
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "")
    return "Only the scheme, host and port, such as http://127.0.0.1:3000: no path.";
  return null;
}
