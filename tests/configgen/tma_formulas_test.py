#!/usr/bin/env python3
"""tests/configgen/tma_formulas_test.py - our top-down metrics against Intel's TMA formulas.

For every microarchitecture with a TMA file (configs/tables/tma/<PREFIX>.json: Intel
perfmon's metric file reduced to its top-down tree and Info metrics, with the perfmon
file, its version and TMA version, and the perfmon commit) and a metric file
(configs/metrics/<PREFIX>.txt), this test evaluates both on synthetic counter values:

- Intel's side: each metric's Formula in event aliases (the expanded form, not the
  BaseFormula the generator translates), with `smt_on` false;
- our side: the metric file's `NAME = EXPR` lines, with the same values under our event
  names (an IA32_PERF_METRICS field f becomes TOPDOWN.<field> = f x TOPDOWN.SLOTS slots,
  as the image converts it; TMA's cmask/edge variants are the config events with that
  encoding, tools/configgen/tma_translate.py).

Every level-1 node must be a formula in our file; every level-2 node and TMA Info
metric we print (and FLOP_PER_CYCLE, TMA's Info_Core_FLOPc) must equal Intel's to 1e-9
(relative) for several sets of values; a
level-2 node we leave out must be named in a "# level 2 without" comment. TMA events
our configs lack get values on Intel's side only (e.g. the SMT-on branch's *_ANY
events): a formula of ours that would need them differs and fails. Run by make test.
"""
import os
import random
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "configgen"))
import tma_translate as T  # noqa: E402

TMA_DIR = os.path.join(ROOT, "configs", "tables", "tma")
METRICS = os.path.join(ROOT, "configs", "metrics")
CONFIGS = os.path.join(ROOT, "configs")
IDENT = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_][A-Za-z0-9_.]*")
SEEDS = range(8)
# (prefix, TMA metric) -> why Intel's formula is not ours: checked to differ, not to agree.
KNOWN_DIFFERENCES = {
    (prefix, "Info_Core_FLOPc"):
        "perfmon's %s event file gives FP_ARITH_INST_RETIRED.8_FLOPS umask 18H, the same as "
        "4_FLOPS (SDM: 60H); our FLOP weighs the single-width umasks" % prefix
    for prefix in ("SkylakeX", "CascadeLakeX")
}
TOL = 1e-9
# The level-2 nodes a metric file may leave out (named in its "# level 2 without" comments):
# exactly these, no more and no fewer. Haswell and Broadwell: TMA's Memory_Bound has a
# conditional (and Core_Bound uses it), which the metric language cannot express.
LEVEL2_LEFT_OUT = {p: {"TD_MEMORY_BOUND", "TD_CORE_BOUND"}
                   for p in ("Haswell", "HaswellX", "Broadwell", "BroadwellX")}

# Hand-computed cases: counts under our event names and the level-1/2 values worked out by
# hand from perfmon's formula text, not from our metric files or the translator. Ice Lake,
# Ice Lake-SP, Tiger Lake and Rocket Lake share these formulas (their metric files'
# BaseFormula, TMA_Metrics-full.csv's ICL column); IA32_PERF_METRICS has only level 1 there:
#   SLOTS = 1e6 slots; fields FE 0.2, BS 0.1, RET 0.4, BE 0.3 (sum 1)
#   Frontend_Bound = 0.2 - UOP_DROPPING 10000/1e6                       = 0.19
#   Backend_Bound  = 0.3 + 5 * CLEARS_COUNT 2000 / 1e6                   = 0.31
#   Retiring       = 0.4
#   Bad_Speculation = max(1 - (0.19 + 0.31 + 0.4), 0)                    = 0.10
#   Fetch_Latency  = (5 * CYCLES_0_UOPS_DELIV 30000 - 10000) / 1e6       = 0.14
#   Fetch_Bandwidth = max(0, 0.19 - 0.14)                                = 0.05
#   Branch_Mispredicts = 3000 / (3000 + MACHINE_CLEARS 1000) * 0.10      = 0.075
#   Machine_Clears = max(0, 0.10 - 0.075)                                = 0.025
#   Memory_Bound = (STALLS_MEM_ANY 50000 + BOUND_ON_STORES 10000)
#                  / (STALLS_TOTAL 80000 + (1_PORTS 25000 + 0.4 * 2_PORTS 25000) + 10000) * 0.31
#                = 60000 / 125000 * 0.31                                 = 0.1488
#   Core_Bound = max(0, 0.31 - 0.1488)                                   = 0.1612
#   Heavy_Operations = Microcode_Sequencer + Retiring * (DEC0 - DEC0:c1) / MITE_UOPS
#                    = (UOPS_RETIRED.SLOTS 300000 / UOPS_ISSUED 400000) * MS_UOPS 40000 / 1e6
#                      + 0.4 * (90000 - 60000) / 200000 = 0.03 + 0.06   = 0.09
#   Light_Operations = max(0, 0.4 - 0.09)                                = 0.31
ICL_COUNTS = {
    "TOPDOWN.SLOTS": 1e6, "TOPDOWN.FE_BOUND": 2e5, "TOPDOWN.BAD_SPEC": 1e5,
    "TOPDOWN.RETIRING": 4e5, "TOPDOWN.BE_BOUND": 3e5,
    "INT_MISC.UOP_DROPPING": 10000, "INT_MISC.CLEARS_COUNT": 2000,
    "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE": 30000,
    "BR_MISP_RETIRED.ALL_BRANCHES": 3000, "MACHINE_CLEARS.COUNT": 1000,
    "CYCLE_ACTIVITY.STALLS_MEM_ANY": 50000, "EXE_ACTIVITY.BOUND_ON_STORES": 10000,
    "CYCLE_ACTIVITY.STALLS_TOTAL": 80000, "EXE_ACTIVITY.1_PORTS_UTIL": 25000,
    "EXE_ACTIVITY.2_PORTS_UTIL": 25000,
    "UOPS_RETIRED.SLOTS": 300000, "UOPS_ISSUED.ANY": 400000, "IDQ.MS_UOPS": 40000,
    "UOPS_DECODED.DEC0": 90000, "UOPS_DECODED.DEC0.CMSK1": 60000, "IDQ.MITE_UOPS": 200000,
}
ICL_EXPECTED = {
    "TD_FRONTEND_BOUND": 0.19, "TD_FETCH_LATENCY": 0.14, "TD_FETCH_BANDWIDTH": 0.05,
    "TD_BAD_SPECULATION": 0.10, "TD_BRANCH_MISPREDICTS": 0.075, "TD_MACHINE_CLEARS": 0.025,
    "TD_RETIRING": 0.4, "TD_HEAVY_OPERATIONS": 0.09, "TD_LIGHT_OPERATIONS": 0.31,
    "TD_BACKEND_BOUND": 0.31, "TD_MEMORY_BOUND": 0.1488, "TD_CORE_BOUND": 0.1612,
}
EXACT_CASES = {p: (ICL_COUNTS, ICL_EXPECTED) for p in ("IceLake", "IceLakeX", "TigerLake", "RocketLake")}


