#!/usr/bin/env bash
# Builds what a user downloads into dist/ (docs/install.md):
#
#   scripts/dist.sh [PART...]
#
# PARTs (default: all of them):
#   deb-4.0 deb-4.1             Linux desktop .deb and .rpm for WebKitGTK 4.0 / 4.1 (amd64)
#   windows-amd64 windows-arm64 the Windows desktop mcp-router.exe and its NSIS installer
#   headless-OS-ARCH            `-tags nogui` archive, OS linux|darwin|windows, ARCH amd64|arm64
#   headless                    all six headless archives
#
# Then writes dist/SHA256SUMS over every file in dist/. The version comes
# from `git describe` (VERSION overrides it). With MCPR_SIGN_CERT and
# MCPR_SIGN_KEY (PEM files; MCPR_SIGN_PASS for an encrypted key) the Windows
# executables and installers are signed with osslsigncode.
# Needs: go, the Wails CLI ($WAILS), nfpm ($NFPM), makensis (apt nsis),
# osslsigncode, ImageMagick (the hicolor icons), zip.
set -euo pipefail
cd "$(dirname "$0")/.."

WAILS=${WAILS:-.tools/bin/wails}
NFPM=${NFPM:-.tools/bin/nfpm}
DIST=${DIST:-dist}
CONVERT=/usr/bin/convert # /usr/local/bin/convert on the dev machines is a stand-in
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
# Package managers want a version starting with a digit: v1.2.3 -> 1.2.3,
# v1.2.3-4-gabc -> 1.2.3+4.gabc, v1.2.3-rc1 -> 1.2.3~rc1,
# anything else (a bare commit, which may start with a digit too) ->
# 0.1.0~git<commit> (0.1.0 is wails.json's productVersion).
if [[ $VERSION =~ ^v?([0-9]+\.[0-9]+[^-]*)-([0-9]+)-g([0-9a-f]+)(-dirty)?$ ]]; then
  # commits after a tag sort after it: v1.2.3-4-gabc -> 1.2.3+4.gabc
  PKGVER="${BASH_REMATCH[1]}+${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}${BASH_REMATCH[4]:+.dirty}"
