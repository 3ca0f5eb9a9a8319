"""Fixtures for the Python API tests: images in serve mode under QEMU with
-icount 4 (TCG, no KVM needed), so RDTSC values are exact: 16 per guest
instruction."""

import os
import re
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'python'))
os.environ.setdefault('NANOBENCH_ROOT', ROOT)

import nanobench_efi  # noqa: E402
from nanobench_efi import api  # noqa: E402


@pytest.fixture(scope='session')
def nb():
    """The kernelNanoBench functions with one QEMU boot for all tests that use them."""
    os.environ['NANOBENCH_HOST_ARGS'] = '-icount 4'
    for var in ('NANOBENCH_SERIAL', 'NANOBENCH_SOCKET'):  # always the QEMU the tests start
        os.environ.pop(var, None)
    t = time.monotonic()
    session = api.session()
    print('\nboot to serving: %.1f s' % (time.monotonic() - t))
    yield api
    api.close()


@pytest.fixture(autouse=True)
def fresh_parameters():
    api.resetNanoBench()
    yield


class ServingQemu:
    """tools/nanobench -serve -icount 4 started by a test, COM1 on a socket or a pty."""

    def __init__(self, results, pty=False):
        self.tmp = tempfile.TemporaryDirectory(prefix='nb_serve_test.')
        self.socket = os.path.join(self.tmp.name, 'com1.sock')
        self.log = open(os.path.join(self.tmp.name, 'nanobench.log'), 'w+')
        env = dict(os.environ, NANOBENCH_SERVE_SOCKET=self.socket)
        if pty:
            env['NANOBENCH_SERVE_PTY'] = '1'
        self.proc = subprocess.Popen([os.path.join(ROOT, 'tools', 'nanobench'), '-serve', '-icount', '4',
                                      '-results', results], stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        self.pty = None
        end = time.monotonic() + 300
        while time.monotonic() < end:
            if pty:
                m = re.search(r'char device redirected to (/dev/pts/\d+) \(label com1\)', self.output())
                if m:
                    self.pty = m.group(1)
                    break
            elif os.path.exists(self.socket):
                break
            assert self.proc.poll() is None, self.output()
            time.sleep(0.05)
        else:
            raise AssertionError('QEMU did not start: ' + self.output())

    def output(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def wait(self):
        try:
            self.proc.wait(timeout=180)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 15)
            self.proc.wait()
            return 'QEMU did not end within 180 s\n' + self.output()
        return self.output()

    def close(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            self.proc.wait()
        self.log.close()
        self.tmp.cleanup()
