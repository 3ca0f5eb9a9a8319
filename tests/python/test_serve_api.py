"""The kernelNanoBench API against an image in serve mode under QEMU -icount 4:
exact values, error replies, a lost frame each way, a pty as the serial
device, the results file, and 1000 calls in one boot."""

import csv
import glob
import os
import re
import tempfile
import threading
import time

import pytest

from conftest import ROOT, ServingQemu
from proxy import DroppingProxy

import nanobench_efi
from nanobench_efi import frame as F
from nanobench_efi.session import NanoBenchError, Session, TooLarge

ADD2 = 'ADD RAX, RBX; ADD RBX, RAX'


def test_exact_values(nb):
    nb.setNanoBenchParameters(unrollCount=100)
    assert nb.runNanoBench(code=ADD2) == {'RDTSC': 32.0}
    assert list(nb.runNanoBench(code='ADD RAX, RBX').items()) == [('RDTSC', 16.0)]
    # basic mode: the empty base run against unroll_count copies; still 16 per instruction.
    nb.setNanoBenchParameters(basicMode=True, nMeasurements=5)
    assert nb.runNanoBench(code=ADD2)['RDTSC'] == 32.0
    # no normalization: 100 copies of two instructions.
    nb.resetNanoBench()
    nb.setNanoBenchParameters(unrollCount=100, noNormalization=True)
    assert nb.runNanoBench(code=ADD2)['RDTSC'] == 3200.0


def test_range_gives_value_min_max(nb):
    nb.setNanoBenchParameters(unrollCount=10, range=True)
    assert nb.runNanoBench(code=ADD2) == {'RDTSC': (32.0, 32.0, 32.0)}


def test_init_and_binary_code(nb, tmp_path):
    code = tmp_path / 'add.bin'
    code.write_bytes(bytes.fromhex('4801d8'))  # add rax, rbx
    nb.setNanoBenchParameters(unrollCount=10)
    assert nb.runNanoBench(codeBinFile=str(code), init='MOV RAX, 1')['RDTSC'] == 16.0
    # The same file with new contents is a new benchmark (not a cached compile).
    code.write_bytes(bytes.fromhex('4801d84801c3'))
    assert nb.runNanoBench(codeBinFile=str(code), init='MOV RAX, 1')['RDTSC'] == 32.0


def test_areas(nb):
    assert nb.getR14Size() == 1 << 20
    assert re.fullmatch(r'0x[0-9a-f]+', nb.getAddress('R14'))
    assert nb.getAddress('rsp') != nb.getAddress('r14')
    with pytest.raises(ValueError):
        nb.getAddress('RAX')


def test_parameters_it_cannot_honour_raise(nb):
    with pytest.raises(NanoBenchError, match='no code offset'):
        nb.setNanoBenchParameters(codeOffset=4)
    with pytest.raises(NanoBenchError, match='detP23'):
        nb.runNanoBench(code=ADD2, detP23=True)
    with pytest.raises(NanoBenchError, match='one of avg, med, min, max'):
        nb.setNanoBenchParameters(aggregateFunction='mean')


def test_error_replies_and_serving_goes_on(nb):
    s = nb.session()
    # An assembler error, found on the host before anything is sent.
    with pytest.raises(NanoBenchError, match=r"statement 1 'FOO RAX'"):
        nb.runNanoBench(code='FOO RAX')
    # An error of the benchmark on the image: its error row becomes the exception.
    with pytest.raises(NanoBenchError) as e:
        nb.runNanoBench(code=ADD2, cpu=3)
    assert str(e.value) == ('option -cpu: processor 3 does not exist (this machine has 1 enabled '
                            'processor, 0..0)')
    # A request that does not parse.
    with pytest.raises(NanoBenchError) as e:
        s.request(F.BENCH, b'\x09')
    assert str(e.value) == 'request: 9 files (at most 8)'
    with pytest.raises(NanoBenchError) as e:
        s.request(F.BENCH, F.bench_payload({'../x': b'1'}, 'a: -code x\n'))
    assert str(e.value) == 'request: file 1: path at byte 2 is not a relative path of [A-Za-z0-9_.-/]'
    with pytest.raises(NanoBenchError) as e:
        s.request(F.BENCH, F.bench_payload({}, '# nothing\n'))
    assert str(e.value) == 'request: no benchmark line in the suite text'
    with pytest.raises(NanoBenchError) as e:
        s.request(b'Q')
    assert str(e.value) == 'request: unknown type 0x51 (B benchmark, F fingerprint, E end, P poll)'
    nb.setNanoBenchParameters(unrollCount=100)
    assert nb.runNanoBench(code=ADD2) == {'RDTSC': 32.0}


def test_request_larger_than_the_limit(nb):
    s = nb.session()
    assert s.limit == 256 * 1024
    payload = F.bench_payload({'c': b'\x90' * s.limit}, 'k: -code c\n')
    sent_before = s.stats.bytes_sent
    with pytest.raises(TooLarge) as e:
        s.request(F.BENCH, payload)  # refused by the session, before sending
    with pytest.raises(TooLarge) as e:
        s.request(F.BENCH, payload, check_limit=False)  # refused by the image at the header
    assert e.value.limit == s.limit
    assert s.stats.bytes_sent < sent_before + len(payload) / 2  # the rest was never sent
    assert str(e.value) == ('request: %d bytes is more than this image accepts (limit %d bytes)'
                            % (len(payload), s.limit))
    nb.setNanoBenchParameters(unrollCount=100)
    assert nb.runNanoBench(code=ADD2) == {'RDTSC': 32.0}