elif [[ $VERSION =~ ^v?([0-9]+\.[0-9]+.*)$ ]]; then
  PKGVER=${BASH_REMATCH[1]//-/\~} # v1.2.3-rc1 -> 1.2.3~rc1, before 1.2.3
else
  PKGVER="0.1.0~git${VERSION//-/.}"
fi
TRIMPATH=${TRIMPATH--trimpath} # of the Linux desktop build; empty: reuse the build cache of make build
LDFLAGS="-X github.com/mcp-router/mcp-router/backend/core.Version=$VERSION"

log() { echo "dist: $*"; }
fail() {
  echo "dist: FAIL: $*" >&2
  exit 1
}

sign() { # sign FILE: in place, when a certificate is given
  local f=$1
  [[ -n ${MCPR_SIGN_CERT:-} || -n ${MCPR_SIGN_KEY:-} ]] || return 0
  [[ -r ${MCPR_SIGN_CERT:-} && -r ${MCPR_SIGN_KEY:-} ]] ||
    fail "MCPR_SIGN_CERT and MCPR_SIGN_KEY must both name readable PEM files"
  osslsigncode sign -certs "$MCPR_SIGN_CERT" -key "$MCPR_SIGN_KEY" ${MCPR_SIGN_PASS:+-pass "$MCPR_SIGN_PASS"} \
    -n "MCP Router" -h sha256 -in "$f" -out "$f.signed" >/dev/null || fail "osslsigncode could not sign $f"
  mv "$f.signed" "$f"
  log "signed $f"
}

# frontend: builds frontend/dist once per run. Always with npm run build and
# wails -s: wails' own frontend step would run `npm ci`, which replaces a
# node_modules symlink (git worktrees share one) with a directory.
frontend() {
  [[ -n ${FRONTEND_BUILT:-} ]] && return 0
  [[ -d frontend/node_modules ]] || fail "no frontend/node_modules (run make deps)"
  (cd frontend && npm run build >/dev/null) || fail "npm run build (frontend)"
  FRONTEND_BUILT=1
}

headless() { # headless OS ARCH
  local os=$1 arch=$2 exe=mcp-router name
  [[ $os == windows ]] && exe=mcp-router.exe
  name=mcp-router_${VERSION}_${os}_${arch}
  local stage
  stage=$(mktemp -d)
  mkdir -p "$stage/$name"
  # Pure Go (modernc SQLite, no GUI): static, cross-built from any machine.
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -tags nogui -trimpath -ldflags "-s -w $LDFLAGS" \
    -o "$stage/$name/$exe" . || fail "go build $os/$arch"
  cp README.md "$stage/$name/"
  if [[ $os == windows ]]; then
    (cd "$stage" && zip -qr "$DIST/$name.zip" "$name")
    log "$DIST/$name.zip"
  else
    tar -C "$stage" -czf "$DIST/$name.tar.gz" "$name"
    log "$DIST/$name.tar.gz"
  fi
  rm -rf "$stage"
}

# linux_desktop LINE: LINE 4.0 or 4.1. Builds the desktop binary against that
# WebKitGTK line and packages it as .deb and .rpm.
linux_desktop() {
  local line=$1 tags=""
  local out=mcp-router-webkit$line
  [[ $line == 4.1 ]] && tags=webkit2_41
  pkg-config --exists "webkit2gtk-$line" || fail "webkit2gtk-$line development files are not installed"
  frontend
  "$WAILS" build -m $TRIMPATH -s -skipbindings ${tags:+-tags $tags} -o "$out" \
    -ldflags "-s -w $LDFLAGS" >/dev/null || fail "wails build (webkit2gtk-$line)"
  local stage
  stage=$(mktemp -d)
  for s in 16 32 48 64 128 256 512; do
    mkdir -p "$stage/icons/${s}x${s}"
    "$CONVERT" build/appicon.png -resize "${s}x${s}" "$stage/icons/${s}x${s}/mcp-router.png"
  done
  local deb_webkit rpm_webkit
  if [[ $line == 4.0 ]]; then
    deb_webkit=libwebkit2gtk-4.0-37 rpm_webkit=webkit2gtk4.0
  else
    deb_webkit=libwebkit2gtk-4.1-0 rpm_webkit=webkit2gtk4.1
  fi
  {
    cat <<EOF
name: mcp-router
arch: amd64
platform: linux
version: "$PKGVER"
version_schema: none
section: net
priority: optional
maintainer: MCP Router developers <mcp-router@users.noreply.github.com>
description: |
  Puts many MCP servers behind one endpoint (desktop app, WebKitGTK $line).
homepage: https://github.com/mcp-router/mcp-router
overrides:
  deb:
    depends: [libgtk-3-0, $deb_webkit]
  rpm:
    depends: [gtk3, $rpm_webkit]
contents:
  - src: build/bin/$out
    dst: /usr/bin/mcp-router
    file_info: {mode: 0755}
  - src: packaging/linux/mcp-router.desktop
    dst: /usr/share/applications/mcp-router.desktop
EOF
    for s in 16 32 48 64 128 256 512; do
      printf '  - src: %s\n    dst: %s\n' "$stage/icons/${s}x${s}/mcp-router.png" "/usr/share/icons/hicolor/${s}x${s}/apps/mcp-router.png"
    done
  } >"$stage/nfpm.yaml"
  for p in deb rpm; do
    local target=$DIST/mcp-router_${PKGVER}_webkit2gtk-${line}_amd64.$p
    "$NFPM" package -f "$stage/nfpm.yaml" -p "$p" -t "$target" >/dev/null || fail "nfpm $p (webkit2gtk-$line)"
    log "$target"
  done
  rm -rf "$stage"
}

windows_desktop() { # windows_desktop ARCH
  local arch=$1
  # Pure Go here too: Wails' Windows shell and modernc SQLite need no cgo,
  # so no mingw. -nsis makes build/bin/mcp-router-ARCH-installer.exe from
  # build/windows/installer (per-user: see project.nsi there).
  frontend
  CGO_ENABLED=0 "$WAILS" build -m -trimpath -s -skipbindings -platform "windows/$arch" -nsis \
    -o mcp-router.exe -ldflags "-s -w $LDFLAGS" >/dev/null || fail "wails build windows/$arch"
  local exe=$DIST/mcp-router_${VERSION}_windows_${arch}.exe inst=$DIST/mcp-router_${VERSION}_windows_${arch}-setup.exe
  [[ -f build/bin/mcp-router.exe && -f build/bin/mcp-router-$arch-installer.exe ]] ||
    fail "wails build windows/$arch left no exe or installer in build/bin"
  cp build/bin/mcp-router.exe "$exe"
  cp "build/bin/mcp-router-$arch-installer.exe" "$inst"
  sign "$exe"
  sign "$inst"
  log "$exe"
  log "$inst"
}

parts=("$@")
((${#parts[@]})) || parts=(deb-4.0 deb-4.1 windows-amd64 windows-arm64 headless)
mkdir -p "$DIST"
DIST=$(realpath "$DIST")
for part in "${parts[@]}"; do
  case $part in
    deb-4.0 | deb-4.1) linux_desktop "${part#deb-}" ;;
    windows-amd64 | windows-arm64) windows_desktop "${part#windows-}" ;;
    headless)
      for os in linux darwin windows; do for arch in amd64 arm64; do headless $os $arch; done; done
      ;;
    headless-*-*)
      IFS=- read -r _ os arch <<<"$part"
      headless "$os" "$arch"
      ;;
    *) fail "unknown part $part (see the top of $0)" ;;
  esac
done
(cd "$DIST" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | sort | xargs -r sha256sum >SHA256SUMS)
log "$DIST/SHA256SUMS ($(wc -l <"$DIST/SHA256SUMS") files), version $VERSION"
