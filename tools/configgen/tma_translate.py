"""tma_translate.py - Intel's TMA formulas in our metric-file language.

configs/tables/tma/<PREFIX>.json (tools/configgen/tma_table.py) holds the top-down
metrics of one perfmon metric file. Translator turns a metric's BaseFormula (written in
metric and event names) into `NAME = EXPR` lines of configs/metrics/<PREFIX>.txt
(configs/README.md "Metric files"):

- tma_<node> (another metric of the file) becomes our name of it: TD_<NODE> for the
  tree's nodes, SLOTS / CLKS / CORE_CLKS for the thread's slots and cycles, the rest as
  in TMA_NAMES; the metric it names is translated too (a helper line);
- perf_metrics.<field> becomes PM_<FIELD> = TOPDOWN.<pseudo event> / TOPDOWN.SLOTS, the
  field as the fraction IA32_PERF_METRICS holds (our pseudo events are slot counts,
  configs/README.md "Top-down pseudo events"); topdown.slots:perf_metrics is
  TOPDOWN.SLOTS;
- an event is the config event of that name (or of the event the configs list it as an
  alias of; an E-core TOPDOWN_*.ALL that only a fixed counter beyond 3 counts is read as
  its .ALL_P); EVENT:cN / :e1 / :i1 is the config event
  with the same encoding plus that counter mask / edge / invert; the fixed counters keep
  the metric language's names (cpu_clk_unhalted.core of the E-cores is
  CPU_CLK_UNHALTED.THREAD, fixed counter 1);
- `A if smt_on else B` is B: our files assume SMT off (one thread per core measured);
- anything else (other conditionals, comparisons, :sup / :retire_latency events, system
  constants) makes the metric untranslatable, with the reason.
"""
import ast
import json
import os
import re

# IA32_PERF_METRICS fields (TMA's perf_metrics.<field>) -> our pseudo events (00.80-00.87)
PM_FIELDS = {
    "retiring": "TOPDOWN.RETIRING", "bad_speculation": "TOPDOWN.BAD_SPEC",
    "frontend_bound": "TOPDOWN.FE_BOUND", "backend_bound": "TOPDOWN.BE_BOUND",
    "heavy_operations": "TOPDOWN.HEAVY_OPS", "branch_mispredicts": "TOPDOWN.BR_MISPREDICT",
    "fetch_latency": "TOPDOWN.FETCH_LAT", "memory_bound": "TOPDOWN.MEM_BOUND",
}
PM_LEVEL2 = {"heavy_operations", "branch_mispredicts", "fetch_latency", "memory_bound"}
# Intel's fixed counters under the metric language's names (configs/README.md "Metric files").
FIXED = {
    "INST_RETIRED.ANY": "INST_RETIRED.ANY",
    "CPU_CLK_UNHALTED.THREAD": "CPU_CLK_UNHALTED.THREAD",
    "CPU_CLK_UNHALTED.CORE": "CPU_CLK_UNHALTED.THREAD",
    "CPU_CLK_UNHALTED.REF_TSC": "CPU_CLK_UNHALTED.REF_TSC",
}
# TMA metric -> our metric name, where it is not TD_<NAME>.
TMA_NAMES = {
    "Info_Thread_SLOTS": "SLOTS", "Info_Thread_CLKS": "CLKS", "Info_Core_CORE_CLKS": "CORE_CLKS",
    "Info_Thread_IPC": "TMA_IPC", "Info_Frontend_DSB_Coverage": "DSB_COVERAGE",
    "Info_Memory_L1MPKI": "L1MPKI", "Info_Memory_L2MPKI": "L2MPKI", "Info_Memory_L3MPKI": "L3MPKI",
}
LEVEL1 = ("Frontend_Bound", "Bad_Speculation", "Retiring", "Backend_Bound")
INFO = ("Info_Frontend_DSB_Coverage", "Info_Memory_L1MPKI", "Info_Memory_L2MPKI", "Info_Memory_L3MPKI")
# TMA metrics our own metrics (not translated from TMA) must equal: TMA name -> ours.
SAME_AS_OURS = {"Info_Core_FLOPc": "FLOP_PER_CYCLE"}

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_.:]*")
KEYWORDS = {"if", "else", "and", "or", "not", "max", "min", "smt_on"}
CODE_MODS = re.compile(r"\.(CMSK=\d+|AnyT|EDG|INV|TakenAlone|CTR=[0-9,-]+|MSR_\w+=\w+)")


