#!/bin/bash
# Install (with apt-get) whatever of wbc's Debian 12 dependencies is missing.
# Sourced by tests/run.sh and examples/demo.sh; safe to run twice.
wbc_packages=(
	build-essential meson ninja-build pkg-config
	libdrm-dev libwlroots-dev libwayland-dev wayland-protocols libinput-dev libudev-dev
	libpixman-1-dev libseat-dev libxkbcommon-dev
	libavcodec-dev libavformat-dev libswscale-dev libavutil-dev
	libjson-c-dev libcmocka-dev wlcs
	clang-14 libclang-rt-14-dev llvm-14

	kmod cpio xz-utils libelf-dev qemu-system-x86 iproute2

	drm-info ffmpeg weston foot wayland-utils grim wf-recorder wayvnc udev
)

wbc_install_deps() {
	local missing=() p
	for p in "${wbc_packages[@]}"; do
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
