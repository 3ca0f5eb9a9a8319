"""nanobench_efi: nanoBench's kernelNanoBench API over a nanoBench-EFI image in serve mode.

    from nanobench_efi import *          # or: from kernelNanoBench import *
    setNanoBenchParameters(unrollCount=100)
    runNanoBench(code='add rax, rbx; add rbx, rax')   # OrderedDict([('RDTSC', 32.0)]) under -icount 4

See docs/python.md and docs/serve.md in the nanoBench-EFI tree.
"""

from .api import (NanoBenchError, close, fingerprint, getAddress, getR14Size, paramDict, resetNanoBench,
                  runNanoBench, runNanoBenchCycleByCycle, run_words, session, setNanoBenchParameters)
from .session import Session

__all__ = ['setNanoBenchParameters', 'resetNanoBench', 'runNanoBench', 'runNanoBenchCycleByCycle', 'getR14Size',
           'getAddress', 'paramDict', 'NanoBenchError']
