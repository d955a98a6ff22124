#!/usr/bin/env bash
# Builds steptweet_VERSION_ARCH.deb (`make deb`): the static, stripped binary, both man pages, bash, zsh and fish
# completions, the sample configuration as /etc/steptweet/config.toml (a conffile), and a systemd system service
# running as the package's own `steptweet` user with its state in /var/lib/steptweet.
# Usage: build-deb.sh BINARY MAN1 MAN5 OUTDIR
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?binary}; man1=${2:?steptweet.1}; man5=${3:?steptweet.toml.5}; outdir=${4:?output folder}
version=$("$bin" --version)
arch=$(dpkg --print-architecture)
stage=$(mktemp -d "${TMPDIR:-/tmp}/steptweet-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/root"

install -D -m 755 "$bin" "$root/usr/bin/steptweet"
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/steptweet"
install -d "$root/usr/share/man/man1" "$root/usr/share/man/man5"
# argument-parser's generated page separates paragraphs by empty lines, which groff warns about: `.sp` is the same
# space without the warning.
sed 's/^$/.sp/' "$man1" | gzip -9n >"$root/usr/share/man/man1/steptweet.1.gz"
gzip -9n <"$man5" >"$root/usr/share/man/man5/steptweet.toml.5.gz"
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
# bash sources completions, so the script's #! line is noise (lintian: bash-completion-with-hashbang).
"$bin" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/steptweet"
"$bin" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_steptweet"
"$bin" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/steptweet.fish"
install -D -m 644 "$here/steptweet.service" "$root/lib/systemd/system/steptweet.service"
install -D -m 644 "$here/../config.sample.toml" "$root/etc/steptweet/config.toml"
install -D -m 644 "$here/copyright" "$root/usr/share/doc/steptweet/copyright"
printf '%s\n' "steptweet ($version) unstable; urgency=medium" "" "  * Built from the repository by make deb." "" \
    " -- StepCountTweeter developers <steptweet-developers@users.noreply.github.com>  $(date -R -d @"${SOURCE_DATE_EPOCH:-$(date +%s)}")" |
    gzip -9n >"$root/usr/share/doc/steptweet/changelog.gz"

# Depends: the packages holding the shared libraries the binary still links (the Swift runtime is inside it).
depends=adduser
for lib in $(objdump -p "$bin" | awk '/NEEDED/ {print $2}'); do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && !found {print $NF; found = 1}')
    [ -n "$path" ] || { echo "build-deb: $lib, which the binary needs, is not installed" >&2; exit 1; }
    # The owner of the library's file (usr-merge: dpkg may know it by its /lib or its /usr/lib path).
    owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null ||
        dpkg -S "${path#/usr}" 2>/dev/null) || { echo "build-deb: no package owns $path" >&2; exit 1; }
    package=$(awk -F: 'NR == 1 {print $1}' <<<"$owner")
    case ",$depends," in *",$package,"*) ;; *) depends="$depends, $package" ;; esac
done

install -d -m 755 "$root/DEBIAN"
install -m 755 "$here/postinst" "$here/prerm" "$here/postrm" "$root/DEBIAN/"
echo /etc/steptweet/config.toml >"$root/DEBIAN/conffiles"
cat >"$root/DEBIAN/control" <<CONTROL
Package: steptweet
Version: $version
Architecture: $arch
Maintainer: StepCountTweeter developers <steptweet-developers@users.noreply.github.com>
Installed-Size: $(du -ks --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: librsvg2-2, fonts-dejavu-core, fonts-ipaexfont-gothic
Section: utils
Priority: optional
Homepage: https://github.com/stepcounttweeter/steptweet
Description: posts your step counts on each background fetch
 steptweet reads steps from accelerometer recordings, pedometer logs, health
 exports, a live Linux sensor and phone apps that push to its receiver, stores
 them in SQLite and, on each background fetch, posts the window's count (with a
 chart, if asked) to Mastodon, X, Bluesky, Misskey, Matrix, ntfy or a webhook,
 exactly once.
CONTROL
find "$root" -type d -exec chmod 755 {} +
out="$outdir/steptweet_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
