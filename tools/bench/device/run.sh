#!/bin/bash
# Runs the bench on a 16-core machine from the kit pack.sh built (this script's folder, carried there):
# unpacks Node, wrk and the bench beside it once (python3's lzma and tarfile: the machine has no xz), then runs
# `node --import tsx bench.ts` with the options given, as `pnpm bench` does here (servers on core 0, wrk and the
# open-loop generator on core 1; the workers stage puts N workers on cores 0..N-1 and wrk on the rest), and copies the
# report (benchmarks.md) to $OUT when OUT is set. The device has no PostgreSQL: pass --no-postgres.
# Example: OUT=$OUT bash .tmp/device/run.sh --targets none --workers 1,2,4,8 --rounds 2 --no-scale --no-layers --no-postgres
# (add --cpu-prof $OUT/prof for each start's CPU profiles and the functions that took the most time, per N)
set -u
K=$(cd "$(dirname "$0")" && pwd)
cd $K
[ -x node ] || python3 - <<'PY'
import lzma, os, shutil, tarfile
with lzma.open('node.xz') as f, open('node', 'wb') as o: shutil.copyfileobj(f, o)
os.chmod('node', 0o755)
with tarfile.open('app.tar.xz') as t: t.extractall('.')
PY
chmod +x wrk
export LD_LIBRARY_PATH=$K PATH=$K:$PATH
echo "node $(node -v), $(nproc) cores, unpacked after ${SECONDS}s"
( cd app/tools/bench && node --import tsx bench.ts "$@" )
status=$?
[ -n "${OUT:-}" ] && cp app/docs/benchmarks.md "$OUT/" 2>/dev/null
exit $status
