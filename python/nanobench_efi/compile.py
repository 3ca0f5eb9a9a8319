"""Benchmarks to requests: through tools/nanobench's own compiler (build/host/nb_compile),
so code strings mean what they mean on the command line (-asm)."""

import hashlib
import os
import subprocess
import tempfile

from .session import NanoBenchError

NAME = 'k'  # the benchmark's name in requests and in the results files (short: it is in every reply row)


def quote(word):
    """A word for a suite line: double quotes, with \\" and \\\\ escaped (kernel/suite/suite.h)."""
    return '"' + word.replace('\\', '\\\\').replace('"', '\\"') + '"'


def _pairs(words):
    """Option words as (option, value-or-None) pairs."""
    out, i = [], 0
    while i < len(words):
        w = words[i]
        if i + 1 < len(words) and not words[i + 1].startswith('-'):
            out.append((w, words[i + 1]))
            i += 2
        else:
            out.append((w, None))
            i += 1
    return out


class Compiler:
    def __init__(self, root):
        self.root = root
        self.exe = os.path.join(root, 'build', 'host', 'nb_compile')
        if not os.access(self.exe, os.X_OK):
            subprocess.run([os.path.join(root, 'tools', 'build-if-stale.sh')], check=True,
                           stdout=subprocess.DEVNULL)
        self.tmp = tempfile.TemporaryDirectory(prefix='nanobench_efi_compile.')
        self.cache = {}
        self.defaults = set(_pairs(self._compile_line([])[0].split()[1:]))
        self.defaults = {p for p in self.defaults if p[0] not in ('-code', '-code_init', '-code_late_init',
                                                                   '-code_one_time_init')}

    def _compile_line(self, words):
        """Compiles `k: words`; returns (compiled line, {path: bytes}) as the image would read them."""
        suite = os.path.join(self.tmp.name, 'req.suite')
        with open(suite, 'w') as f:
            f.write(NAME + ': ' + ' '.join(words) + '\n')
        out = os.path.join(self.tmp.name, 'out')
        subprocess.run(['rm', '-rf', out], check=True)
        p = subprocess.run([self.exe, out, '-suite', suite], capture_output=True, text=True,
                           env=dict(os.environ, NB_ROOT=self.root))
        if p.returncode != 0:
            lines = [l for l in p.stderr.splitlines() if 'nothing was run' not in l]
            msg = '\n'.join(lines).strip().replace("nanobench: benchmark '%s' (): " % NAME, '')
            raise NanoBenchError(msg or 'nb_compile failed (status %d)' % p.returncode)
        line = None
        with open(os.path.join(out, 'nanobench', 'suite.nb')) as f:
            for text in f:
                if text.startswith(NAME + ':'):
                    line = text.strip()
        files = {}
        base = os.path.join(out, 'nanobench')
        for sub in ('code', 'configs'):
            d = os.path.join(base, sub)
            for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                with open(os.path.join(d, name), 'rb') as f:
                    files[sub + '/' + name] = f.read()
        return line, files

    def compile(self, words):
        """The request for `k: words`: (suite line without the image's defaults, files it reads)."""
        key = '\0'.join(words)
        for w in words:  # the contents of a config or code file are part of what is compiled
            path = w[1:-1] if len(w) >= 2 and w[0] == w[-1] == '"' else w
            if os.path.isfile(path):
                with open(path, 'rb') as f:
                    key += '\0' + hashlib.sha1(f.read()).hexdigest()
        hit = self.cache.get(key)
        if hit:
            return hit
        line, files = self._compile_line(words)
        # Short names on the wire: every byte is line time at 115200 baud.
        short = {}
        for path in files:
            short[path] = 'c' if path.startswith('code/') else path.split('/')[-1]
        files = {short[p]: d for p, d in files.items()}
        kept = []
        for o, v in _pairs(line.split()[1:]):
            if (o, v) in self.defaults:
                continue
            if v is not None:
                head, colon, tail = v.partition(':')
                if head in short:
                    v = short[head] + colon + tail
            kept.append((o, v))
        text = NAME + ':' + ''.join(' ' + o + ('' if v is None else ' ' + v) for o, v in kept) + '\n'
        self.cache[key] = (text, files)
        return text, files

    def close(self):
        self.tmp.cleanup()
