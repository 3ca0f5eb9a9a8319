"""A serve-mode session: one booted image answering requests (docs/serve.md).

Session() talks to
  - a QEMU it starts itself with `tools/nanobench -serve` (the default; extra
    tools/nanobench options such as `-icount 4` in NANOBENCH_HOST_ARGS),
  - an existing unix socket (NANOBENCH_SOCKET, e.g. a proxy), or
  - a serial device (NANOBENCH_SERIAL=/dev/ttyUSB0) with the image serving
    on the other end.
Requests are sent again when a frame is damaged or lost: stop-and-wait with
the image acknowledging each benchmark request and keeping its last reply.
"""

import os
import shlex
import subprocess
import tempfile
import time

from . import frame as F
from .link import LinkClosed, SerialLink, SocketLink


class NanoBenchError(Exception):
    """The image refused a request or a benchmark reported an error."""


class TooLarge(NanoBenchError):
    def __init__(self, message, limit):
        super().__init__(message)
        self.limit = limit


def find_root():
    """The nanoBench-EFI checkout: NANOBENCH_ROOT, or the tree this package lives in."""
    root = os.environ.get('NANOBENCH_ROOT')
    if root:
        return os.path.abspath(root)
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, '..', '..'), os.getcwd()):
        cand = os.path.abspath(cand)
        if os.path.exists(os.path.join(cand, 'tools', 'nanobench')):
            return cand
    raise NanoBenchError('cannot find the nanoBench-EFI checkout (tools/nanobench): set NANOBENCH_ROOT')


class Stats:
    def __init__(self):
        self.requests = 0
        self.bytes_sent = 0
        self.bytes_received = 0
        self.retransmissions = 0
        self.polls = 0
        self.damaged = 0