class Untranslatable(Exception):
    pass


def our_name(tma_name):
    return TMA_NAMES.get(tma_name, "TD_" + tma_name.upper())


def load(path):
    with open(path) as f:
        return json.load(f)


ALIAS = re.compile(r"^#   (\S+): alias of (\S+)$")
FIXED_ONLY = re.compile(r"^#   (\S+): fixed counter only")


class Codes(dict):
    """Event name -> encoding (the first field of a config line) over the config files;
    .aliases: a name the configs list as "alias of" another written event -> that event;
    .fixed_only: names the configs list as fixed-counter only."""
    aliases = None
    fixed_only = None


def read_codes(paths):
    codes = Codes()
    codes.aliases, codes.fixed_only = {}, set()
    for path in paths:
        with open(path) as f:
            for line in f:
                a, fo = ALIAS.match(line.rstrip("\n")), FIXED_ONLY.match(line)
                if a:
                    codes.aliases.setdefault(a.group(1), a.group(2))
                elif fo:
                    codes.fixed_only.add(fo.group(1))
                w = line.split("#", 1)[0].split()
                if len(w) >= 2:
                    codes.setdefault(w[1], w[0])
    return codes


def split_code(code):
    """'0E.01.CMSK=1.INV.CTR=0-3' -> ('0E.01', {'CMSK': '1', 'INV': True}) without .CTR."""
    base = code.split(".")[0] + "." + code.split(".")[1]
    mods = {}
    for m in CODE_MODS.finditer(code):
        k, _, v = m.group(1).partition("=")
        if k != "CTR":
            mods[k] = v or True
    return base, mods


