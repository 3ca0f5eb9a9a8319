"""nanoBench's kernelNanoBench.py functions, answered by a nanoBench-EFI image in serve mode.

The names and keyword arguments are those scripts already call; the values
come from the image over its serial line (docs/python.md). A parameter the
image cannot honour raises NanoBenchError with the reason; none is ignored.
"""

import atexit
import csv
import os
import re
import subprocess
import tempfile
from collections import OrderedDict

from .compile import Compiler, quote
from .session import NanoBenchError, Session, find_root

paramDict = dict()
_state = {'session': None, 'compiler': None, 'tmp': None}

_AGGREGATES = {'avg': '-avg', 'med': '-median', 'median': '-median', 'min': '-min', 'max': '-max'}


def session():
    """The session of this script (started on first use: one boot serves the whole script)."""
    if _state['session'] is None:
        _state['session'] = Session()
        atexit.register(close)
    return _state['session']


def _compiler():
    if _state['compiler'] is None:
        _state['compiler'] = Compiler(session().root or find_root())
    return _state['compiler']


def _tmpdir():
    if _state['tmp'] is None:
        _state['tmp'] = tempfile.TemporaryDirectory(prefix='nanobench_efi_api.')
    return _state['tmp'].name


def close():
    """Ends the session (a QEMU it started shuts down and its results files are copied out)."""
    s = _state['session']
    _state['session'] = None
    if s is not None:
        s.close()
    if _state['compiler'] is not None:
        _state['compiler'].close()
        _state['compiler'] = None


def _write(name, text):
    path = os.path.join(_tmpdir(), name)
    with open(path, 'w') as f:
        f.write(text)
    return path


def setNanoBenchParameters(config=None, configFile=None, msrConfig=None, msrConfigFile=None, fixedCounters=None,
                           nMeasurements=None, unrollCount=None, loopCount=None, warmUpCount=None,
                           initialWarmUpCount=None, alignmentOffset=None, codeOffset=None, drainFrontend=None,
                           aggregateFunction=None, range=None, basicMode=None, noMem=None, noNormalization=None,
                           verbose=None, endToEnd=None):
    if codeOffset:
        raise NanoBenchError('codeOffset=%r: nanoBench-EFI places the code at -alignment_offset only; '
                             'it has no code offset' % codeOffset)
    if aggregateFunction is not None and aggregateFunction not in _AGGREGATES:
        raise NanoBenchError('aggregateFunction=%r: one of avg, med, min, max' % (aggregateFunction,))
    if config is not None:
        paramDict['config'] = config
        paramDict['configFile'] = _write('config', config)
    elif configFile is not None:
        paramDict['configFile'] = configFile
    if msrConfig is not None:
        paramDict['msrConfig'] = msrConfig
        paramDict['msrConfigFile'] = _write('msr_config', msrConfig)
    elif msrConfigFile is not None:
        paramDict['msrConfigFile'] = msrConfigFile
    for key, value in (('fixedCounters', fixedCounters), ('nMeasurements', nMeasurements),
                       ('unrollCount', unrollCount), ('loopCount', loopCount), ('warmUpCount', warmUpCount),
                       ('initialWarmUpCount', initialWarmUpCount), ('alignmentOffset', alignmentOffset),
                       ('codeOffset', codeOffset), ('drainFrontend', drainFrontend),
                       ('aggregateFunction', aggregateFunction), ('range', range), ('basicMode', basicMode),
                       ('noMem', noMem), ('noNormalization', noNormalization), ('verbose', verbose),
                       ('endToEnd', endToEnd)):
        if value is not None:
            paramDict[key] = value


def resetNanoBench():
    """Back to nanoBench's defaults (the image's memory areas keep their contents)."""
    paramDict.clear()


