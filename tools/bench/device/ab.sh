#!/bin/bash
# On the device, from a kit pack.sh built with BASE=<commit>: runs the bench once per entry of ORDER (default
# "base new new base"), each on that build of the service (the BASE commit's for "base", the packing checkout's for
# "new", swapped in place), so the two alternate on one machine; each run's log goes to $OUT/wI-VARIANT.log and its
# round lines and ratios to standard output. Options: BENCH (default the workers stage: 1, 2 and 8 workers, one
# round), STAGE_S (each run's time limit, default 140 s).
# Example: OUT=$OUT ORDER="new base new" bash .tmp/device/ab.sh
set -u
K=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
bash $K/run.sh --help > /dev/null
S=$(echo $K/app/tools/bench/node_modules/.pnpm/@plant-store+server@*/node_modules/@plant-store/server)
[ -d $S/dist-new ] || { tar -xf $K/base-dist.tar -C $S && mv $S/dist $S/dist-new; }
BENCH=${BENCH:---targets none --workers 1,2,8 --rounds 1 --seconds 6 --no-scale --no-layers --no-postgres --no-headline}
i=0
for variant in ${ORDER:-base new new base}; do
  i=$((i + 1))
  rm -rf $S/dist && cp -r $S/dist-$variant $S/dist
  timeout ${STAGE_S:-140} bash $K/run.sh $BENCH > "$OUT/w$i-$variant.log" 2>&1
  grep -E "^round|serve --workers [0-9]+ vs 1" "$OUT/w$i-$variant.log" | sed "s/^/$variant /"
done
