#!/usr/bin/env bash
# Draws build/appicon.png (1024x1024): a rounded square with a hub-and-spoke
# "router" glyph, the same drawing as frontend/src/components/Logo.tsx.
# Needs ImageMagick 6 (Debian: apt-get install imagemagick). Wails derives the
# platform icons from this file.
set -euo pipefail
cd "$(dirname "$0")"
IM=/usr/bin/convert # /usr/local/bin/convert on the dev machines is a stand-in

S=1024 M=56 R=200 # size, margin, corner radius
C=$((S / 2)) SPOKE=304 HUB=136 NODE=72 LINE=52

# Six nodes on a circle around the hub.
draw=""
for deg in 0 60 120 180 240 300; do
  read -r x y < <(awk -v c="$C" -v r="$SPOKE" -v d="$deg" \
    'BEGIN { a = d * atan2(0, -1) / 180; printf "%.1f %.1f\n", c + r * cos(a), c + r * sin(a) }')
  draw+=" line $C,$C $x,$y"
  nodes+=" circle $x,$y $(awk -v x="$x" -v n="$NODE" 'BEGIN { print x + n }'),$y"
done

# Gradient, cut to a rounded square by a black-and-white mask, then the glyph.
"$IM" -size ${S}x${S} -define gradient:angle=135 gradient:'#5b6cff-#2bb5a0' \
  \( -size ${S}x${S} xc:black -fill white -draw "roundrectangle $M,$M $((S - M - 1)),$((S - M - 1)) $R,$R" \) \
  -alpha off -compose CopyOpacity -composite -compose Over \
  -stroke white -strokewidth $LINE -draw "stroke-linecap round $draw" \
  -stroke none -fill white -draw "$nodes circle $C,$C $((C + HUB)),$C" \
  -strip PNG32:appicon.png
echo "wrote $(pwd)/appicon.png"
