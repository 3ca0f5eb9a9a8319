"""The byte pipes a session talks over: QEMU's COM1 socket, or a serial device."""

import os
import select
import socket
import termios
import time


class LinkClosed(Exception):
    pass


class SocketLink:
    """A unix socket (QEMU -chardev socket, or a proxy in front of one)."""

    def __init__(self, path, connect_timeout=120.0):
        end = time.monotonic() + connect_timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.sock.close()
                if time.monotonic() > end:
                    raise
                time.sleep(0.05)
        self.name = path

    def send(self, data):
        self.sock.sendall(data)

    def recv(self, timeout):
        r, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
        if not r:
            return b''
        data = self.sock.recv(1 << 16)
        if not data:
            raise LinkClosed('%s: the other side closed the connection' % self.name)
        return data

    def close(self):
        self.sock.close()


class SerialLink:
    """A serial device (/dev/ttyUSB0, or a pty): raw 8N1, 115200 baud, no flow control."""

    def __init__(self, path, baud=115200):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.name = path
        attrs = termios.tcgetattr(self.fd)
        iflag, oflag, cflag, lflag, ispeed, ospeed, cc = attrs
        iflag &= ~(termios.IGNBRK | termios.BRKINT | termios.PARMRK | termios.ISTRIP | termios.INLCR |
                   termios.IGNCR | termios.ICRNL | termios.IXON | termios.IXOFF | termios.IXANY)
        oflag &= ~termios.OPOST
        lflag &= ~(termios.ECHO | termios.ECHONL | termios.ICANON | termios.ISIG | termios.IEXTEN)
        cflag &= ~(termios.CSIZE | termios.PARENB | termios.CSTOPB | getattr(termios, 'CRTSCTS', 0))
        cflag |= termios.CS8 | termios.CREAD | termios.CLOCAL
        speed = getattr(termios, 'B%d' % baud)
        cc[termios.VMIN] = 0
        cc[termios.VTIME] = 0
        termios.tcsetattr(self.fd, termios.TCSANOW, [iflag, oflag, cflag, lflag, speed, speed, cc])

    def send(self, data):
        view = memoryview(data)
        while view:
            _, w, _ = select.select([], [self.fd], [], 5.0)
            if not w:
                raise LinkClosed('%s: cannot send (the line is blocked)' % self.name)
            n = os.write(self.fd, view)
            view = view[n:]

    def recv(self, timeout):
        r, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not r:
            return b''
        try:
            return os.read(self.fd, 1 << 16)
        except OSError as e:  # a pty whose other side has gone
            raise LinkClosed('%s: %s' % (self.name, e))

    def close(self):
        os.close(self.fd)
