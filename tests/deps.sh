#!/bin/bash
# Install (with apt-get) whatever of wbc's Debian 12 dependencies is missing.
# Sourced by tests/run.sh (everything) and examples/demo.sh (build and guest only, so a
# first demo fetches what it uses and no more); safe to run twice.
# To build wbc (meson also wants cmocka and json-c for the tests it defines).
wbc_build_packages=(
	build-essential meson ninja-build pkg-config scdoc
	libdrm-dev libwlroots-dev libwayland-dev wayland-protocols libinput-dev libudev-dev
	libpixman-1-dev libseat-dev libxkbcommon-dev libgles-dev
	libavcodec-dev libavformat-dev libswscale-dev libavutil-dev libyuv-dev
	libjson-c-dev libcmocka-dev
)
# To run it in the VKMS guest (tests/vm: Debian's kernel, vkms.ko built against its
# headers, an initramfs) and to decode what it recorded.
# libgl1-mesa-dri and libegl-mesa0: Mesa's EGL and its drivers (kms_swrast on VKMS) for
# --renderer gles2 and for EGL clients (weston-simple-egl).
wbc_guest_packages=(kmod cpio xz-utils libelf-dev qemu-system-x86 iproute2 ffmpeg
	libgl1-mesa-dri libegl-mesa0)
# What the tests add: the fuzzers' compiler and the real clients that are their witnesses.
wbc_test_packages=(
	clang-14 libclang-rt-14-dev llvm-14 wlcs
	drm-info weston foot wayland-utils grim wf-recorder wayvnc udev seatd wlr-randr
	xwayland x11-apps x11-utils wvkbd
)
wbc_packages=("${wbc_build_packages[@]}" "${wbc_guest_packages[@]}" "${wbc_test_packages[@]}")
# The long suite's witnesses (tests/run.sh --long only, not in wbc_packages: CI does not
# fetch ~200 MB of browsers): the kiosk browsers of wbc-browser.sh.
wbc_long_packages=(chromium firefox-esr)

# wbc_install_deps [PACKAGE...]: the ones given (default: all of wbc_packages).
wbc_install_deps() {
	local missing=() p
	[ $# -gt 0 ] || set -- "${wbc_packages[@]}"
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	echo "wbc: installing ${missing[*]}"
	local sudo=
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null || { echo "wbc: need root or sudo to install: ${missing[*]}" >&2; return 1; }
		sudo=sudo
	fi
	$sudo apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
			"${missing[@]}" >/dev/null
}
