import re,sys
run=None;ver=None
rows=[]
for line in open(sys.argv[1]):
    m=re.match(r'### run (\d+) (\w+) (\S+) (\S+)',line)
    if m: run,ver,t,la=m.groups(); continue
    m=re.match(r'run 1 (\S+)\s+([\d,]+) req/s\s+p50\s+(\d+) us\s+p99\s+(\d+) us.*CPU us/req: (.*?) load ([\d.]+) \(driver ([\d.]+)\)\s+view changes (\d+) \(view (\d+) at end\)\s+rollbacks (\d+)\s+load ([\d.]+)\s+(.*)',line)
    if m:
        sysn,rate,p50,p99,nodes,load,drv,vc,vend,rb,lavg,rest=m.groups()
        nodes=', '.join(x for x in re.findall(r'node-\d+ ([\d.]+)',nodes))
        ok='' if 'equal roots' in rest else ' '+rest[:40]
        rows.append((sysn,int(run),ver,rate,float(p50)/1000,float(p99)/1000,nodes,float(load),float(drv),vc,rb,lavg,ok))
rows.sort(key=lambda r:(r[0],r[1],r[2]))
print('| system | run | build | req/s | p50 ms | p99 ms | CPU us/req per replica | load JVM us/req | driver | load JVM less driver | view changes | rollbacks | load avg |')
print('| --- | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for r in rows:
    print(f'| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.1f} | {r[5]:.1f} | {r[6]} | {r[7]:.1f} | {r[8]:.1f} | {r[7]-r[8]:.1f} | {r[9]} | {r[10]} | {r[11]}{r[12]} |')
# ratios new/base per run
import collections
d={(r[0],r[1],r[2]):r for r in rows}
print()
for (s,rn,v),r in sorted(d.items()):
    if v=='new' and (s,rn,'base') in d:
        b=d[(s,rn,'base')]
        bn=[float(x) for x in b[6].split(', ')]; nn=[float(x) for x in r[6].split(', ')]
        print(f'{s} run {rn}: load JVM new/base {r[7]/b[7]:.2f}, less driver {(r[7]-r[8])/(b[7]-b[8]):.2f}, replicas mean new/base {sum(nn)/len(nn)/(sum(bn)/len(bn)):.2f}, req/s new/base {float(r[3].replace(",",""))/float(b[3].replace(",","")):.2f}, p50 {r[4]/b[4]:.2f}, p99 {r[5]/b[5]:.2f}')
