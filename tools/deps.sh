#!/usr/bin/env bash
# Installs what ravioli needs to build and test on Debian/Ubuntu.
# Used by tools/quickstart and .ci/run. Needs root or sudo.
set -euo pipefail
PKGS=(build-essential cmake clang pkg-config libcmocka-dev libsdl2-dev libv4l-dev xvfb xauth x11-apps python3)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "tools/deps.sh: run as root or install sudo" >&2; exit 1; }
  SUDO=sudo
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tools/deps.sh: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
