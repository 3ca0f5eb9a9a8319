"""A unix-socket proxy between a session and QEMU's COM1 socket that drops
chosen frames (tests of retransmission). It parses the frames in each
direction with the same scanner the session uses."""

import os
import select
import socket
import threading

from nanobench_efi import frame as F


class DroppingProxy:
    def __init__(self, upstream, path, drop_to_image=(), drop_to_host=()):
        """drop_to_image / drop_to_host: (type, n, prefix) rules: drop the first frame of that type
        whose payload starts with prefix, of the n-th sequence number such frames have had (1-based)."""
        self.upstream, self.path = upstream, path
        self.rules = {'to_image': list(drop_to_image), 'to_host': list(drop_to_host)}
        self.seqs = {}
        self.dropped = []
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(1)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _filter(self, direction, scanner, data):
        """Frames pass whole or not at all; the log text between them passes too."""
        frames = scanner.feed(data)
        out = bytearray(scanner.text)
        scanner.text.clear()
        for fr in frames:
            drop = False
            for rule in self.rules[direction]:
                ftype, n, prefix = rule
                if fr.type != ftype or not fr.payload.startswith(prefix):
                    continue
                seen = self.seqs.setdefault((direction, rule), [])
                if fr.seq not in seen:
                    seen.append(fr.seq)
                if len(seen) == n and (direction, fr.type, fr.seq) not in self.dropped:
                    drop = True
            if drop:
                self.dropped.append((direction, fr.type, fr.seq))
            else:
                out += F.encode(fr.type, fr.seq, fr.payload)
        return bytes(out)

    def _run(self):
        client, _ = self.listener.accept()
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        up.connect(self.upstream)
        scanners = {'to_image': F.Scanner(), 'to_host': F.Scanner()}
        pairs = {client: (up, 'to_image'), up: (client, 'to_host')}
        try:
            while True:
                r, _, _ = select.select([client, up], [], [])
                for s in r:
                    data = s.recv(1 << 16)
                    if not data:
                        return
                    dst, direction = pairs[s]
                    out = self._filter(direction, scanners[direction], data)
                    if out:
                        dst.sendall(out)
        except OSError:
            return
        finally:
            client.close()
            up.close()
