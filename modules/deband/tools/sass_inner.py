#!/usr/bin/env python3
"""sass_inner.py ALL.SASS FUNCTION: instruction count of a tiled deband entry
and of its inner-tile path (see sass-count.sh), reading also the instructions
the old cuobjdump leaves undecoded."""
import re, sys
f, name = sys.argv[1], sys.argv[2]
on, words, ins = False, [], []
for l in open(f):
    if 'Function : ' in l:
        on = l.split('Function : ')[1].strip() == name
        continue
    if not on:
        continue
    m = re.search(r'/\* (0x[0-9a-f]{16}) \*/', l)
    if not m:
        continue
    t = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', l)
    words.append(('/*%s*/ %s' % (t.group(1), t.group(2)) if t else None, int(m.group(1), 16)))
for i in range(0, len(words) - 1, 2):
    t, w = words[i]
    ins.append(t if t else '?%03x' % (w & 0xfff))
# addresses (an undecoded instruction: 16 bytes after the one before)
def addrs(ins):
    out, a = [], None
    for t in ins:
        m = re.match(r'/\*([0-9a-f]{4,})\*/', t)
        a = int(m.group(1), 16) if m else (a + 16 if a is not None else 0)
        out.append(a)
    return out
# the functions the entry calls (not inlined, e.g. rv_db_defer_first) follow
# its code in the listing, from the lowest call target on: left out, so that
# the counts below are the entry's own
calls = [int(m.group(1), 16) for t in ins for m in [re.search(r'CALL\.REL\S* (0x[0-9a-f]+)', t)] if m]
ncallee = 0
if calls:
    addr = addrs(ins)
    cut = next((i for i, a in enumerate(addr) if a >= min(calls)), len(ins))
    ncallee = len(ins) - cut
    ins = ins[:cut]
def op(t):
    t = re.sub(r'^/\*[0-9a-f]+\*/ ', '', t)
    t = t.split()[1] if t.startswith('@') else t.split()[0]
    return t.split('.')[0]
# blocks: split after branches / exits
blocks, cur = [], []
for t in ins:
    cur.append(t)
    if re.search(r'\b(BRA|EXIT)\b', t):
        blocks.append(cur); cur = []
blocks.append(cur)
bar = min(i for i, b in enumerate(blocks) if any('BAR.SYNC' in t for t in b))
# the inner path: the last blocks after the barrier with the gathers of 4
# pixels each (it follows the border path in the code)
rows = [b for b in blocks[bar:] if sum(op(t) == 'LDS' for t in b) >= 4]
lds_pp = max(sum(op(t) == 'LDS' for t in b) for b in rows)
inner = [b for b in rows if sum(op(t) == 'LDS' for t in b) == lds_pp][-4:]
n = sum(len(b) for b in inner)
cnt = {}
for b in inner:
    for t in b:
        cnt[op(t)] = cnt.get(op(t), 0) + 1
print('%s: %d instructions (%d undecoded)%s; inner path, 4 rows of 4 px: %d -> %.1f a pixel, + store' %
      (name[4:], len(ins), sum(t.startswith('?') for t in ins),
       ' + %d in called functions' % ncallee if ncallee else '', n, n / 16.0))
print('  ' + ' '.join('%s %d' % kv for kv in sorted(cnt.items(), key=lambda kv: -kv[1])[:24]))
# The whole inner-tile row loop (32 rows of 4 px a thread = 4 rows a warp
# iteration): from the target of its backward branch to the branch, without
# the scalar-store paths (BSSY .. BSYNC), divided by its 16 pixels. This
# counts the row set-up, stores and loop control that the blocks above may
# leave out (the figure the perf notes quote from 2026-11-22 13:30 on).
addr = addrs(ins)
best = None
for i, t in enumerate(ins):
    m = re.search(r'BRA (0x[0-9a-f]+)', t)
    if not m or int(m.group(1), 16) >= addr[i]:
        continue
    j = addr.index(int(m.group(1), 16))
    body = ins[j:i + 1]
    if sum(op(x) == 'LDS' for x in body) != 4 * lds_pp:
        continue
    n, skip = 0, False
    for x in body:
        skip = skip or 'BSSY' in x
        n += not skip
        skip = skip and 'BSYNC' not in x
    best = (len(body), n)
if best:
    print('  inner row loop: %d instructions, vector-store path %d -> %.1f a pixel' %
          (best[0], best[1], best[1] / 16.0))
