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


TABLE_MARK = b'\x00C'


class CycleTable:
    """A cycle-by-cycle table from a benchmark reply (kernel/report/serve_table.h).

    rows: lists of one value per event, running totals in delta form (the
    first row is the first reading, each further row what each event counted
    since the row before); totals() adds them up.
    """
    __slots__ = ('benchmark', 'events', 'rows')

    def __init__(self, benchmark, events, rows):
        self.benchmark, self.events, self.rows = benchmark, events, rows

    def totals(self):
        """Per event, the running totals: the readings the rows were made from."""
        out = []
        for e in range(len(self.events)):
            t, col = 0, []
            for row in self.rows:
                t += row[e]
                col.append(t)
            out.append(col)
        return out

    def __repr__(self):
        return 'CycleTable(%r, %r, %d rows)' % (self.benchmark, self.events, len(self.rows))


class TableError(ValueError):
    pass


def _uleb(buf, pos):
    v = shift = 0
    while True:
        if pos >= len(buf):
            raise TableError('cycle table: a number at byte %d is truncated' % pos)
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            if v >> 64:
                raise TableError('cycle table: a number before byte %d has more than 64 bits' % pos)
            return v, pos
        shift += 7
        if shift > 63:
            raise TableError('cycle table: a number at byte %d has more than 64 bits' % pos)


def _name(buf, pos, what):
    if pos >= len(buf) or buf[pos] == 0 or len(buf) - pos - 1 < buf[pos]:
        raise TableError('cycle table: %s at byte %d is empty or truncated' % (what, pos))
    n = buf[pos]
    return bytes(buf[pos + 1:pos + 1 + n]).decode(errors='replace'), pos + 1 + n


def decode_table(buf, pos=0):
    """Reads the table block at buf[pos] (starting 00 43); returns (CycleTable, position after it)."""
    if bytes(buf[pos:pos + 2]) != TABLE_MARK:
        raise TableError('cycle table: no 00 43 mark at byte %d' % pos)
    bench, pos = _name(buf, pos + 2, "the benchmark's name")
    if pos >= len(buf) or buf[pos] == 0:
        raise TableError('cycle table: no events (byte %d)' % pos)
    n_events = buf[pos]
    pos += 1
    events = []
    for e in range(n_events):
        name, pos = _name(buf, pos, "event %d's name" % (e + 1))
        events.append(name)
    n_rows, pos = _uleb(buf, pos)
    if n_rows > (len(buf) - pos) // n_events:
        raise TableError('cycle table: %d rows of %d events do not fit in the %d bytes left'
                         % (n_rows, n_events, len(buf) - pos))
    rows = []
    for _ in range(n_rows):
        row = []
        for _ in range(n_events):
            z, pos = _uleb(buf, pos)
            row.append((z >> 1) ^ -(z & 1))
        rows.append(row)
    return CycleTable(bench, events, rows), pos


def encode_table(benchmark, events, rows):
    """The block the image sends (for tests): rows as in CycleTable."""
    def uleb(v):
        out = bytearray()
        while True:
            b = v & 0x7F
            v >>= 7
            out.append(b | 0x80 if v else b)
            if not v:
                return bytes(out)

    def name(s):
        b = s.encode()
        if not 1 <= len(b) <= 255:
            raise ValueError('name %r: 1 to 255 bytes' % s)
        return bytes([len(b)]) + b
    out = bytearray(TABLE_MARK) + name(benchmark) + bytes([len(events)])
    for e in events:
        out += name(e)
    out += uleb(len(rows))
    for row in rows:
        for v in row:
            out += uleb(((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF)
    return bytes(out)


def split_reply(payload):
    """A benchmark reply: (its CSV text, its cycle tables). The CSV text never holds a NUL; a NUL starts a table."""
    text = bytearray()
    tables = []
    pos = 0
    while pos < len(payload):
        nul = payload.find(b'\x00', pos)
        if nul < 0:
            text += payload[pos:]
            break
        text += payload[pos:nul]
        table, pos = decode_table(payload, nul)
        tables.append(table)
    return bytes(text), tables
