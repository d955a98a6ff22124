#!/usr/bin/env bash
# `make install` into a temporary PREFIX, then what the installed copy must do away from the checkout: the binary is
# stripped, `steptweet demo` replays its built-in recording from a folder that is not the checkout, and both man pages
# are installed and render (examples one per line, every configuration table). Removes the PREFIX whatever happens.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=$(mktemp -d "${TMPDIR:-/tmp}/steptweet-install.XXXXXX")
trap 'rm -rf "$PREFIX"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }

make -C "$ROOT" install PREFIX="$PREFIX"
bin="$PREFIX/bin/steptweet"

# Stripped: no symbol table, no debug sections.
if readelf -S --wide "$bin" | grep -qE '\.symtab|\.debug_'; then fail "$bin is not stripped"; fi

# The demo from another folder, with nothing of the checkout on its path.
demo=$(cd "$PREFIX" && env -i PATH=/usr/bin:/bin HOME="$PREFIX" "$bin" demo) || fail "demo exited $?"
grep -q "^demo: replaying the built-in demo_walk_50hz.csv" <<<"$demo" || fail "demo did not replay its recording"
grep -q "^endpoint: kept 2 post(s), 0 duplicate(s)$" <<<"$demo" || fail "demo did not end as it should: $demo"

# The man pages: examples one per line in steptweet(1), every table and key section in steptweet.toml(5).
page=$(MANWIDTH=100 man -l "$PREFIX/share/man/man1/steptweet.1" 2>/dev/null)
grep -qE '^ +steptweet count --plot walk.svg walk.csv$' <<<"$page" || fail "steptweet(1): examples run together"
config=$(MANWIDTH=100 man -l "$PREFIX/share/man/man5/steptweet.toml.5" 2>/dev/null)
for table in '\[source\]' '\[schedule\]' '\[text\]' '\[\[publish\]\]' '\[state\]' '\[push\]'; do
    grep -qE "^ +$table$" <<<"$config" || fail "steptweet.toml(5) has no $table section"
done

size=$(stat -c %s "$bin")
echo "install-test: OK: $bin stripped ($((size / 1000000)) MB), demo from $PREFIX, steptweet(1) and steptweet.toml(5)"
