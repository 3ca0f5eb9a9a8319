"""Serve-mode frames, as kernel/serve/serve_frame.h defines them (docs/serve.md).

  SOH type seq len[3, little-endian] hcrc[2] payload crc[2]

hcrc is the CRC-16/CCITT-FALSE of type, seq and length; crc that of
everything after SOH up to the end of the payload.
"""

SOH = 0x01
HEADER = 8
TRAILER = 2
OVERHEAD = HEADER + TRAILER
LEN_MAX = 0xFFFFFF

BENCH, FINGERPRINT, END, POLL = b'B', b'F', b'E', b'P'
ACK, RESULT, ERROR, NAK, READY, CONTINUE = b'A', b'R', b'X', b'N', b'S', b'C'
CHUNK = 4096  # a longer request waits for C (or X) after its first CHUNK bytes


def _table():
    t = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        t.append(c & 0xFFFF)
    return t


_CRC_TABLE = _table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as kernel/report/serial_frame.c."""
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc


def encode(ftype, seq, payload=b''):
    if len(payload) > LEN_MAX:
        raise ValueError('frame payload of %d bytes (at most %d)' % (len(payload), LEN_MAX))
    n = len(payload)
    head = bytes([ftype[0], seq & 0xFF, n & 0xFF, (n >> 8) & 0xFF, n >> 16])
    head += crc16(head).to_bytes(2, 'little')
    body = head + bytes(payload)
    return bytes([SOH]) + body + crc16(body).to_bytes(2, 'little')


class Frame:
    __slots__ = ('type', 'seq', 'payload')

    def __init__(self, ftype, seq, payload):
        self.type, self.seq, self.payload = ftype, seq, payload

    def __repr__(self):
        return 'Frame(%r, %d, %r)' % (self.type, self.seq, self.payload[:60])


class Scanner:
    """Finds frames in a byte stream that also carries the image's text log.

    feed() returns the good frames; damaged ones are counted in `damaged`
    (their header's type and seq in `last_damaged`), log text goes to `text`.
    """

    def __init__(self, limit=LEN_MAX):
        self.buf = bytearray()
        self.limit = limit
        self.damaged = 0
        self.last_damaged = None
        self.text = bytearray()

    def feed(self, data):
        self.buf += data
        out = []
        while True:
            pos = self.buf.find(SOH)
            if pos < 0:
                self.text += self.buf
                self.buf.clear()
                return out
            if pos:
                self.text += self.buf[:pos]
                del self.buf[:pos]
            if len(self.buf) < HEADER:
                return out
            h = self.buf
            if crc16(h[1:6]) != int.from_bytes(h[6:8], 'little'):
                self.text += h[:1]
                del self.buf[:1]
                continue
            n = h[3] | h[4] << 8 | h[5] << 16
            if n > self.limit:
                self.text += h[:1]
                del self.buf[:1]
                continue
            if len(h) < HEADER + n + TRAILER:
                return out
            if crc16(h[1:HEADER + n]) != int.from_bytes(h[HEADER + n:HEADER + n + 2], 'little'):
                self.damaged += 1
                self.last_damaged = (bytes(h[1:2]), h[2])
                del self.buf[:1]
                continue
            out.append(Frame(bytes(h[1:2]), h[2], bytes(h[HEADER:HEADER + n])))
            del self.buf[:HEADER + n + TRAILER]


def bench_payload(files, text):
    """A benchmark request: files (path -> bytes, relative to nanobench/) then the suite text."""
    if len(files) > 8:
        raise ValueError('a request carries at most 8 files')
    out = bytearray([len(files)])
    for path, data in files.items():
        p = path.encode()
        if not 1 <= len(p) <= 96:
            raise ValueError('file path %r: 1 to 96 bytes' % path)
        out += bytes([len(p)]) + p + len(data).to_bytes(4, 'little') + bytes(data)
    return bytes(out + text.encode())
