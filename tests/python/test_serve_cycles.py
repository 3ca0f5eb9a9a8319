"""runNanoBenchCycleByCycle against the image under QEMU TCG, which has no
architectural PMU: the image's own error for the benchmark comes back as
NanoBenchError, word for word, and the session goes on serving exact
values. (The table itself is tested on the host: tests/python/test_cycle_table.py
and tests/unit/test_cycle_by_cycle.c.)"""

import pytest

from nanobench_efi.session import NanoBenchError

ADD2 = 'ADD RAX, RBX; ADD RBX, RAX'
NO_PMU = ('-cycle_by_cycle: cycle-by-cycle measurements need performance counters: AMD family 0xf is older '
          'than family 17h (Zen), which this tool supports')


def test_cycle_by_cycle_refused_under_tcg_and_serving_goes_on(nb):
    with pytest.raises(NanoBenchError) as e:
        nb.runNanoBenchCycleByCycle(code=ADD2)
    assert str(e.value) == NO_PMU
    nb.setNanoBenchParameters(endToEnd=True, nMeasurements=3)
    with pytest.raises(NanoBenchError) as e:
        nb.runNanoBenchCycleByCycle(code=ADD2, init='MOV RAX, 1')
    assert str(e.value) == NO_PMU
    nb.resetNanoBench()
    nb.setNanoBenchParameters(unrollCount=100)
    assert nb.runNanoBench(code=ADD2) == {'RDTSC': 32.0}
    # endToEnd is cycle by cycle's alone: runNanoBench is unchanged by it.
    nb.setNanoBenchParameters(endToEnd=True)
    assert nb.runNanoBench(code=ADD2) == {'RDTSC': 32.0}
