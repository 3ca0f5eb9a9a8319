"""The cycle-by-cycle table of serve replies (kernel/report/serve_table.h) as the
Python API reads it, and runNanoBenchCycleByCycle's return shape, without an
image: a fake session answers with the bytes the image's unit test checks
(tests/unit/test_cycle_by_cycle.c, cycle_by_cycle_served_table)."""

from collections import OrderedDict

import pytest

from nanobench_efi import api
from nanobench_efi import frame as F
from nanobench_efi.session import NanoBenchError

# tests/unit/test_serve_table.c's block: "k", events A and BB, rows (0, 1), (2, -1), (64, 300).
BLOCK = bytes.fromhex('0043016b020141024242030002040180 01d804'.replace(' ', ''))

EVENTS = ['UOPS_ISSUED.ANY', 'UOPS_DISPATCHED_PORT.PORT_0', 'UOPS_RETIRED.RETIRE_SLOTS']
# The image's reply in cycle_by_cycle_served_table: the reading before cycle 1, then six cycles.
SERVED = (b'\x00C\x01k\x03' + b''.join(bytes([len(e)]) + e.encode() for e in EVENTS) + b'\x07'
          + bytes([0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 2]))


def test_decode_exact_values():
    t, end = F.decode_table(BLOCK)
    assert end == len(BLOCK) == 19
    assert (t.benchmark, t.events, t.rows) == ('k', ['A', 'BB'], [[0, 1], [2, -1], [64, 300]])
    assert t.totals() == [[0, 2, 66], [1, 0, 300]]
    assert F.encode_table('k', ['A', 'BB'], [[0, 1], [2, -1], [64, 300]]) == BLOCK


def test_extremes_round_trip():
    rows = [[-2 ** 63], [2 ** 63 - 1], [-64], [63], [-65], [64]]
    block = F.encode_table('bench', ['A'], rows)
    assert len(block) == 12 + 10 + 10 + 1 + 1 + 2 + 2
    assert F.decode_table(block)[0].rows == rows


def test_refusals_word_for_word():
    for data, msg in ((b'\x00X', 'cycle table: no 00 43 mark at byte 0'),
                      (BLOCK[:3], "cycle table: the benchmark's name at byte 2 is empty or truncated"),
                      (BLOCK[:8], "cycle table: event 2's name at byte 7 is empty or truncated"),
                      (BLOCK[:10], 'cycle table: a number at byte 10 is truncated'),
                      (BLOCK[:16], 'cycle table: 3 rows of 2 events do not fit in the 5 bytes left'),
                      (BLOCK[:18], 'cycle table: a number at byte 18 is truncated')):
        with pytest.raises(F.TableError) as e:
            F.decode_table(data)
        assert str(e.value) == msg


def test_split_reply_text_and_tables():
    text, tables = F.split_reply(b'a,RDTSC,32.00,,\n' + BLOCK + b'b,RDTSC,16.00,,\n' + SERVED)
    assert text == b'a,RDTSC,32.00,,\nb,RDTSC,16.00,,\n'
    assert [t.benchmark for t in tables] == ['k', 'k']
    assert F.split_reply(b'k,RDTSC,32.00,,\n') == (b'k,RDTSC,32.00,,\n', [])


class FakeCompiler:
    def __init__(self):
        self.words = None

    def compile(self, words):
        self.words = list(words)
        return 'k: ' + ' '.join(words) + '\n', {}


class FakeSession:
    def __init__(self, reply):
        self.reply = reply

    def request(self, ftype, payload=b''):
        assert ftype == F.BENCH
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


@pytest.fixture
def fake(monkeypatch):
    comp = FakeCompiler()
    monkeypatch.setitem(api._state, 'compiler', comp)

    def answer(reply):
        monkeypatch.setitem(api._state, 'session', FakeSession(reply))
        return comp
    yield answer
    api._state['session'] = None
    api._state['compiler'] = None


def test_cycle_by_cycle_return_shape(fake):
    comp = fake(SERVED)
    got = api.runNanoBenchCycleByCycle(code='ADD RAX, RBX; ADD RBX, RAX')
    assert got == OrderedDict([('UOPS_ISSUED.ANY', ([0, 1, 2, 2, 2, 2, 2], [], [])),
                               ('UOPS_DISPATCHED_PORT.PORT_0', ([0, 0, 1, 1, 2, 2, 2], [], [])),
                               ('UOPS_RETIRED.RETIRE_SLOTS', ([0, 0, 0, 0, 0, 1, 2], [], []))])
    assert list(got) == EVENTS
    assert comp.words[-1] == '-cycle_by_cycle'
    api.setNanoBenchParameters(endToEnd=True, nMeasurements=5)
    api.runNanoBenchCycleByCycle(code='ADD RAX, RBX')
    assert comp.words[-4:] == ['-n_measurements', '5', '-cycle_by_cycle', '-end_to_end']
    # endToEnd is a cycle-by-cycle parameter (as in nanoBench): runNanoBench sends nothing for it.
    fake(b'k,RDTSC,16.00,,\n')
    assert api.runNanoBench(code='ADD RAX, RBX') == {'RDTSC': 16.0}
    assert '-end_to_end' not in comp.words


def test_cycle_by_cycle_errors(fake):
    fake(b'k,error,-cycle_by_cycle: cycle-by-cycle measurements need performance counters: no PMU\n')
    with pytest.raises(NanoBenchError) as e:
        api.runNanoBenchCycleByCycle(code='NOP')
    assert str(e.value) == '-cycle_by_cycle: cycle-by-cycle measurements need performance counters: no PMU'
    # Where kernelNanoBench.py returns None: the end of the benchmark is not found.
    fake(b'k,error,-cycle_by_cycle: the end of the benchmark could not be found in the retired '
         b'instructions; try -end_to_end\n')
    assert api.runNanoBenchCycleByCycle(code='NOP') is None
    fake(b'k,error,-cycle_by_cycle: the LFENCE after the benchmark could not be found in IDQ.MS_UOPS; '
         b'try -end_to_end\n')
    assert api.runNanoBenchCycleByCycle(code='NOP') is None
    fake(b'')
    with pytest.raises(NanoBenchError, match='0 cycle tables'):
        api.runNanoBenchCycleByCycle(code='NOP')
    fake(SERVED[:-1])
    with pytest.raises(NanoBenchError, match='the reply of the image: cycle table: 7 rows of 3 events do not fit in the 20 bytes left'):
        api.runNanoBenchCycleByCycle(code='NOP')
    api.setNanoBenchParameters(range=True)
    with pytest.raises(NanoBenchError, match='range=True: the image keeps one value per cycle'):
        api.runNanoBenchCycleByCycle(code='NOP')
