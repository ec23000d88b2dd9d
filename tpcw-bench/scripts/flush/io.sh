#!/bin/bash
# FLUSH_DIR (default /tmp/flush) holds base/benchmarks.jar and new/benchmarks.jar (main and the branch) and config/ (DeployedBenchmark --config-dir)
# usage: io.sh label system [extra]  : a point without profiler; samples read/write syscalls and CPU ticks of every process 10 s apart inside the window
label=$1; sys=$2; shift 2; out=${FLUSH_DIR:-/tmp/flush}/io/$label-$sys-$(date +%H%M%S); mkdir -p $out
java -cp ${FLUSH_DIR:-/tmp/flush}/$label/benchmarks.jar io.eve.bench.deployed.DeployedBenchmark --config-dir ${FLUSH_DIR:-/tmp/flush}/config --systems $sys --warmup 10 --duration 20 --output $out/run "$@" > $out/bench.log 2>&1 &
bpid=$!
for i in $(seq 1 300); do pgrep -f "DeployedLoad.*$out" >/dev/null && break; sleep 1; done
sleep 16
sample() { for p in $(pgrep -f "$out/run" ); do [ "$p" = "$bpid" ] && continue; c=$(tr '\0' '\n' < /proc/$p/cmdline | grep -A1 -e "--node" -e DeployedLoad | tr '\n' ' ' | cut -c1-30); echo "$1 $(date +%s.%N) $p [$c] $(grep -E 'syscr|syscw' /proc/$p/io | tr '\n' ' ') ticks $(awk '{print $14+$15}' /proc/$p/stat)"; done; }
sample A >> $out/io.txt
sleep 10
sample B >> $out/io.txt
wait $bpid
echo "$label $(grep 'run 1' $out/bench.log)"
python3 - $out <<'PY'
import sys,re
rows={}
for line in open(sys.argv[1]+'/io.txt'):
    m=re.match(r'(\w) (\S+) (\d+) \[(.*?)\] syscr: (\d+)\s+syscw: (\d+)\s+ticks (\d+)',line)
    if not m: continue
    ab,t,pid,name,r,w,ticks=m.groups()
    rows.setdefault(pid,{})[ab]=(float(t),int(r),int(w),int(ticks),name.strip())
b=open(sys.argv[1]+'/bench.log').read()
rate=float(re.search(r'([\d,]+) req/s',b).group(1).replace(',',''))
for pid,d in rows.items():
    if 'A' in d and 'B' in d:
        (t0,r0,w0,k0,n),(t1,r1,w1,k1,_)=d['A'],d['B']
        req=rate*(t1-t0)
        print(f"  {n:30s} reads/req {(r1-r0)/req:6.2f} writes/req {(w1-w0)/req:6.2f}  cpu us/req {(k1-k0)*10000/req:7.1f}")
PY
