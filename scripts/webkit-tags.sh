#!/usr/bin/env bash
# Prints the Go build tags for the WebKitGTK this machine builds against:
# nothing for webkit2gtk-4.0 (Debian 12, Ubuntu 22.04), `webkit2_41` for
# webkit2gtk-4.1 (Ubuntu 24.04, Debian 13, which ship only 4.1). Wails v2
# links 4.0 unless built with that tag. MCPR_WEBKIT=4.0 or 4.1 chooses when
# both are installed (the Makefile's test-desktop-41 builds the 4.1 line).
# Prints nothing on other systems (macOS, Windows: no WebKitGTK).
set -euo pipefail

has() { pkg-config --exists "webkit2gtk-$1" 2>/dev/null; }

case "${MCPR_WEBKIT:-}" in
  4.1) has 4.1 || { echo "webkit-tags: MCPR_WEBKIT=4.1 but webkit2gtk-4.1 is not installed (libwebkit2gtk-4.1-dev)" >&2; exit 1; }
       echo webkit2_41 ;;
  4.0) has 4.0 || { echo "webkit-tags: MCPR_WEBKIT=4.0 but webkit2gtk-4.0 is not installed (libwebkit2gtk-4.0-dev)" >&2; exit 1; } ;;
  "") if [ "$(uname -s)" = Linux ] && ! has 4.0 && has 4.1; then echo webkit2_41; fi ;;
  *) echo "webkit-tags: MCPR_WEBKIT=$MCPR_WEBKIT: want 4.0 or 4.1" >&2; exit 1 ;;
esac
