#!/bin/bash
# Builds what run.sh's workers stage needs into .tmp/device/ (ignored by git; carry it to the device and run there
# `KIT=$(pwd)/.tmp/device STAGES=workers bash tools/bench/device/run.sh`): the server as a deploy folder (new.tar.xz,
# other platforms' binaries, SQLite's sources and source maps stripped), the Node 24 binary the project pins (node.xz),
# Debian's wrk with its LuaJIT, and tools/bench/bench.ts bundled by esbuild (bench.mjs). About 36 MB; xz keeps both
# cores busy for about a minute. Run from the repository root after `pnpm build`.
set -eu
K=.tmp/device
STAGE=$(mktemp -d)
rm -rf $K && mkdir -p $K
npx -y pnpm@10.34.9 --filter @plant-store/server deploy --prod --legacy --ignore-scripts $STAGE/new > /dev/null
SQLITE=$(echo $STAGE/new/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3)
rm -rf $SQLITE/deps $SQLITE/src
find $SQLITE/prebuilds -type f ! -name linux-x64.node -delete
find $STAGE/new -name '*.map' -delete
tar -C $STAGE -cf - new | xz -T2 -6 > $K/new.tar.xz
xz -T2 -6 -c node_modules/node/bin/node > $K/node.xz
cp /usr/bin/wrk $K/
cp -L "$(ldd /usr/bin/wrk | awk '/luajit/ {print $3}')" $K/
# esbuild is the SDK's (it bundles the SDK too). The bundle gets its own require for the CommonJS packages in it;
# better-sqlite3 and pg come from new/.
packages/sdk/node_modules/.bin/esbuild tools/bench/bench.ts --bundle --platform=node --format=esm --target=node22 \
  --conditions=source --external:better-sqlite3 --external:pg --outfile=$K/bench.mjs --log-level=warning \
  --banner:js="import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
rm -rf $STAGE
du -sh $K