def _parameter_words():
    w = []
    if paramDict.get('configFile'):
        w += ['-config', quote(paramDict['configFile'])]
    if paramDict.get('msrConfigFile'):
        w += ['-msr_config', quote(paramDict['msrConfigFile'])]
    if paramDict.get('fixedCounters'):
        w.append('-fixed_counters')
    for key, option in (('nMeasurements', '-n_measurements'), ('unrollCount', '-unroll_count'),
                        ('loopCount', '-loop_count'), ('warmUpCount', '-warm_up_count'),
                        ('initialWarmUpCount', '-initial_warm_up_count'),
                        ('alignmentOffset', '-alignment_offset')):
        if paramDict.get(key) is not None:
            w += [option, str(int(paramDict[key]))]
    if paramDict.get('drainFrontend'):
        w.append('-df')
    if paramDict.get('aggregateFunction'):
        w.append(_AGGREGATES[paramDict['aggregateFunction']])
    for key, option in (('range', '-range'), ('basicMode', '-basic_mode'), ('noMem', '-no_mem'),
                        ('noNormalization', '-no_normalization'), ('verbose', '-verbose')):
        if paramDict.get(key):
            w.append(option)
    return w


def _objcopy(obj):
    out = os.path.join(_tmpdir(), os.path.basename(obj) + '.bin')
    p = subprocess.run(['objcopy', '-j', '.text', '-O', 'binary', obj, out], capture_output=True, text=True)
    if p.returncode != 0:
        raise NanoBenchError('objcopy %s: %s' % (obj, p.stderr.strip()))
    return out


def _code_words(part, asm, obj, binary):
    given = [x for x in (asm, obj, binary) if x]
    if len(given) > 1:
        raise NanoBenchError('%s: give the code as a string, an object file or a binary file, not several' % part)
    suffix = {'code': '', 'init': '_init', 'lateInit': '_late_init', 'oneTimeInit': '_one_time_init'}[part]
    if asm:
        return ['-asm' + suffix, quote(asm.replace('\n', ';'))]
    if obj:
        binary = _objcopy(obj)
    if binary:
        return ['-code' + suffix, quote(os.path.abspath(binary))]
    return []


def _words(code, codeObjFile, codeBinFile, init, initObjFile, initBinFile, lateInit, lateInitObjFile,
           lateInitBinFile, oneTimeInit, oneTimeInitObjFile, oneTimeInitBinFile, cpu, detP23):
    if detP23:
        raise NanoBenchError('detP23=True: its init code programs Intel counter 0 directly; '
                             'nanoBench-EFI does not run it')
    words = (_code_words('code', code, codeObjFile, codeBinFile) + _code_words('init', init, initObjFile, initBinFile)
             + _code_words('lateInit', lateInit, lateInitObjFile, lateInitBinFile)
             + _code_words('oneTimeInit', oneTimeInit, oneTimeInitObjFile, oneTimeInitBinFile)
             + _parameter_words())
    if cpu is not None:
        words += ['-cpu', str(int(cpu))]
    return words


def _run(*args):
    return run_words(_words(*args))


def run_words(words):
    """Runs one benchmark given as tools/nanobench options; returns its CSV rows as (event, value, min, max)."""
    return _request(words)[0]


def _request(words):
    """Runs the benchmark; (its CSV rows, its cycle-by-cycle tables: frame.CycleTable)."""
    s = session()
    text, files = _compiler().compile(words)
    sent = s.__dict__.setdefault('files_sent', {})
    changed = {p: d for p, d in files.items() if sent.get(p) != d}
    from .frame import bench_payload, split_reply, TableError, BENCH
    reply = s.request(BENCH, bench_payload(changed, text))
    sent.update(changed)
    try:
        csv_text, tables = split_reply(reply)
    except TableError as e:
        raise NanoBenchError('the reply of the image: %s' % e)
    rows = []
    # The image's CSV rows: benchmark,event,value,min,max (min and max only with -range).
    for parts in csv.reader(csv_text.decode(errors='replace').splitlines()):
        if len(parts) < 3:
            continue
        event, value = parts[1], parts[2]
        lo, hi = (parts[3], parts[4]) if len(parts) >= 5 else ('', '')
        if event == 'error':
            raise NanoBenchError(value.replace('suite line 1: ', ''))
        rows.append((event, value, lo, hi))
    return rows, tables


_RANGE = re.compile(r'^\s*(\S+)\s*\[(.*);(.*)\]\s*$')


