#!/usr/bin/env bash
# Debian's headless Chromium for the report page's browser tests (tests/test_report.py drives it
# through Playwright, which cannot download a browser of its own here), with a small Chinese
# font so that screenshots of the report (docs/report.png) show its text, not boxes.
#
#   .ci/chromium.sh          # installs what is missing of: chromium, fonts-wqy-microhei
#
# apt's output goes to a log shown only when the install fails; nothing is started.
set -euo pipefail

log() { printf 'chromium.sh: %s\n' "$*" >&2; }

missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ]] || missing+=(fonts-wqy-microhei)
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    log "missing ${missing[*]}; installing needs root"
    exit 1
fi
log "installing Debian's ${missing[*]} (chromium: about 155 MB)"
export DEBIAN_FRONTEND=noninteractive
apt_log=$(mktemp "${TMPDIR:-/tmp}/chromium-apt.XXXXXX")
if ! { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    rm -f "$apt_log"
    log "apt-get install ${missing[*]} failed"
    exit 1
fi
rm -f "$apt_log"
[[ -x /usr/bin/chromium ]] || { log "no /usr/bin/chromium after installing"; exit 1; }
