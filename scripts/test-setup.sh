#!/usr/bin/env bash
# Run by npm before `npm test` (the "pretest" script): makes sure what the suites need is on this machine.
# - Debian packages the tests use: installed with apt-get when run as root; otherwise the run stops at once
#   with the one command that installs them.
# - Services of the distributed-mode suites: PostgreSQL (started when it is installed) and the S3 server of
#   scripts/s3-server.sh (installed and started as root). Should either stay unreachable, those suites
#   report themselves skipped with the reason, and the rest of the run goes on.
# MIXDOWN_TEST_SETUP=skip skips all of this (for a machine set up by other means).
set -uo pipefail
cd "$(dirname "$0")/.."
[ "${MIXDOWN_TEST_SETUP:-}" = skip ] && exit 0

# ffmpeg: media; sox, espeak-ng, festival + festvox-us-slt-hts, fluidsynth + fluid-soundfont-gm: test audio
# (synthesised signals, two speech synthesisers, rendered instruments); pocketsphinx: speech recognition;
# chromium: the dashboard's browser tests; curl: the README's first job (scripts/first-job.sh), run as written.
# hydrogen-drumkits … freedoom: the held-out sound families and scores of test/families (docs/families.md);
# timgm6mb-soundfont … caps: training families, rendered for the analysis' development plan.
packages=(ffmpeg sox espeak-ng festival festvox-us-slt-hts fluidsynth fluid-soundfont-gm pocketsphinx
  pocketsphinx-en-us chromium curl
  hydrogen-drumkits lmms-common guitarix-lv2 lv2file ktuberling-data festvox-kdlpc16k festvox-czech-dita
  festvox-suopuhe-lj freedoom timgm6mb-soundfont musescore-general-soundfont avldrums.lv2-soundfont
  csound-soundfont opl3-soundfont caps)

missing=()
if command -v dpkg-query >/dev/null; then
  for p in "${packages[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "npm test: these Debian packages are missing: ${missing[*]}" >&2
    echo "npm test: install them with:  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  echo "npm test: installing Debian packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # The package lists of a fresh machine may be empty or stale: update them only when an install fails.
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } ||
    { echo "npm test: apt-get could not install ${missing[*]}" >&2; exit 1; }
fi

# PostgreSQL for the distributed suites (MIXDOWN_TEST_DATABASE_URL, default the local server's database test).
if [ -z "${MIXDOWN_TEST_DATABASE_URL:-}" ] && command -v pg_isready >/dev/null &&
   ! pg_isready -q -h 127.0.0.1 -p 5432 && [ "$(id -u)" -eq 0 ] && [ -d /etc/postgresql ]; then
  echo "npm test: starting PostgreSQL" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start >/dev/null 2>&1 ||
    echo "npm test: PostgreSQL did not start; the distributed suites will be skipped" >&2
fi

# The S3 server (Ceph radosgw) for the distributed suites, unless the tests are given another endpoint.
if [ -z "${MIXDOWN_TEST_S3_ENDPOINT:-}" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null &&
   ! scripts/s3-server.sh status >/dev/null 2>&1; then
  echo "npm test: starting the S3 server (scripts/s3-server.sh)" >&2
  # One retry: a fresh Ceph monitor occasionally refuses the first OSD.
  { scripts/s3-server.sh start || { scripts/s3-server.sh stop; scripts/s3-server.sh start; }; } >&2 ||
    echo "npm test: the S3 server did not start; the distributed suites will be skipped" >&2
fi
exit 0
