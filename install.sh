#!/usr/bin/env sh
# Sets Tandem up on a machine with only Node.js and npm: Bun and every dependency from the npm registry,
# then the web UI and the single executable dist/tandem. Safe to run again.
set -eu
cd "$(dirname "$0")"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install.sh: Node.js and npm are needed" >&2
  exit 1
fi

# Dependencies, Bun included (a pinned dev dependency, so every machine builds with the same Bun), at the
# versions of package-lock.json. `npm install` rather than `npm ci`: a registry that lacks some platforms'
# optional packages leaves them out of the lockfile, and `npm ci` then refuses it. `--no-save`: the lockfile is
# read, never rewritten, so a fresh clone's tree stays as it was checked out. Run again only when the lockfile
# changed since the last install.
if [ ! -x node_modules/.bin/bun ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund --no-save
fi

BUN=node_modules/.bin/bun
if ! "$BUN" --version >/dev/null 2>&1; then
  # The bun package's install script may have been skipped; it ships its binary in a platform package.
  npm rebuild bun
fi
echo "install.sh: bun $("$BUN" --version)"

PATH="$(pwd)/node_modules/.bin:$PATH" "$BUN" scripts/build.ts