class Translator:
    def __init__(self, tma, codes, perf_metrics, perf_metrics_l2):
        self.tma = tma
        self.by_ref = {"tma_" + m["MetricName"].lower(): m for m in tma["metrics"]}
        self.by_name = {m["MetricName"]: m for m in tma["metrics"]}
        self.codes = codes
        self.perf_metrics, self.perf_metrics_l2 = perf_metrics, perf_metrics_l2
        self.defs = {}   # our name -> expression, in dependency order
        self.substituted = {}  # TMA's fixed-counter-only event -> the GP-counter event used
        self.failed = {}  # TMA name -> reason

    def event(self, name):
        """Our name for TMA's event `name` (e.g. 'UOPS_DECODED.DEC0:c1'); raises Untranslatable."""
        parts = name.split(":")
        base, mods = parts[0].upper(), [p.lower() for p in parts[1:]]
        if mods == ["perf_metrics"] and base == "TOPDOWN.SLOTS":
            if not self.perf_metrics:
                raise Untranslatable("no IA32_PERF_METRICS on this core")
            return "TOPDOWN.SLOTS"
        if base.startswith("PERF_METRICS.") and not mods:
            field = base.split(".", 1)[1].lower()
            return self.pm(field)
        if not mods:
            if base in FIXED:
                return FIXED[base]
            if base in self.codes:
                return base
            aliases = getattr(self.codes, "aliases", None) or {}
            if aliases.get(base) in self.codes:
                return aliases[base]  # the same encoding under the name the configs write
            fixed_only = getattr(self.codes, "fixed_only", None) or set()
            if base in fixed_only and base.endswith(".ALL") and base + "_P" in self.codes:
                # E-cores: TOPDOWN_*.ALL counts on a fixed counter the image does not read;
                # .ALL_P is the same count on a general-purpose counter (Intel's event list)
                self.substituted[base] = base + "_P"
                return base + "_P"
            raise Untranslatable("no %s in this core's configs" % base)
        if base not in self.codes:
            raise Untranslatable("no %s in this core's configs" % base)
        code, have = split_code(self.codes[base])
        want = dict(have)
        for m in mods:
            if re.fullmatch(r"c\d+", m):
                want["CMSK"] = m[1:]
            elif m == "e1":
                want["EDG"] = True
            elif m == "i1":
                want["INV"] = True
            else:
                raise Untranslatable("%s: modifier :%s has no config line" % (base, m))
        for other, oc in sorted(self.codes.items()):
            if split_code(oc) == (code, want):
                return other
        raise Untranslatable("no config line for %s" % name)

    def pm(self, field):
        if field not in PM_FIELDS or not self.perf_metrics:
            raise Untranslatable("no IA32_PERF_METRICS field %s on this core" % field)
        if field in PM_LEVEL2 and not self.perf_metrics_l2:
            raise Untranslatable("no level-2 IA32_PERF_METRICS field %s on this core" % field)
        name = "PM_" + field.upper()
        self.defs.setdefault(name, "%s / TOPDOWN.SLOTS" % PM_FIELDS[field])
        return name

    def metric(self, tma_name):
        """Translate TMA metric tma_name (and what it uses) into self.defs; its name there."""
        if tma_name in self.failed:
            raise Untranslatable(self.failed[tma_name])
        ours = our_name(tma_name)
        if ours in self.defs:
            return ours
        m = self.by_name.get(tma_name)
        if m is None:
            raise Untranslatable("%s is not in the TMA file" % tma_name)
        saved = dict(self.defs)
        try:
            expr = self.formula(m["BaseFormula"])
        except Untranslatable as e:
            self.defs = saved
            self.failed[tma_name] = str(e)
            raise
        self.defs[ours] = expr
        return ours

    def formula(self, text):
        names = {}

        def sub(mo):
            w = mo.group(0)
            if w in KEYWORDS:
                return w
            names.setdefault(w, "_v%d" % len(names))
            return names[w]

        src = TOKEN.sub(sub, text.strip())
        try:
            tree = ast.parse(src, mode="eval").body
        except SyntaxError:
            raise Untranslatable("unreadable formula")
        back = {v: k for k, v in names.items()}
        return self.expr(tree, back)

    def expr(self, node, back):
        return self.node(node, back)[0]

    def node(self, node, back):
        """(text, precedence): 1 for + -, 2 for * /, 3 for an atom; parentheses only
        where the evaluation order needs them (same order as the formula's)."""
        ops = {ast.Add: ("+", 1), ast.Sub: ("-", 1), ast.Mult: ("*", 2), ast.Div: ("/", 2)}
        if isinstance(node, ast.IfExp):
            if isinstance(node.test, ast.Name) and node.test.id == "smt_on":
                return self.node(node.orelse, back)  # SMT off
            raise Untranslatable("a conditional formula")
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            op, prec = ops[type(node.op)]
            left, lp = self.node(node.left, back)
            right, rp = self.node(node.right, back)
            if lp < prec:
                left = "(%s)" % left
            if rp <= prec:
                right = "(%s)" % right
            return "%s %s %s" % (left, op, right), prec
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner, ip = self.node(node.operand, back)
            return "-%s" % (inner if ip == 3 else "(%s)" % inner), 3
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return repr(node.value), 3
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("max", "min") and not node.keywords):
            return "%s(%s)" % (node.func.id, ", ".join(self.expr(a, back) for a in node.args)), 3
        if isinstance(node, ast.Name) and node.id in back:
            return self.name(back[node.id]), 3
        raise Untranslatable("an operation the metric language lacks")

    def name(self, w):
        if w.startswith("tma_"):
            m = self.by_ref.get(w)
            if m is None:
                raise Untranslatable("%s is not in the TMA file" % w)
            return self.metric(m["MetricName"])
        if w.startswith("perf_metrics."):
            return self.pm(w.split(".", 1)[1])
        if "." not in w.split(":")[0]:
            raise Untranslatable("%s is not a counter" % w)
        return self.event(w)
