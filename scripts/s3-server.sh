#!/usr/bin/env bash
# A real S3 server for the distributed-mode tests: single-node Ceph (mon + memstore OSD) with radosgw
# serving S3 on http://127.0.0.1:7480 and https://127.0.0.1:7443 (a self-signed certificate for 127.0.0.1 and
# localhost, written to $D/tls/cert.pem: trust it with NODE_EXTRA_CA_CERTS), no systemd.
# Credentials: mixdown / mixdown-secret.
#   scripts/s3-server.sh start   install (Debian: ceph-mon ceph-osd radosgw) if needed, start, wait until ready
#   scripts/s3-server.sh stop    stop the daemons
#   scripts/s3-server.sh status  exit 0 when S3 answers
# Notes: clients need path-style addressing and the AWS SDK's checksum mode WHEN_REQUIRED (streamed PUTs
# fail otherwise); radosgw checks signatures, so tampered presigned URLs get 403.
set -euo pipefail
D=${CEPH_DIR:-${TMPDIR:-/tmp}/mixdown-ceph}
C=$D/ceph.conf
ENDPOINT=http://127.0.0.1:7480

up() { curl -s -o /dev/null --max-time 2 "$ENDPOINT/"; }

stop() {
  for name in radosgw ceph-osd ceph-mon; do pkill -f "^$name -c $C" 2>/dev/null || true; done
  for _ in $(seq 1 20); do pgrep -f "ceph-(mon|osd) -c $C|radosgw -c $C" >/dev/null || return 0; sleep 0.5; done
  pkill -9 -f "ceph-(mon|osd) -c $C|radosgw -c $C" 2>/dev/null || true
}

start() {
  if up; then echo "S3 already answering at $ENDPOINT"; return 0; fi
  if ! command -v radosgw >/dev/null || ! command -v ceph-mon >/dev/null || ! command -v ceph-osd >/dev/null ||
     ! command -v openssl >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq ceph-mon ceph-osd radosgw openssl >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq ceph-mon ceph-osd radosgw openssl >/dev/null; }
  fi
  stop
  rm -rf "$D"; mkdir -p "$D/mon" "$D/osd0" "$D/run" "$D/log" "$D/rgw" "$D/tls"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=127.0.0.1 \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$D/tls/key.pem" -out "$D/tls/cert.pem" 2>/dev/null
  FSID=$(cat /proc/sys/kernel/random/uuid)
  cat > "$C" <<CONF
[global]
fsid = $FSID
mon host = 127.0.0.1:6789
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = true
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd objectstore = memstore
memstore device bytes = 4294967296
osd crush chooseleaf type = 0
run dir = $D/run
log file = $D/log/\$name.log
admin socket = $D/run/\$name.asok
pid file = $D/run/\$name.pid
[mon.a]
mon data = $D/mon
public addr = 127.0.0.1
mon allow pool delete = true
[osd.0]
osd data = $D/osd0
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:7480 ssl_endpoint=127.0.0.1:7443 ssl_certificate=$D/tls/cert.pem ssl_private_key=$D/tls/key.pem
rgw data = $D/rgw
# Deleted objects' data is freed within seconds, not after radosgw's default two hours: the OSD keeps all
# data in memory, and a long test or bench session would otherwise fill it (writes then hang).
rgw gc obj min wait = 0
rgw gc processor period = 10
rgw gc processor max time = 10
CONF
  monmaptool --create --clobber --fsid "$FSID" --addv a '[v1:127.0.0.1:6789]' "$D/monmap" >/dev/null
  ceph-mon -c "$C" --mkfs -i a --monmap "$D/monmap"
  ceph-mon -c "$C" -i a
  ceph -c "$C" -s --connect-timeout 30 >/dev/null
  ceph -c "$C" osd create >/dev/null
  ceph-osd -c "$C" -i 0 --mkfs >/dev/null 2>&1
  # An OSD started just after the monitor formed sometimes sends its first command before it has the
  # monitor map (fsid 0), is refused ('wrong fsid') and exits (seen about one start in three): start it again.
  for attempt in 1 2 3 4 5; do
    ceph-osd -c "$C" -i 0 2>>"$D/log/osd-start.log" && break
    [ "$attempt" -lt 5 ] || { echo "ceph-osd did not start; see $D/log" >&2; return 1; }
    sleep 2
  done
  ceph -c "$C" osd crush add osd.0 1.0 host=localhost root=default >/dev/null 2>&1 || true
  for _ in $(seq 1 60); do ceph -c "$C" osd stat 2>/dev/null | grep -q '1 up' && break; sleep 1; done
  radosgw -c "$C" -n client.rgw
  for _ in $(seq 1 90); do up && break; sleep 1; done
  up || { echo "radosgw did not come up; logs in $D/log" >&2; return 1; }
  radosgw-admin -c "$C" user create --uid=mixdown --display-name=mixdown --access-key=mixdown --secret-key=mixdown-secret >/dev/null
  curl -s -o /dev/null --max-time 5 --cacert "$D/tls/cert.pem" https://127.0.0.1:7443/ || { echo "radosgw does not answer HTTPS; logs in $D/log" >&2; return 1; }
  echo "S3 ready at $ENDPOINT and https://127.0.0.1:7443 (CA $D/tls/cert.pem; access key mixdown, secret mixdown-secret)"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  status) up ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
