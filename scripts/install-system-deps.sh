#!/usr/bin/env bash
# Installs the system packages MCP Router needs to build, run and test, when
# they are missing. Safe to run again: it installs nothing that is present.
#
#   scripts/install-system-deps.sh                 install what is missing
#   scripts/install-system-deps.sh --print-webkit  print the WebKitGTK package(s) it would use
#
# WebKitGTK comes in two lines: libwebkit2gtk-4.0-dev (Debian 12, Ubuntu
# 22.04) and libwebkit2gtk-4.1-dev (the only one on Ubuntu 24.04 and Debian
# 13). The build uses 4.0 where the distribution has it and 4.1 otherwise
# (scripts/webkit-tags.sh then adds the Wails tag webkit2_41). Where both are
# offered, 4.1 is installed too, so `make test` also builds and smoke-tests
# the 4.1 line (test-desktop-41).
set -euo pipefail

PACKAGES=(build-essential pkg-config libgtk-3-dev
  xvfb xauth xdotool imagemagick chromium fonts-noto-color-emoji fonts-dejavu-core
  dbus-daemon x11-utils libglib2.0-bin curl # the tray tests: a private session bus, xwininfo, gdbus
  fonts-noto-cjk # Japanese in the window and the UI screenshots (without it: empty boxes)
  nsis osslsigncode # make dist: the Windows installer and its signature
  rpm # make test-dist: installs the .rpm into a root of its own
  postgresql # the registry tests and make test-team: throwaway clusters
  redis-server # team mode (docs/team.md): the shared-state tests and make test-team start a throwaway redis-server
  qemu-user-static # make test-arm64: the arm64 archive under qemu-aarch64-static
  haproxy # make test-deploy: haproxy -c and a run of deploy/haproxy/haproxy.cfg (make test-team runs it too)
  podman runc mmdebstrap) # make test-image: builds and runs the Dockerfile (runc: crun refuses cgroup v1/v2 hybrids)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# offered PKG: the package is installed or apt has a candidate for it.
offered() {
  installed "$1" && return 0
  local c
  c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }')
  [ -n "$c" ] && [ "$c" != "(none)" ]
}

# webkit_packages prints the WebKitGTK dev package(s) to have, the build's
# line first; nothing if apt offers neither.
webkit_packages() {
  local w40=libwebkit2gtk-4.0-dev w41=libwebkit2gtk-4.1-dev
  if offered "$w40"; then
    echo "$w40"
    if offered "$w41"; then echo "$w41"; fi
  elif offered "$w41"; then
    echo "$w41"
  fi
}

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
updated=""
apt_update() {
  if [ -z "$updated" ]; then
    $SUDO apt-get update -q
    updated=1
  fi
}

if [ "${1:-}" = "--print-webkit" ]; then
  webkit=$(webkit_packages)
  if [ -z "$webkit" ]; then
    echo "install-system-deps: apt offers neither libwebkit2gtk-4.0-dev nor libwebkit2gtk-4.1-dev (run apt-get update?)" >&2
    exit 1
  fi
  echo "$webkit"
  exit 0
elif [ $# -gt 0 ]; then
  echo "install-system-deps: unknown argument $1 (usage: $0 [--print-webkit])" >&2
  exit 2
fi

if ! command -v go >/dev/null 2>&1 && [ ! -x /usr/local/go/bin/go ]; then
  echo "install-system-deps: Go 1.24 or newer is required (https://go.dev/dl/)" >&2
  exit 1
fi
if ! command -v node >/dev/null 2>&1; then
  echo "install-system-deps: Node.js 20.19 or newer with npm is required" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  case "$(uname -s)" in
    Darwin) echo "install-system-deps: macOS needs only Xcode command line tools (xcode-select --install)";;
    *) echo "install-system-deps: no apt-get here; install the equivalents of: ${PACKAGES[*]} and libwebkit2gtk-4.0-dev or -4.1-dev" >&2;;
  esac
  exit 0
fi
if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
  need_root=1
fi

webkit=$(webkit_packages)
if [ -z "$webkit" ]; then # a fresh machine: no package lists yet
  [ -z "${need_root:-}" ] || { echo "install-system-deps: cannot read apt's package lists; run as root or install sudo" >&2; exit 1; }
  apt_update
  webkit=$(webkit_packages)
  if [ -z "$webkit" ]; then
    echo "install-system-deps: apt offers neither libwebkit2gtk-4.0-dev nor libwebkit2gtk-4.1-dev" >&2
    exit 1
  fi
fi
mapfile -t webkit_list <<<"$webkit"

missing=()
for p in "${PACKAGES[@]}" "${webkit_list[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ -n "${need_root:-}" ]; then
  echo "install-system-deps: missing ${missing[*]}; run as root or install sudo" >&2
  exit 1
fi
echo "install-system-deps: installing ${missing[*]}"
apt_update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
