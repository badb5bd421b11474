#!/bin/sh
# A first Mixdown job end to end, through the HTTP API alone: upload a file, convert it, wait, download.
#
#   MIXDOWN_API_KEY=mxd_… scripts/first-job.sh FILE [FORMAT] [OUT]
#
# FILE: any audio file (to make one: ffmpeg -f lavfi -i sine=frequency=440:duration=5 song.wav).
# FORMAT: mp3 (default), wav, flac, ogg, opus or m4a. OUT: where the result goes (default NAME-converted.FORMAT).
# MIXDOWN_URL: the server (default http://localhost:8080, what `npm start` serves). For a server with TLS and a
# self-signed certificate: MIXDOWN_URL=https://localhost:8080 CURL_CA_BUNDLE=data/tls/cert.pem.
# MIXDOWN_API_KEY: an application's key (`bin/mixdown app create --name NAME` prints one).
# Needs only sh, curl and sed: JSON answers are read with sed (Mixdown answers one line of JSON).
set -eu

FILE=${1:?usage: scripts/first-job.sh FILE [FORMAT] [OUT]}
FORMAT=${2:-mp3}
NAME=$(basename "$FILE")
OUT=${3:-${NAME%.*}-converted.$FORMAT}
MIXDOWN_URL=${MIXDOWN_URL:-http://localhost:8080}
KEY=${MIXDOWN_API_KEY:?set MIXDOWN_API_KEY to an API key (bin/mixdown app create --name NAME prints one)}
[ -f "$FILE" ] || { echo "first-job: $FILE is not a file" >&2; exit 2; }

body=$(mktemp)
trap 'rm -f "$body"' EXIT

# field NAME JSON: the value of the string field NAME in JSON.
field() { printf '%s\n' "$2" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }

# api METHOD PATH [JSON]: an API call; prints the answer, or says what went wrong and stops.
api() {
  if [ $# -ge 3 ]; then
    code=$(curl -sS -o "$body" -w '%{http_code}' -X "$1" "$MIXDOWN_URL/v1$2" -H "Authorization: $KEY" \
      -H "Content-Type: application/json" --data "$3")
  else
    code=$(curl -sS -o "$body" -w '%{http_code}' -X "$1" "$MIXDOWN_URL/v1$2" -H "Authorization: $KEY")
  fi || {
    echo "first-job: could not reach Mixdown at $MIXDOWN_URL: start it with npm start, or set MIXDOWN_URL" >&2
    exit 1
  }
  case $code in
    2??) cat "$body" ;;
    *) printf 'first-job: %s /v1%s: HTTP %s %s\n' "$1" "$2" "$code" "$(cat "$body")" >&2; exit 1 ;;
  esac
}

# 1. A temporary upload URL, and the download URL the job will read the file from.
PAIR=$(api GET /upload)
UPLOAD_URL=$(field uploadUrl "$PAIR")
DOWNLOAD_URL=$(field downloadUrl "$PAIR")

# 2. The file itself, PUT to the upload URL (no API key there), with its media type.
case $FILE in
  *.wav) TYPE=audio/wav ;; *.mp3) TYPE=audio/mpeg ;; *.flac) TYPE=audio/flac ;; *.ogg | *.opus) TYPE=audio/ogg ;;
  *.m4a) TYPE=audio/mp4 ;; *) TYPE=application/octet-stream ;;
esac
curl -sS --fail-with-body -o /dev/null -X PUT -T "$FILE" -H "Content-Type: $TYPE" "$UPLOAD_URL"
echo "uploaded $FILE"

# 3. The job: workflow mixdown/convert, reading the uploaded file.
CREATED=$(api POST /job "{\"name\":\"first job\",\"workflow\":\"mixdown/convert\",\"params\":{\"inputUrl\":\"$DOWNLOAD_URL\",\"format\":\"$FORMAT\"}}")
JOB_ID=$(field id "$CREATED")
echo "job $JOB_ID created"

# 4. Poll its status until it has SUCCEEDED or FAILED.
STATUS=
while :; do
  ANSWER=$(api GET "/job/$JOB_ID/status")
  NOW=$(field status "$ANSWER")
  [ "$NOW" = "$STATUS" ] || echo "job $JOB_ID $NOW"
  STATUS=$NOW
  case $STATUS in SUCCEEDED | FAILED) break ;; esac
  sleep 1
done

# 5. The job's result: result.output is a signed URL of the converted file.
JOB=$(api GET "/job/$JOB_ID")
if [ "$STATUS" = FAILED ]; then
  printf 'first-job: the job failed: %s\n' "$JOB" >&2
  exit 1
fi
OUTPUT_URL=$(field output "$JOB")
curl -sS --fail-with-body -o "$OUT" "$OUTPUT_URL"
echo "downloaded $OUT"
