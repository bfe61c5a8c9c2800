#!/bin/sh
# install.sh BUILD_DIR SOURCE_DIR CC SANITIZE MAN [VKMS_RUN]: `meson install --destdir`
# puts the commands, the man pages (MAN=true), the example systemd unit and libwbc-kms
# with its header and pkg-config file in place, and examples/kms-planes.c builds and runs
# against that install alone: only the installed header (so kms.h includes nothing
# private) and the shared library, which exports exactly the functions kms.h declares. With VKMS_RUN (tests/vm/vkms-run), the program then
# lists the planes of the VKMS device in a guest.
set -eu
build=$1 src=$2 cc=$3 sanitize=$4 man=$5 vkms_run=${6:-}
# In the build tree, not /tmp: a guest sees the project tree, and /tmp is its own.
d=$(mktemp -d "$(cd "$build" && pwd)/install-test.XXXXXX")
trap 'rm -rf "$d"' EXIT
fail() { echo "install: $*" >&2; exit 1; }

meson install -C "$build" --no-rebuild --quiet --destdir "$d/root" >"$d/install.log" 2>&1 ||
	{ cat "$d/install.log" >&2; fail "meson install failed"; }

pc=$(find "$d/root" -name wbc-kms.pc)
[ -n "$pc" ] || fail "no wbc-kms.pc installed"
prefix=$(sed -n 's/^prefix=//p' "$pc")
root=$d/root$prefix
for f in bin/wbc bin/wbcctl bin/wbc-kms-info bin/wbc-kms-check bin/wbc-vm include/wbc/kms.h \
		share/wbc/wbc-kiosk.service libexec/wbc/vm/vkms-run libexec/wbc/vm/guest-kernel \
		libexec/wbc/vm/guest-init libexec/wbc/vm/kernels libexec/wbc/vm/vkms-patches/6.12; do
	[ -e "$root/$f" ] || fail "$prefix/$f not installed"
done
# The recorder module, in the private directory the installed wbc's RUNPATH names (and
# only there: no build tree in it), with FFmpeg linked by it, not by wbc.
module=$(find "$root" -name wbc-recorder.so)
[ -n "$module" ] || fail "wbc-recorder.so not installed"
runpath=$(readelf -d "$root/bin/wbc" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]$/\1/p')
[ "$d/root$runpath" = "${module%/wbc-recorder.so}" ] ||
	fail "the installed wbc's RUNPATH is '$runpath', the module is at ${module#"$d/root"}"
ldd "$module" | grep -q libavcodec || fail "the installed module does not link libavcodec"
if [ "$man" = true ]; then
	for m in wbc wbcctl wbc-kms-info wbc-kms-check wbc-vm; do
		page=$root/share/man/man1/$m.1
		[ -e "$page" ] || fail "$prefix/share/man/man1/$m.1 not installed"
		# What a user gets from man: the page renders, sections and all, without a word
		# from groff.
		if command -v man >/dev/null; then
			MANWIDTH=80 man -l "$page" >"$d/man.txt" 2>"$d/man.err" || fail "man -l $m.1 failed"
			[ ! -s "$d/man.err" ] || { cat "$d/man.err" >&2; fail "man -l $m.1 complained"; }
			for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT EXAMPLES \
					"SEE ALSO"; do
				grep -q "^$section\$" "$d/man.txt" || fail "$m.1 has no $section section"
			done
		fi
	done
fi

# The .pc file names its paths from ${prefix}: point prefix at the destdir copy (libdrm's
# own .pc stays as it is, which PKG_CONFIG_SYSROOT_DIR would not allow).
mkdir "$d/pc"
sed "s|^prefix=.*|prefix=$root|" "$pc" >"$d/pc/wbc-kms.pc"
export PKG_CONFIG_PATH="$d/pc"
libdir=$(pkg-config --variable=libdir wbc-kms)
for f in libwbc-kms.so libwbc-kms.so.0 libwbc-kms.a; do
	[ -e "$libdir/$f" ] || fail "$f not in $libdir"
done
# The shared library's interface is kms.h: every function it declares is exported, and
# nothing else (the private functions are hidden).
sed -n 's/^WBC_KMS_API .*\b\(wbc_kms_[a-z0-9_]*\)(.*/\1/p' "$root/include/wbc/kms.h" | sort >"$d/declared"
nm -D --defined-only "$libdir/libwbc-kms.so" | awk '$2 == "T" { print $3 }' | sort >"$d/exported"
[ -s "$d/declared" ] || fail "no WBC_KMS_API function in the installed kms.h"
cmp -s "$d/declared" "$d/exported" || {
	diff "$d/declared" "$d/exported" >&2
	fail "libwbc-kms.so exports other functions than kms.h declares (< declared, > exported)"
}
flags=$(pkg-config --cflags --libs wbc-kms)
# An instrumented library needs an instrumented program.
san=
[ "$sanitize" = none ] || san=-fsanitize=$sanitize
# shellcheck disable=SC2086 # the compiler command and the flags are word lists
$cc -std=c11 -Wall -Werror $san -o "$d/kms-planes" "$src/examples/kms-planes.c" $flags ||
	fail "examples/kms-planes.c does not build with: $flags"

LD_LIBRARY_PATH=$libdir ldd "$d/kms-planes" | grep -q "libwbc-kms.so.0 => $libdir/" ||
	fail "kms-planes is not linked to the installed libwbc-kms.so.0"
# No device here: the library's own error message proves it ran.
out=$(LD_LIBRARY_PATH=$libdir "$d/kms-planes" /nonexistent/card 2>&1) && fail "opened a missing device"
[ "$out" = "kms-planes: cannot open /nonexistent/card: No such file or directory" ] ||
	fail "unexpected output: $out"
echo "install: $prefix holds the commands, man pages and libwbc-kms; kms-planes built with: $flags"
[ -n "$vkms_run" ] || exit 0

# On a real device: VKMS (booted with an overlay and a cursor plane) has one plane of each
# type on its CRTC, and the primary lists the formats VKMS composes. The guest is booted
# by the installed wbc-vm (the harness as others use it), which also runs drm_info there.
# ($vkms_run, the source tree's, says only that this test runs in the vkms suite.)
WBC_VM_PROJECT=$d "$root/bin/wbc-vm" --param enable_cursor=1 --param enable_overlay=1 -- \
	sh -c 'env LD_LIBRARY_PATH="$1" "$2" && drm_info >"$3"' sh "$libdir" "$d/kms-planes" \
	"$d/drm_info.txt" >"$d/guest.log" 2>&1 ||
	{ cat "$d/guest.log" >&2; fail "kms-planes or drm_info failed in the guest (installed wbc-vm)"; }
grep -q 'Driver: vkms' "$d/drm_info.txt" || fail "installed wbc-vm -- drm_info: no vkms driver listed"
echo "install: installed wbc-vm -- drm_info: $(grep -c 'Plane [0-9]' "$d/drm_info.txt") planes, $(grep -m1 'Driver:' "$d/drm_info.txt" | sed 's/^[^D]*//')"
grep -a '^plane ' "$d/guest.log" >"$d/planes" || true
cat "$d/planes"
for type in primary overlay cursor; do
	grep -Eq "^plane [0-9]+ $type, [1-9][0-9]* formats\$" "$d/planes" || fail "no $type plane listed"
done
echo "install: the installed library listed $(wc -l <"$d/planes") planes of the guest's VKMS device"
