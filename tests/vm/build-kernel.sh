#!/bin/bash
# Build (or find cached) the VKMS guest kernel and print the bzImage path on stdout.
#
# The kernel comes from Debian's linux-source-6.1 package: `make tinyconfig` plus the
# fragment in kernel.config. The image is cached under ${XDG_CACHE_HOME:-$HOME/.cache}/wbc/
# keyed by a hash of the fragment, this script and the source package version, so a second
# run costs nothing. Concurrent callers serialise on a lock file.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/kernel.config
cache=${XDG_CACHE_HOME:-$HOME/.cache}/wbc
tarball=${WBC_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
log() { echo "build-kernel: $*" >&2; }

if [ ! -r "$tarball" ]; then
	log "no kernel source at $tarball (apt-get install linux-source-6.1)"
	exit 1
fi
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %s "$tarball")
key=$(cat "$fragment" "$0" | sha256sum | cut -c1-16)-$srcver
image=$cache/bzImage-$key

mkdir -p "$cache"
exec 9>"$cache/kernel.lock"
flock 9

if [ -s "$image" ]; then
	echo "$image"
	exit 0
fi

src=$cache/linux-$srcver
if [ ! -f "$src/Makefile" ]; then
	log "extracting $tarball"
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
fi

out=$cache/build-$key
rm -rf "$out"
mkdir -p "$out"
log "building kernel $srcver (config $key) in $out"
start=$(date +%s)
make -C "$src" O="$out" -s tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$fragment" >/dev/null
make -C "$src" O="$out" -s olddefconfig >&2

# merge_config silently drops options whose dependencies are unmet: refuse such a config
# rather than boot a guest that lacks something a test relies on.
missing=0
while IFS= read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	if ! grep -qx "$line" "$out/.config"; then
		log "option not in final config: $line"
		missing=1
	fi
done <"$fragment"
[ "$missing" = 0 ] || exit 1

make -C "$src" O="$out" -s -j"$(nproc)" bzImage >&2
cp "$out/arch/x86/boot/bzImage" "$image.tmp"
mv "$image.tmp" "$image"
log "built $(stat -c %s "$image") bytes in $(( $(date +%s) - start )) s"
rm -rf "$out"
echo "$image"