def read_metric_file(path):
    exprs, consts, configs, text = {}, {}, [], open(path).read()
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("config "):
            configs = line.split()[1:]
        elif line.startswith("const "):
            name, value = line[6:].split("=", 1)
            consts[name.strip()] = float(value)
        elif "=" in line and not line.startswith(("na ", "group ")):
            name, expr = line.split("=", 1)
            exprs[name.strip()] = expr.strip()
    return exprs, consts, configs, text


def eval_ours(name, exprs, values, consts, memo):
    if name in memo:
        return memo[name]
    if name in values:
        return values[name]
    if name in consts:
        return consts[name]
    if name not in exprs:
        raise KeyError("no value for %s" % name)

    def sub(mo):
        w = mo.group(0)
        if w[0].isdigit():
            return w
        if w in ("max", "min"):
            return w
        return "(%r)" % eval_ours(w, exprs, values, consts, memo)

    memo[name] = eval(IDENT.sub(sub, exprs[name]), {"max": max, "min": min})
    return memo[name]


def eval_tma(m, tma_values):
    env = {"max": max, "min": min, "smt_on": False}
    for ev in m.get("Events", []):
        env[ev["Alias"]] = tma_values[ev["Name"]]
    # Machine constants: SMT off (one thread per core), as our files assume.
    known = {"HYPERTHREADING_ON": False, "THREADS_PER_CORE": 1}
    for c in m.get("Constants", []) or []:
        if c["Name"] not in known:
            raise KeyError("constant %s" % c["Name"])
        env[c["Alias"]] = known[c["Name"]]
    value = eval(m["Formula"], env)
    if m["Formula"].lstrip().startswith("100 *") and not m["BaseFormula"].lstrip().startswith("100 *"):
        value /= 100.0  # TMA prints percent; our metrics are fractions
    return value


