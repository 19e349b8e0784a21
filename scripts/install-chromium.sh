#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (tests/support/browser.ts drives it with
# playwright-core, which downloads no browser of its own). Quiet and successful when it is
# already there; needs root (or sudo) and the Debian package mirror otherwise.
set -euo pipefail
[ -x "${ANIMGRAPH_CHROMIUM:-/usr/bin/chromium}" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo=sudo; else
  echo "install-chromium: /usr/bin/chromium is missing and this user cannot run apt-get (not root, no sudo)" >&2
  exit 1
fi
command -v apt-get >/dev/null || { echo "install-chromium: no apt-get: install Chromium by hand and set ANIMGRAPH_CHROMIUM to its path" >&2; exit 1; }
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
[ -x /usr/bin/chromium ] || { echo "install-chromium: apt-get ran but /usr/bin/chromium is still missing" >&2; exit 1; }
echo "install-chromium: $(/usr/bin/chromium --version 2>/dev/null)"
