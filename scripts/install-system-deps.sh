#!/usr/bin/env bash
# Installs the system packages MCP Router needs to build, run and test, when
# they are missing. Safe to run again: it installs nothing that is present.
set -euo pipefail

PACKAGES=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.0-dev
  xvfb xauth xdotool imagemagick chromium fonts-noto-color-emoji fonts-dejavu-core
  dbus-daemon x11-utils libglib2.0-bin curl # the tray tests: a private session bus, xwininfo, gdbus
  fonts-noto-cjk) # Japanese in the window and the UI screenshots (without it: empty boxes)

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
    *) echo "install-system-deps: no apt-get here; install the equivalents of: ${PACKAGES[*]}" >&2;;
  esac
  exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-system-deps: missing ${missing[*]}; run as root or install sudo" >&2
    exit 1
  fi
fi
echo "install-system-deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
