#!/bin/bash
# Builds the kit for running the bench on a 16-core machine (no registry there: everything travels, 64 MiB in
# all) into .tmp/device/ (ignored by git): the bench as a deploy folder with its production dependencies (tsx, the
# peers, the service's own build), laid out as the repository is (app/tools/bench, app/packages/server, app/docs) and
# stripped of SQLite's sources, other platforms' binaries, type declarations and source maps (app.tar.xz); the Node 24
# binary the project pins (node.xz); Debian's wrk with its LuaJIT; run.sh. About 50 MB; xz keeps both cores busy for
# a minute or two. Run from the repository root after `pnpm build`, carry .tmp/device, and run there
# `bash .tmp/device/run.sh BENCH-OPTIONS` (run.sh says what it does). With BASE=<commit>, the kit also holds that
# commit's server build (packages/server/src of it, compiled here against this checkout's dependencies) for ab.sh,
# which runs the bench alternately on it and on this checkout's.
set -eu
K=.tmp/device
STAGE=$(mktemp -d)
rm -rf $K && mkdir -p $K
npx -y pnpm@10.34.9 --filter @plant-store/bench deploy --prod --legacy --ignore-scripts $STAGE/app/tools/bench > /dev/null
M=$STAGE/app/tools/bench/node_modules/.pnpm
SQLITE=$(echo $M/better-sqlite3@*/node_modules/better-sqlite3)
rm -rf $SQLITE/deps $SQLITE/src $M/@types+*
find $SQLITE/prebuilds -type f ! -name linux-x64.node -delete
find $STAGE -name '*.map' -delete
mkdir -p $STAGE/app/packages $STAGE/app/docs
ln -s ../tools/bench/node_modules/@plant-store/server $STAGE/app/packages/server
tar -C $STAGE -cf - app | xz -T2 -6 > $K/app.tar.xz
xz -T2 -6 -c node_modules/node/bin/node > $K/node.xz
cp /usr/bin/wrk tools/bench/device/run.sh tools/bench/device/ab.sh $K/
if [ -n "${BASE:-}" ]; then
  B=$(mktemp -d -p packages)
  cp packages/server/tsconfig.build.json packages/server/package.json $B/
  ln -s ../server/node_modules $B/node_modules
  git archive "$BASE" packages/server/src | tar -x --strip-components=2 -C $B
  (cd $B && npx tsc -p tsconfig.build.json --outDir dist-base --sourceMap false)
  tar -C $B -cf $K/base-dist.tar dist-base
  rm -rf $B
fi
cp -L "$(ldd /usr/bin/wrk | awk '/luajit/ {print $3}')" $K/
rm -rf $STAGE
du -sh $K