class Session:
    ACK_TIMEOUT = 2.0     # seconds for the acknowledgement of a request before it is sent again
    POLL_FIRST = 2.0      # seconds after the acknowledgement before the first poll for the reply
    MAX_TRIES = 10

    def __init__(self, serial=None, socket_path=None, host_args=None, root=None, log=None):
        self.root = root
        self.proc = None
        self.tmp = tempfile.TemporaryDirectory(prefix='nanobench_efi.')
        self.scanner = F.Scanner()
        self.stats = Stats()
        self.seq = int.from_bytes(os.urandom(1), 'little')  # never the image's last one by accident
        self.limit = None
        self.serial = serial if serial is not None else os.environ.get('NANOBENCH_SERIAL')
        socket_path = socket_path if socket_path is not None else os.environ.get('NANOBENCH_SOCKET')
        self.log_path = log or os.path.join(self.tmp.name, 'nanobench.log')
        if self.serial:
            self.link = SerialLink(self.serial)
            self.owns_image = False
        elif socket_path:
            self.link = SocketLink(socket_path)
            self.owns_image = False
        else:
            self.link = self._start_qemu(host_args)
            self.owns_image = True
            self._wait_ready(600.0)
        self.fingerprint_text = self._hello(600.0)

    def _hello(self, timeout):
        """The fingerprint, asked for until the image answers (it may still be booting)."""
        end = time.monotonic() + timeout
        while True:
            try:
                text = self.request(F.FINGERPRINT).decode(errors='replace')
                break
            except NanoBenchError:
                if time.monotonic() > end:
                    raise
        for line in text.splitlines():
            if line.startswith('serve: limit '):
                self.limit = int(line.split()[2])
        return text

    def _start_qemu(self, host_args):
        root = self.root or find_root()
        if host_args is None:
            host_args = shlex.split(os.environ.get('NANOBENCH_HOST_ARGS', ''))
        sock = os.path.join(self.tmp.name, 'com1.sock')
        env = dict(os.environ, NANOBENCH_SERVE_SOCKET=sock)
        self._log = open(self.log_path, 'wb')
        self.proc = subprocess.Popen([os.path.join(root, 'tools', 'nanobench'), '-serve'] + list(host_args),
                                     stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                     env=env, start_new_session=True)
        end = time.monotonic() + 600.0
        while not os.path.exists(sock):
            if self.proc.poll() is not None:
                raise NanoBenchError('tools/nanobench -serve ended (status %d): %s'
                                     % (self.proc.returncode, self._log_tail()))
            if time.monotonic() > end:
                raise NanoBenchError('tools/nanobench -serve: no socket after 600 s')
            time.sleep(0.02)
        return SocketLink(sock)

    def _log_tail(self):
        try:
            with open(self.log_path, 'rb') as f:
                return f.read()[-2000:].decode(errors='replace')
        except OSError:
            return ''

    def _wait_ready(self, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for fr in self._receive(end - time.monotonic()):
                if fr.type == F.READY:
                    words = fr.payload.split()
                    if len(words) == 2 and words[0] == b'limit':
                        self.limit = int(words[1])
                    return
        raise NanoBenchError('the image did not start serving within %d s: %s' % (timeout, self._log_tail()))

    def _receive(self, timeout):
        data = self.link.recv(timeout)
        if not data:
            return []
        self.stats.bytes_received += len(data)
        before = self.scanner.damaged
        frames = self.scanner.feed(data)
        self.stats.damaged += self.scanner.damaged - before
        if self.scanner.damaged != before:
            frames.append(F.Frame(b'?', -1, b''))  # noqa  # tells request() a reply may have been lost
        return frames

    def _send(self, data):
        self.stats.bytes_sent += len(data)
        self.link.send(data)

    def _send_frame(self, frame, seq):
        """Sends a frame; a long one waits after its first chunk for C (go on) or X (refused: returned)."""
        if len(frame) <= F.CHUNK:
            self._send(frame)
            return None
        self._send(frame[:F.CHUNK])
        deadline = time.monotonic() + self.ACK_TIMEOUT
        while time.monotonic() < deadline:
            for fr in self._receive(deadline - time.monotonic()):
                if fr.seq == seq and fr.type == F.ERROR:
                    return fr
                if fr.seq == seq and fr.type == F.CONTINUE:
                    deadline = 0
        self._send(frame[F.CHUNK:])  # C, or no word within the timeout (a lost C): go on
        return None

    def request(self, ftype, payload=b'', check_limit=True):
        """Sends one request and returns its reply payload (R); raises NanoBenchError for X."""
        if check_limit and self.limit is not None and len(payload) > self.limit:
            raise TooLarge('request: %d bytes is more than this image accepts (limit %d bytes)'
                           % (len(payload), self.limit), self.limit)
        self.seq = (self.seq + 1) & 0xFF
        seq = self.seq
        frame = F.encode(ftype, seq, payload)
        self.stats.requests += 1
        refused = self._send_frame(frame, seq)
        if refused is not None:
            return self._refusal(refused)
        acked = ftype != F.BENCH
        tries = 1
        wait = self.ACK_TIMEOUT
        deadline = time.monotonic() + wait
        while True:
            now = time.monotonic()
            if now >= deadline:
                if tries >= self.MAX_TRIES:
                    raise NanoBenchError('no reply to request %d after %d tries' % (seq, tries))
                tries += 1
                if acked and ftype == F.BENCH:
                    self.stats.polls += 1
                    self._send(F.encode(F.POLL, seq))
                    wait = min(wait * 2, 60.0)
                else:
                    self.stats.retransmissions += 1
                    self._send(frame)
                deadline = time.monotonic() + wait
                continue
            for fr in self._receive(deadline - now):
                if fr.type == b'?':
                    # A damaged frame: ask again at once (the image keeps the reply).
                    deadline = time.monotonic()
                    continue
                if fr.seq != seq:
                    continue  # a late reply to an earlier request
                if fr.type == F.ACK:
                    if not acked:
                        acked = True
                        wait = self.POLL_FIRST
                        deadline = time.monotonic() + wait
                elif fr.type == F.NAK:
                    self.stats.retransmissions += 1
                    self._send(frame)
                    acked = ftype != F.BENCH
                    deadline = time.monotonic() + self.ACK_TIMEOUT
                elif fr.type == F.RESULT:
                    return fr.payload
                elif fr.type == F.ERROR:
                    return self._refusal(fr)

    @staticmethod
    def _refusal(fr):
        msg = fr.payload.decode(errors='replace')
        if 'limit ' in msg and 'more than this image accepts' in msg:
            raise TooLarge(msg, int(msg.rsplit('limit ', 1)[1].split()[0]))
        raise NanoBenchError(msg)

    def end(self, finish=None):
        """Ends serve mode (the image then finishes: shutdown unless `finish` or the suite says otherwise)."""
        reply = self.request(F.END, (finish or '').encode())
        return reply.decode()

    def close(self, end=None):
        """Closes the session; a QEMU it started is ended and waited for (its results are copied out)."""
        if end is None:
            end = self.owns_image
        try:
            if end:
                self.end()
        finally:
            self.link.close()
            if self.proc:
                try:
                    self.proc.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, 15)
                    self.proc.wait()
                self._log.close()
            self.host_output = self._log_tail() if self.proc else ''
            self.tmp.cleanup()
