#!/usr/bin/env python3
"""sass_blocks.py FILE.sass [MIN]: basic blocks of a SASS listing (from
rv-sass-dump) with their size and loads/stores, to find the hot path."""
import re,sys
lines=[l for l in open(sys.argv[1])]
ins=[]
for l in lines:
    m=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);',l)
    if m: ins.append((int(m.group(1),16),m.group(2).strip()))
targets=set()
for a,t in ins:
    m=re.search(r'BRA (?:!?[PU]?P\d, )?0x([0-9a-f]+)',t)
    if m: targets.add(int(m.group(1),16))
    m=re.search(r'BSSY B\d, 0x([0-9a-f]+)',t)
    if m: targets.add(int(m.group(1),16))
blocks=[];cur=[]
for a,t in ins:
    if a in targets and cur: blocks.append(cur);cur=[]
    cur.append((a,t))
    if re.search(r'\b(BRA|EXIT|RET)\b',t): blocks.append(cur);cur=[]
if cur: blocks.append(cur)
minn=int(sys.argv[2]) if len(sys.argv)>2 else 0
for b in blocks:
    ops=[t.split()[0] if not t.startswith('@') else t.split()[1] for a,t in b]
    c=lambda p:sum(1 for o in ops if o.startswith(p))
    if len(b)>=minn:
        print("%05x-%05x n=%3d LDG=%2d LD=%2d LDS=%2d STG=%2d last=%s"%(b[0][0],b[-1][0],len(b),c('LDG'),sum(1 for o in ops if o.startswith('LD.')),c('LDS'),c('STG'),b[-1][1][:40]))
