#!/usr/bin/env bash
# `make deb`, then what the package must hold: unpacked into a temporary root (never installed on this machine), its
# binary runs the demo from there, its man pages, completions, conffile and maintainer scripts are where Debian looks,
# its systemd unit passes `systemd-analyze verify` with no complaint (where systemd-analyze exists), and lintian, when
# installed, reports only the tags contrib/debian/lintian-expected lists and explains. Removes its root whatever happens.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/steptweet-deb-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "deb-test: $*" >&2; exit 1; }

deb=$(make -s -C "$ROOT" deb DEB_DIR="$work" | tail -1)
[ -f "$deb" ] || fail "make deb printed no package: $deb"
case "$(basename "$deb")" in steptweet_*_"$(dpkg --print-architecture)".deb) ;; *) fail "badly named: $deb" ;; esac

dpkg-deb -x "$deb" "$work/root"
dpkg-deb -e "$deb" "$work/DEBIAN"
r="$work/root"
for f in usr/bin/steptweet usr/share/man/man1/steptweet.1.gz usr/share/man/man5/steptweet.toml.5.gz \
    usr/share/bash-completion/completions/steptweet usr/share/zsh/vendor-completions/_steptweet \
    usr/share/fish/vendor_completions.d/steptweet.fish lib/systemd/system/steptweet.service \
    etc/steptweet/config.toml usr/share/doc/steptweet/copyright usr/share/doc/steptweet/changelog.gz; do
    [ -s "$r/$f" ] || fail "the package has no $f"
done
grep -qx /etc/steptweet/config.toml "$work/DEBIAN/conffiles" || fail "config.toml is not a conffile"
for s in postinst prerm postrm; do [ -x "$work/DEBIAN/$s" ] || fail "no executable $s"; done
grep -q "adduser --system" "$work/DEBIAN/postinst" || fail "postinst makes no system user"
grep -q "install -m 0600" "$work/DEBIAN/postinst" || fail "postinst makes no 0600 secrets file"
grep -q '^Depends: adduser' "$work/DEBIAN/control" || fail "control does not depend on adduser"

# The binary from the unpacked root, with nothing of the checkout or the build on its path.
version=$(env -i PATH=/usr/bin:/bin "$r/usr/bin/steptweet" --version)
grep -q "^Version: $version$" "$work/DEBIAN/control" || fail "control's version is not the binary's $version"
demo=$(cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work" "$r/usr/bin/steptweet" demo) || fail "demo exited $?"
grep -q "^endpoint: kept 2 post(s), 0 duplicate(s)$" <<<"$demo" || fail "the packaged demo did not end as it should"
# The packaged sample configuration is the one `init` writes.
diff <(env -i PATH=/usr/bin:/bin HOME="$work" "$r/usr/bin/steptweet" init --config "$work/init.toml" >/dev/null &&
    cat "$work/init.toml") "$r/etc/steptweet/config.toml" >/dev/null || fail "etc/steptweet/config.toml is not init's sample"

unit="$r/lib/systemd/system/steptweet.service"
grep -q '^User=steptweet$' "$unit" || fail "the service does not run as steptweet"
grep -q '^StateDirectory=steptweet$' "$unit" || fail "the service has no /var/lib/steptweet"
grep -q '^EnvironmentFile=-/etc/steptweet/env$' "$unit" || fail "the service reads no secrets file"
if command -v systemd-analyze >/dev/null; then
    # The unit as installed, its ExecStart pointed at the unpacked binary (this machine has none in /usr/bin).
    sed "s#/usr/bin/steptweet#$r/usr/bin/steptweet#" "$unit" >"$work/steptweet.service"
    complaints=$(systemd-analyze verify --man=no "$work/steptweet.service" 2>&1) || fail "systemd-analyze: $complaints"
    [ -z "$complaints" ] || fail "systemd-analyze verify: $complaints"
    checked="systemd-analyze verify clean"
else
    checked="no systemd-analyze here"
fi
if command -v lintian >/dev/null; then
    tags=$(lintian --tag-display-limit 0 "$deb" 2>&1 | awk '/^[EWIPX]: steptweet/ {print $3, $4}' | sort -u || true)
    expected=$( (grep -v '^#' "$ROOT/contrib/debian/lintian-expected" || true) | awk 'NF {print $1, $2}' | sort -u)
    unexplained=$(comm -23 <(echo "$tags") <(echo "$expected") | sed '/^ *$/d')
    [ -z "$unexplained" ] || fail "lintian tags not explained in contrib/debian/lintian-expected: $unexplained"
    checked="$checked, lintian: $(echo "$tags" | sed '/^ *$/d' | wc -l) explained tag(s)"
else
    checked="$checked, no lintian here"
fi
echo "deb-test: OK: $(basename "$deb") ($(($(stat -c %s "$deb") / 1000)) kB), demo from its root, $checked"