def check_prefix(prefix, tma):
    path = os.path.join(METRICS, prefix + ".txt")
    exprs, consts, configs, text = read_metric_file(path)
    pm = "topdown_perf_metrics.txt" in configs
    t = T.Translator(tma, T.read_codes(os.path.join(CONFIGS, c) for c in configs), pm,
                     "topdown_perf_metrics_l2.txt" in configs)
    problems, compared = [], 0
    tree = [m for m in tma["metrics"] if m.get("Level") in (1, 2) and not m["MetricName"].startswith("Info_")]
    wanted = tree + [m for m in tma["metrics"] if m["MetricName"] in T.INFO or m["MetricName"] in T.SAME_AS_OURS]
    left_out = set(re.findall(r"^# level 2 without (\S+)", text, re.M))
    for m in tree:
        ours = T.our_name(m["MetricName"])
        if m.get("Level") == 1 and ours not in exprs:
            problems.append("%s: level-1 node %s is not a formula" % (prefix, ours))
        elif ours not in exprs and ours not in left_out:
            problems.append("%s: level-2 node %s is neither a formula nor named as left out" % (prefix, ours))
    if left_out != LEVEL2_LEFT_OUT.get(prefix, set()):
        problems.append("%s: level 2 leaves out %s, expected %s" % (
            prefix, sorted(left_out) or "nothing", sorted(LEVEL2_LEFT_OUT.get(prefix, set())) or "nothing"))
    if prefix in EXACT_CASES:
        counts, expected = EXACT_CASES[prefix]
        for name, want in sorted(expected.items()):
            try:
                got = eval_ours(name, exprs, counts, consts, {})
            except (KeyError, ZeroDivisionError) as e:
                problems.append("%s: hand-computed case: %s: %r" % (prefix, name, e))
                continue
            compared += 1
            if abs(got - want) > 1e-12:
                problems.append("%s: hand-computed case: %s = %.15g, by hand %.15g" % (prefix, name, got, want))
    events = sorted({ev["Name"] for m in tma["metrics"] for ev in m.get("Events", [])})
    plain = {}  # "C7.08" -> our event of that plain encoding (no cmask, edge, ...)
    for name, code in t.codes.items():
        base, mods = T.split_code(code)
        if not mods:
            plain.setdefault(base, name)
    for seed in SEEDS:
        rnd = random.Random("%s/%d" % (prefix, seed))
        ours_v, tma_v = {}, {}
        slots = rnd.uniform(1e5, 1e7)
        if pm:
            ours_v["TOPDOWN.SLOTS"] = slots  # our PM_* divide by it even where TMA's formulas do not

        def val(o):
            """Our event's value; an event whose umask combines others' (4_FLOPS = C7.08 + C7.10)
            is their sum, as the hardware counts it."""
            if o not in ours_v:
                base, mods = T.split_code(t.codes[o]) if o in t.codes else (None, None)
                parts = []
                if base and not mods:
                    ev, um = base.split(".")
                    bits = [1 << i for i in range(8) if int(um, 16) >> i & 1]
                    parts = [plain.get("%s.%02X" % (ev, b)) for b in bits] if len(bits) > 1 else []
                if parts and all(parts):
                    ours_v[o] = sum(val(p) for p in parts)
                else:
                    ours_v[o] = rnd.uniform(1e3, slots / 4)
            return ours_v[o]

        for e in events:
            try:
                o = t.event(e)
            except T.Untranslatable:
                # not in our configs (e.g. the *_ANY events of the SMT-on branch): Intel's
                # side only; if a formula we print depends on it, the values differ
                tma_v[e] = rnd.uniform(1e3, slots / 4)
                continue
            if o == "TOPDOWN.SLOTS":
                ours_v[o] = tma_v[e] = slots
            elif e.upper().startswith("PERF_METRICS."):
                frac = rnd.uniform(0.02, 0.5)
                tma_v[e] = frac
                ours_v[T.PM_FIELDS[e.split(".", 1)[1].lower()]] = frac * slots
            else:
                tma_v[e] = val(o)
        for expr in exprs.values():
            for w in IDENT.findall(expr):
                if w in t.codes or w in T.FIXED.values():
                    val(w)
        for m in wanted:
            ours = T.SAME_AS_OURS.get(m["MetricName"]) or T.our_name(m["MetricName"])
            if ours not in exprs:
                continue
            try:
                want = eval_tma(m, tma_v)
            except ZeroDivisionError:
                continue
            try:
                got = eval_ours(ours, exprs, ours_v, consts, {})
            except ZeroDivisionError:
                problems.append("%s seed %d: %s divides by zero, TMA gives %r" % (prefix, seed, ours, want))
                continue
            except KeyError as e:
                problems.append("%s: %s: %s" % (prefix, ours, e))
                continue
            compared += 1
            if (prefix, m["MetricName"]) in KNOWN_DIFFERENCES:
                if abs(got - want) <= TOL * max(1.0, abs(want)):
                    problems.append("%s: %s now equals TMA's: drop it from KNOWN_DIFFERENCES" % (prefix, ours))
            elif abs(got - want) > TOL * max(1.0, abs(want)):
                problems.append("%s seed %d: %s = %.12g, TMA %s = %.12g" % (prefix, seed, ours, got,
                                                                           m["MetricName"], want))
    return problems, compared


def main():
    problems, files, compared = [], 0, 0
    for name in sorted(os.listdir(TMA_DIR)):
        prefix = name[:-len(".json")]
        if not os.path.exists(os.path.join(METRICS, prefix + ".txt")):
            continue
        tma = T.load(os.path.join(TMA_DIR, name))
        p, n = check_prefix(prefix, tma)
        problems += p
        files += 1
        compared += n
    for p in problems:
        print("tma_formulas_test: " + p)
    if problems or not files:
        print("tma_formulas_test: %d problems" % len(problems))
        return 1
    print("tma_formulas_test: %d metric files, %d metric values equal to Intel's TMA formulas "
          "(%d value sets each, within %g)" % (files, compared, len(SEEDS), TOL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
