#!/usr/bin/env python3
"""A script written for nanoBench's kernelNanoBench.py, run against nanoBench-EFI:

    PYTHONPATH=python NANOBENCH_HOST_ARGS="-icount 4" python3 python/examples/add_chain.py

(-icount 4: under QEMU every guest instruction takes 16 TSC ticks, so the values are exact.)
"""
from kernelNanoBench import *

setNanoBenchParameters(unrollCount=100, nMeasurements=10)
for n in (1, 2, 4):
    code = '; '.join(['ADD RAX, RBX'] * n)
    print('%d ADDs:' % n, runNanoBench(code=code))

setNanoBenchParameters(range=True)
print('with init, range:', runNanoBench(code='ADD RAX, RBX; ADD RBX, RAX', init='MOV RBX, 1'))
setNanoBenchParameters(range=False)

print('R14 area:', getR14Size(), 'bytes, R14 =', getAddress('R14'))

try:
    runNanoBench(code='ADD RAX, RBX', cpu=2)
except NanoBenchError as e:
    print('error:', e)