def test_damaged_request_is_sent_again(nb):
    s = nb.session()
    good = F.encode(F.BENCH, 0, b'')
    bad = bytearray(F.encode(F.BENCH, (s.seq + 1) & 0xFF, F.bench_payload({}, 'k: -unroll_count 5\n')))
    bad[-3] ^= 0x20  # a flipped bit in the payload: the image answers N, the session sends it again
    sent = []
    orig = s._send
    def send_once_damaged(data):
        if not sent and data[1:2] == F.BENCH:
            sent.append(data)
            return orig(bytes(bad))
        return orig(data)
    s._send = send_once_damaged
    try:
        before = s.stats.retransmissions
        s.seq = (s.seq) & 0xFF
        rows = s.request(F.BENCH, F.bench_payload({}, 'k: -unroll_count 5\n'))
    finally:
        s._send = orig
    assert rows == b'k,RDTSC,0.00,,\n'
    assert s.stats.retransmissions == before + 1


def test_lost_frames_and_results_file(tmp_path):
    """A proxy drops the 2nd benchmark request and the 3rd benchmark result; nothing is misattributed."""
    results = str(tmp_path / 'results')
    q = ServingQemu(results)
    proxy_path = str(tmp_path / 'proxy.sock')
    proxy = DroppingProxy(q.socket, proxy_path, drop_to_image=[(F.BENCH, 2, b'')],
                          drop_to_host=[(F.RESULT, 3, b'k,')])
    try:
        s = Session(socket_path=proxy_path)
        s.ACK_TIMEOUT = 1.0
        s.POLL_FIRST = 1.0
        codes = ['ADD RAX, RBX', ADD2, 'ADD RAX, RBX; ADD RBX, RAX; ADD RCX, RAX', 'NOP']
        from nanobench_efi.compile import Compiler
        comp = Compiler(ROOT)
        got = []
        for i, code in enumerate(codes):
            text, files = comp.compile(['-asm', '"%s"' % code, '-unroll_count', '10'])
            got.append(s.request(F.BENCH, F.bench_payload(files, text)).decode())
        comp.close()
        assert got == ['k,RDTSC,16.00,,\n', 'k,RDTSC,32.00,,\n', 'k,RDTSC,48.00,,\n', 'k,RDTSC,16.00,,\n']
        assert ('to_image', F.BENCH, s.seq - 2 & 0xFF) in proxy.dropped
        assert ('to_host', F.RESULT, s.seq - 1 & 0xFF) in proxy.dropped
        assert s.stats.retransmissions >= 1 and s.stats.polls >= 1
        assert s.end() == 'served 4 requests'
        s.link.close()
        out = q.wait()
    finally:
        q.close()
    # The results file records every served benchmark (once: a repeated request is not run again).
    csvs = glob.glob(os.path.join(results, 'run-*.csv'))
    assert len(csvs) == 1, out
    with open(csvs[0]) as f:
        rows = [r for r in csv.reader(f) if r and r[0] == 'k']
    assert rows == [['k', 'RDTSC', '16.00', '', ''], ['k', 'RDTSC', '32.00', '', ''],
                    ['k', 'RDTSC', '48.00', '', ''], ['k', 'RDTSC', '16.00', '', '']]


def test_pty_as_the_serial_device(tmp_path):
    """NANOBENCH_SERIAL: the image's COM1 is a pty (as /dev/ttyUSB0 would be on a lab machine)."""
    q = ServingQemu(str(tmp_path / 'results'), pty=True)
    try:
        s = Session(serial=q.pty)
        assert 'cpu: ' in s.fingerprint_text
        from nanobench_efi.compile import Compiler
        comp = Compiler(ROOT)
        text, files = comp.compile(['-asm', '"%s"' % ADD2, '-unroll_count', '100'])
        payload = F.bench_payload(files, text)
        assert s.request(F.BENCH, payload) == b'k,RDTSC,32.00,,\n'
        n = 50
        t = time.monotonic()
        for _ in range(n):
            assert s.request(F.BENCH, F.bench_payload({}, text)) == b'k,RDTSC,32.00,,\n'
        per = (time.monotonic() - t) / n
        print('\npty: %.1f ms per round trip; request %d bytes, reply %d bytes'
              % (per * 1000, F.OVERHEAD + len(F.bench_payload({}, text)), F.OVERHEAD + 14))
        comp.close()
        # -finish exit from the end request: the CLI ends QEMU when the image has closed its files.
        assert s.end('exit') == 'served 51 requests'
        s.link.close()
        out = q.wait()
        assert q.proc.returncode == 0, out
    finally:
        q.close()


def test_1000_calls_in_one_boot(nb):
    nb.setNanoBenchParameters(unrollCount=100)
    nb.runNanoBench(code=ADD2)
    s = nb.session()
    sent, received = s.stats.bytes_sent, s.stats.bytes_received
    t = time.monotonic()
    for _ in range(1000):
        assert nb.runNanoBench(code=ADD2)['RDTSC'] == 32.0
    elapsed = time.monotonic() - t
    per_request = (s.stats.bytes_sent - sent) / 1000
    per_reply = (s.stats.bytes_received - received) / 1000
    print('\n1000 runNanoBench calls: %.1f s, %.1f ms per call; %.0f bytes per request, %.0f per reply '
          '(ack included), %.1f ms of line at 115200 baud' % (elapsed, elapsed, per_request, per_reply,
                                                             (per_request + per_reply) * 10 / 115.2))
    assert elapsed <= 90
