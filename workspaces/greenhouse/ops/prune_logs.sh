#!/bin/sh
# Keep the last N days of tick logs (default 14) and compress the rest.
set -eu
DAYS="${1:-14}"
LOGS=/var/log/greenhouse

find "$LOGS" -name 'tick.log.*' ! -name '*.gz' -mtime +1 -exec gzip -9 {} \;
find "$LOGS" -name 'tick.log.*.gz' -mtime +"$DAYS" -delete

# Rotate today's log if it has grown past 20 MB.
if [ -f "$LOGS/tick.log" ] && [ "$(stat -c %s "$LOGS/tick.log")" -gt 20971520 ]; then
    mv "$LOGS/tick.log" "$LOGS/tick.log.$(date +%Y%m%d%H%M)"
fi