def runNanoBench(code='', codeObjFile=None, codeBinFile=None, init='', initObjFile=None, initBinFile=None,
                 lateInit='', lateInitObjFile=None, lateInitBinFile=None, oneTimeInit='', oneTimeInitObjFile=None,
                 oneTimeInitBinFile=None, cpu=None, detP23=False):
    """Runs the benchmark; an OrderedDict event -> value ((value, min, max) with range=True)."""
    rows = _run(code, codeObjFile, codeBinFile, init, initObjFile, initBinFile, lateInit, lateInitObjFile,
                lateInitBinFile, oneTimeInit, oneTimeInitObjFile, oneTimeInitBinFile, cpu, detP23)
    ret = OrderedDict()
    for event, value, lo, hi in rows:
        if paramDict.get('range'):
            m = _RANGE.match(value)
            if lo and hi:
                ret[event] = (float(value), float(lo), float(hi))
            elif m:
                ret[event] = tuple(float(x) for x in m.groups())
            else:
                raise NanoBenchError('%s: %r has no min and max' % (event, value))
        else:
            try:
                ret[event] = float(value)
            except ValueError:
                ret[event] = value  # n/a and the like, as the image printed it
    return ret


# The image's errors for which kernelNanoBench.py's function returns None (it cannot find where the
# benchmark ends in the measured cycles); every other error raises.
_CYCLES_NONE = ('-cycle_by_cycle: the end of the benchmark could not be found',
                '-cycle_by_cycle: the LFENCE after the benchmark could not be found')


def runNanoBenchCycleByCycle(code='', codeObjFile=None, codeBinFile=None, init='', initObjFile=None,
                             initBinFile=None, lateInit='', lateInitObjFile=None, lateInitBinFile=None,
                             oneTimeInit='', oneTimeInitObjFile=None, oneTimeInitBinFile=None, cpu=None,
                             detP23=False):
    """Measures the benchmark cycle by cycle (-cycle_by_cycle: Intel, architectural perfmon v2+).

    An OrderedDict event -> (values, [], []): values[i] is what the event
    counted up to the end of the ith measured cycle (running totals, as
    kernelNanoBench.py returns them); the empty lists stand for its min and
    max, which it fills only with range=True. With endToEnd=True every
    cycle of the run, the image's template included. None when the image
    cannot find where the benchmark ends (kernelNanoBench.py returns None
    there too; the reason is in the results file).
    """
    if paramDict.get('range'):
        raise NanoBenchError('range=True: the image keeps one value per cycle (the aggregate of '
                             '-n_measurements runs), not the min and max runNanoBenchCycleByCycle would '
                             'return with it')
    words = _words(code, codeObjFile, codeBinFile, init, initObjFile, initBinFile, lateInit, lateInitObjFile,
                   lateInitBinFile, oneTimeInit, oneTimeInitObjFile, oneTimeInitBinFile, cpu, detP23)
    words.append('-cycle_by_cycle')
    if paramDict.get('endToEnd'):
        words.append('-end_to_end')
    try:
        rows, tables = _request(words)
    except NanoBenchError as e:
        if str(e).startswith(_CYCLES_NONE):
            return None
        raise
    if len(tables) != 1:
        raise NanoBenchError('the reply of the image has %d cycle tables (one expected); CSV rows: %r'
                             % (len(tables), rows))
    t = tables[0]
    result = OrderedDict()
    for name, values in zip(t.events, t.totals()):
        result[name] = (values, [], [])
    if paramDict.get('verbose'):
        print('\n'.join('%s: %s' % (k, v[0]) for k, v in result.items()))
    return result


def _areas():
    text = session().request(b'F').decode(errors='replace')
    areas = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) == 4 and w[0] == 'area:':
            areas[w[1]] = (w[2], int(w[3]))
    return areas


def getR14Size():
    """The size in bytes of the memory area R14 points into."""
    return _areas()['R14'][1]


def getAddress(reg):
    """The address R14, RDI, RSI, RBP or RSP holds when the benchmark starts, as a hex string."""
    areas = _areas()
    if reg.upper() not in areas:
        raise ValueError('Address not found')
    return areas[reg.upper()][0]


def fingerprint():
    """The image's cpu:, tsc: (and hypervisor:) lines."""
    return '\n'.join(l for l in session().request(b'F').decode(errors='replace').splitlines()
                     if not l.startswith('area: '))


__all__ = ['setNanoBenchParameters', 'resetNanoBench', 'runNanoBench', 'runNanoBenchCycleByCycle', 'getR14Size',
           'getAddress', 'paramDict', 'NanoBenchError']
