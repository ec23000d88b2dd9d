#!/bin/bash
# FLUSH_DIR (default /tmp/flush) holds base/benchmarks.jar and new/benchmarks.jar (main and the branch) and config/ (DeployedBenchmark --config-dir)
# usage: ab.sh outdir runs systems extra-args...   alternates base and new jars, one full sequence each per run
out=$1; runs=$2; systems=$3; shift 3
mkdir -p $out
for r in $(seq 1 $runs); do
  for v in base new; do
    jar=${FLUSH_DIR:-/tmp/flush}/$v/benchmarks.jar
    echo "### run $r $v $(date -u +%H:%M:%S) $(cat /proc/loadavg)" 
    java -cp $jar io.eve.bench.deployed.DeployedBenchmark --config-dir ${FLUSH_DIR:-/tmp/flush}/config --systems $systems --output $out/$v-$r "$@" 2>&1 | grep -v "^deployed:\|^wrote\|^$"
  done
done
