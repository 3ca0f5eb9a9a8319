#!/usr/bin/env python3
"""gen_metrics.py - write configs/metrics/<PREFIX>.txt for every microarchitecture
that configs/cpu_map.txt maps to a cfg_<PREFIX>_common.txt (format: configs/README.md
"Metric files"; facts: METRICS-FACTS.md, cited by section in each file).

Each metric below has alternatives (one per event naming of a generation); the
first whose events all exist in that microarchitecture's configs is written, a
metric with none is left out (or, where the table gives a reason, written as
`na NAME: reason` so that it prints n/a with it). Every file has the five groups
cpi, memory, topdown, flops and codemon: a group whose formulas do not fit a core
is written with each metric `na` and the reason (the events it lacks, or that
METRICS-FACTS gives no formula or mapping for the core), never a guess. The
memory group lists every metric of MEM_INTEL / MEM_AMD on every core (a formula
or `na` with the events it lacks), so `-metrics memory` prints the same names on
every CPU of a vendor, as cpi, flops and codemon do. So a file names only events
its configs define (tests/unit/test_metric_configs.c checks it, the five groups
and their member lists). Events of an older core used for the Skylake
events METRICS-FACTS names (STAND_INS, FLOPS_INTEL's Lion Cove alternative) are
marked "our mapping, not in METRICS-FACTS" in the generated file.

  tools/configgen/gen_metrics.py [OUTDIR]      write the files (default configs/metrics)
  tools/configgen/gen_metrics.py --check       fail, with a diff, if configs/metrics differs

arch_intel.txt and arch_amd.txt (the fallbacks) are written by hand.
"""
import difflib
import itertools
import os
import re
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CONFIGS = os.path.join(ROOT, "configs")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tma_translate  # noqa: E402  (tools/configgen/tma_translate.py)

# Intel's TMA metric files as data (tools/configgen/tma_table.py): where one exists for a
# prefix, its top-down tree (levels 1 and 2) and its Info metrics are translated from it.
TMA_DIR = os.path.join(CONFIGS, "tables", "tma")
# Its Info metrics we print, as their own group (issue 20: DSB coverage, misses per
# kilo-instruction; our L1D_MISS_RATIO ... of `memory` stay as they are).
TMA_INFO_GROUP = "tma_info"

# The hand-written config with the Ice Lake+ top-down pseudo events (configs/README.md
# "Top-down pseudo events"); listed by the metric files of PERF_METRICS_PREFIXES.
TOPDOWN_CONFIG = "topdown_perf_metrics.txt"
# Ice Lake and later P-cores (METRICS-FACTS 2b lists ICL, ICX, TGL, ADL-P, SPR; the
# later P-cores are Golden Cove successors, Rocket Lake is Ice Lake's core back-ported).
# The image refuses the lines on a CPU without IA32_PERF_CAPABILITIES[15] (then n/a).
PERF_METRICS_PREFIXES = {
    "IceLake", "IceLakeX", "TigerLake", "RocketLake", "AlderLakeP", "SapphireRapids",
    "EmeraldRapids", "GraniteRapids", "MeteorLakeP_RedwoodCove", "ArrowLakeP_LionCove",
    "LunarLakeP_LionCove",
}
# The level-2 pseudo events (IA32_PERF_METRICS bytes 4-7, 00.84-00.87), hand-written too.
TOPDOWN_CONFIG_L2 = "topdown_perf_metrics_l2.txt"
# Whose IA32_PERF_METRICS has the level-2 bytes: METRICS-FACTS 2b lists ADL-P and SPR (Golden
# Cove); Emerald/Granite Rapids and Redwood Cove are its successors (pmu_models.c, the image's
# check). Not Ice/Tiger/Rocket Lake (four bytes only), not Lion Cove (2b does not say).
PERF_METRICS_L2_PREFIXES = {
    "AlderLakeP", "SapphireRapids", "EmeraldRapids", "GraniteRapids", "MeteorLakeP_RedwoodCove",
    # Lion Cove: Intel's TMA files for Arrow/Lunar Lake read perf_metrics.fetch_latency,
    # branch_mispredicts, heavy_operations, memory_bound (configs/tables/tma/*LionCove.json)
    "ArrowLakeP_LionCove", "LunarLakeP_LionCove",
}
# The AMD level-2 event with a counter mask (1A0.01.CMSK=6, section 2c), hand-written: the
# generated configs have no cmask variants. Listed by the files whose configs have event 1A0.
AMD_TOPDOWN_CONFIG_L2 = "topdown_amd_l2.txt"
AMD_L2_PREFIXES = {"Zen4", "Zen5"}

# Per microarchitecture: title, constants (name, value or None, comment), FACTS sections.
FAMILY = {
    "Bonnell": "Intel Bonnell / Saltwell Atom",
    "Core": "Intel Core 2",
    "Nehalem": "Intel Nehalem", "NehalemEX": "Intel Nehalem-EX",
    "Westmere": "Intel Westmere", "WestmereEPDP": "Intel Westmere-EP", "WestmereEX": "Intel Westmere-EX",
    "SandyBridge": "Intel Sandy Bridge", "SandyBridgeEP": "Intel Sandy Bridge-EP",
    "IvyBridge": "Intel Ivy Bridge", "IvyBridgeEP": "Intel Ivy Bridge-EP",
    "Haswell": "Intel Haswell", "HaswellX": "Intel Haswell-EP",
    "Broadwell": "Intel Broadwell", "BroadwellDE": "Intel Broadwell-DE", "BroadwellX": "Intel Broadwell-EP",
    "Skylake": "Intel Skylake client (also Kaby/Coffee/Comet Lake)", "SkylakeX": "Intel Skylake-SP",
    "IceLake": "Intel Ice Lake client", "IceLakeX": "Intel Ice Lake-SP", "TigerLake": "Intel Tiger Lake",
    "RocketLake": "Intel Rocket Lake",
    "AlderLakeP": "Intel Alder Lake / Raptor Lake P-core (Golden Cove)",
    "AlderLakeE": "Intel Alder Lake / Raptor Lake E-core (Gracemont)",
    "SapphireRapids": "Intel Sapphire Rapids", "EmeraldRapids": "Intel Emerald Rapids",
    "GraniteRapids": "Intel Granite Rapids",
    "MeteorLakeP_RedwoodCove": "Intel Meteor Lake P-core (Redwood Cove)",
    "MeteorLakeE_Crestmont": "Intel Meteor Lake E-core (Crestmont)",
    "ArrowLakeP_LionCove": "Intel Arrow Lake P-core (Lion Cove)",
    "ArrowLakeE_Skymont": "Intel Arrow Lake E-core (Skymont)",
    "LunarLakeP_LionCove": "Intel Lunar Lake P-core (Lion Cove)",
    "LunarLakeE_Skymont": "Intel Lunar Lake E-core (Skymont)",
    "Silvermont": "Intel Silvermont / Airmont", "Goldmont": "Intel Goldmont", "GoldmontPlus": "Intel Goldmont Plus",
    "Tremont": "Intel Tremont", "SnowRidgeX": "Intel Snow Ridge (Tremont)", "SierraForest": "Intel Sierra Forest (Crestmont)",
    "KnightsLanding": "Intel Knights Landing / Mill",
    "Zen": "AMD Zen / Zen+", "Zen2": "AMD Zen 2", "Zen3": "AMD Zen 3", "Zen4": "AMD Zen 4", "Zen5": "AMD Zen 5",
}

# issue_width: the top-down slots per cycle (METRICS-FACTS 2a/2c); None = not known
# from METRICS-FACTS, the constant stays out and the slot metrics print n/a.
WIDTH = {
    **{p: (4, "# pipeline width (section 2a gives 4 for SKL/SKX/CLX; Sandy Bridge to Broadwell are 4-wide as well, not in METRICS-FACTS)")
       for p in ("SandyBridge", "SandyBridgeEP", "IvyBridge", "IvyBridgeEP", "Haswell", "HaswellX",
                 "Broadwell", "BroadwellDE", "BroadwellX")},
    "Skylake": (4, None), "SkylakeX": (4, None),
    "AlderLakeE": (5, "# Gracemont, E-core TMA (section 2a)"),
    **{p: (8, "# Skymont pipeline width, E-core TMA 4 #Pipeline_Width (section 2a)")
       for p in ("ArrowLakeE_Skymont", "LunarLakeE_Skymont")},
    **{p: (6, "# Crestmont pipeline width, E-core TMA (CMT column; Sierra Forest's TMA file: 6 x cycles), section 2a")
       for p in ("MeteorLakeE_Crestmont", "ArrowLakeLPE_Crestmont", "SierraForest", "GrandRidge")},
    **{p: (4, "# Tremont pipeline width (section 2a: Tremont / Snow Ridge / Elkhart Lake 4)")
       for p in ("Tremont", "SnowRidgeX")},
    "Zen2": (6, "# dispatch width (unverified for Zen 2, section 7)"),
    "Zen3": (6, "# dispatch width (unverified for Zen 3, section 7)"),
    "Zen4": (6, "# dispatch width"),
}
WIDTH_UNKNOWN = "# issue_width: not in METRICS-FACTS for this core (section 2a/2c): the slot-based top-down metrics print n/a"

# peak_flop_per_cycle (section 5, single precision); None with a reason = left out.
PEAK = {
    "Skylake": (32, "# single precision, 2 x 256-bit FMA (section 5)"),
    "SkylakeX": (None, "# peak_flop_per_cycle: 64 or 32 (one or two 512-bit FMA units per SKU, section 5): unknown here"),
    "IceLake": (None, "# peak_flop_per_cycle: 32 for Ice Lake client is not verified (sections 5, 7): left out"),
    "IceLakeX": (None, "# peak_flop_per_cycle: 64 for Ice Lake-SP is not verified per SKU (sections 5, 7): left out"),
    "AlderLakeP": (None, "# peak_flop_per_cycle: 32 for Golden Cove is not verified (sections 5, 7): left out"),
    "SapphireRapids": (64, "# single precision, 2 x 512-bit FMA (section 5; FP16 would be 128)"),
    "Zen2": (32, "# single precision, 2 x 256-bit FMA (section 5)"),
    "Zen3": (32, "# single precision, 2 x 256-bit FMA (section 5)"),
    "Zen4": (32, "# single precision, 2 x 256-bit FMA, 512-bit ops double-pumped (section 5)"),
}
PEAK_UNKNOWN = "# peak_flop_per_cycle: not in METRICS-FACTS section 5 for this core: FP_PEAK_UTILIZATION prints n/a"

INTEL_FIXED = {"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.REF_TSC"}
AMD_FIXED = {"MPERF", "APERF"}
# Every file has these groups, in this order (test_metric_configs.c checks them).
GROUPS = ("cpi", "memory", "topdown", "flops", "codemon")
NA_REASON_MAX = 127  # configs/README.md "Metric files": `na NAME: REASON`
CONSTS = {"tsc_hz", "issue_width", "peak_flop_per_cycle", "N1", "N2", "N3", "N4", "RDTSC"}

# ---------------------------------------------------------------------------
# Metric definitions: (name, [alternative expressions]). Order = output order.

CPI_INTEL = [
    ("CPI", ["CPU_CLK_UNHALTED.THREAD / INST_RETIRED.ANY"]),
    ("NOMINAL_CPI", ["CPU_CLK_UNHALTED.REF_TSC / INST_RETIRED.ANY"]),
    ("TSC_PER_INST", ["RDTSC / INST_RETIRED.ANY"]),
    ("IPC", ["INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD"]),
    ("EFFECTIVE_MHZ", ["CPU_CLK_UNHALTED.THREAD / CPU_CLK_UNHALTED.REF_TSC * tsc_hz / 1e6"]),
    ("REF_PER_TSC", ["CPU_CLK_UNHALTED.REF_TSC / RDTSC"]),
]
# AMD: cycles 076, instructions 0C0, reference cycles 120/01 (Zen 4+) or MPERF (section 1c, 4)
AMD_CYC = ["CYCLES_NOT_IN_HALT", "LS_NOT_HALTED_CYC"]
AMD_INS = ["RETIRED_INSTRUCTIONS", "EX_RET_INSTR"]
AMD_REF = ["P0_FREQ_CYCLES_NOT_IN_HALT.P0_FREQ_CYCLES", "LS_NOT_HALTED_P0_CYC.P0_FREQ_CYC", "MPERF"]


def amd(expr_tpl):
    """Alternatives of an AMD expression over the cycle/instruction/reference names."""
    out = []
    for c, i in zip(AMD_CYC, AMD_INS):
        for r in AMD_REF:
            e = expr_tpl.format(CYC=c, INS=i, REF=r)
            if e not in out:
                out.append(e)
    return out


CPI_AMD = [
    ("CPI", amd("{CYC} / {INS}")),
    ("NOMINAL_CPI", amd("{REF} / {INS}")),
    ("TSC_PER_INST", amd("RDTSC / {INS}")),
    ("IPC", amd("{INS} / {CYC}")),
    ("EFFECTIVE_MHZ", amd("{CYC} / {REF} * tsc_hz / 1e6")),
    ("REF_PER_TSC", amd("{REF} / RDTSC")),
]

MEM_INTEL = [
    ("L1D_MISS_RATIO", ["MEM_LOAD_RETIRED.L1_MISS / MEM_INST_RETIRED.ALL_LOADS",
                        "MEM_LOAD_UOPS_RETIRED.L1_MISS / MEM_UOPS_RETIRED.ALL_LOADS"]),
    ("L2_MISS_RATIO", ["MEM_LOAD_RETIRED.L2_MISS / MEM_LOAD_RETIRED.L1_MISS",
                       "MEM_LOAD_UOPS_RETIRED.L2_MISS / MEM_LOAD_UOPS_RETIRED.L1_MISS"]),
    ("L3_MISS_RATIO", ["MEM_LOAD_RETIRED.L3_MISS / MEM_LOAD_RETIRED.L2_MISS",
                       "MEM_LOAD_UOPS_RETIRED.L3_MISS / MEM_LOAD_UOPS_RETIRED.L2_MISS",
                       "MEM_LOAD_UOPS_RETIRED.LLC_MISS / MEM_LOAD_UOPS_RETIRED.L2_MISS",
                       "MEM_LOAD_UOPS_RETIRED.DRAM_HIT / MEM_LOAD_UOPS_RETIRED.L2_MISS"]),
    ("LLC_MISS_RATIO", ["LONGEST_LAT_CACHE.MISS / LONGEST_LAT_CACHE.REFERENCE"]),
    ("DTLB_WALKS_PKI", ["1000 * DTLB_LOAD_MISSES.WALK_COMPLETED / INST_RETIRED.ANY"]),
    ("LOAD_MISS_LATENCY", ["L1D_PEND_MISS.PENDING / MEM_LOAD_COMPLETED.L1_MISS_ANY",
                           "L1D_PEND_MISS.PENDING / (MEM_LOAD_RETIRED.L1_MISS + MEM_LOAD_RETIRED.FB_HIT)",
                           "L1D_PEND_MISS.PENDING / (MEM_LOAD_UOPS_RETIRED.L1_MISS + MEM_LOAD_UOPS_RETIRED.HIT_LFB)"]),
]

# AMD: demand L1D fills by source (043), L2 status of data-cache reads (064), walks (045 L2 miss)
ZEN2_FILLS = ["DATA_CACHE_REFILLS_FROM_SYSTEM." + u for u in
              ("MABRESP_LCL_L2", "LS_MABRESP_LCL_CACHE", "LS_MABRESP_LCL_DRAM", "LS_MABRESP_RMT_CACHE", "LS_MABRESP_RMT_DRAM")]
ZEN3_FILLS = ["DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM." + u for u in
              ("LCL_L2", "INT_CACHE", "EXT_CACHE_LCL", "MEM_IO_LCL", "EXT_CACHE_RMT", "MEM_IO_RMT")]
ZEN4_FILLS = ["DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM." + u for u in
              ("LCL_L2", "LOCAL_CCX", "NEAR_CACHE_NEAR_FAR", "DRAM_IO_NEAR", "FAR_CACHE_NEAR_FAR", "DRAM_IO_FAR")]
ZEN5_FILLS = ["LS_DMND_FILLS_FROM_SYS." + u for u in
              ("LOCAL_L2", "LOCAL_CCX", "NEAR_CACHE", "DRAM_IO_NEAR", "FAR_CACHE", "DRAM_IO_FAR")]
FILLS = [ZEN2_FILLS, ZEN3_FILLS, ZEN4_FILLS, ZEN5_FILLS]
L2ST = ["CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.", "L2_CACHE_REQ_STAT."]
L2ST_LAST = {"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.": "LS_RD_BLK_C_S", "L2_CACHE_REQ_STAT.": "LS_RD_BLK_CS"}
DTLB = ["L1_DTLB_MISS.", "LS_L1_D_TLB_MISS."]
AMD_WALK_UMASKS = ("TLB_RELOAD_4K_L2_MISS", "TLB_RELOAD_COALESCED_PAGE_MISS", "TLB_RELOAD_2M_L2_MISS", "TLB_RELOAD_1G_L2_MISS")

# Reasons of the AMD memory metrics on a core without their events (Zen 1 has no 043H): the
# helpers they are written over are left out there (emit(na_helpers=False)).
AMD_NO_FILLS = "no demand L1D fill event (043H, section 1c) in this core's event configs"
MEM_AMD = [
    ("L1D_FILLS", [" + ".join(f) for f in FILLS]),
    ("L1D_MISS_RATIO", ["L1D_FILLS / LS_DISPATCH.LD_DISPATCH"], AMD_NO_FILLS),
    ("L2_ACCESSES", [" + ".join(p + u for u in ("LS_RD_BLK_C", "LS_RD_BLK_X", "LS_RD_BLK_L_HIT_S", "LS_RD_BLK_L_HIT_X", L2ST_LAST[p]))
                     for p in L2ST]),
    ("L2_MISS_RATIO", [p + "LS_RD_BLK_C / L2_ACCESSES" for p in L2ST],
     "no L2 cache request status event (064H, section 1c) in this core's event configs"),
    ("L3_MISS_RATIO", ["(L1D_FILLS - {0} - {1}) / (L1D_FILLS - {0})".format(f[0], f[1]) for f in FILLS], AMD_NO_FILLS),
    ("DTLB_WALKS", [" + ".join(p + u for u in AMD_WALK_UMASKS) for p in DTLB]),
    ("DTLB_WALKS_PKI", amd("1000 * DTLB_WALKS / {INS}"),
     "no L1 DTLB miss event (045H, section 1c) in this core's event configs"),
]

# Top-down level 1 (section 2a Intel, 2b PERF_METRICS, 2c AMD)
TD_PERF_METRICS = [
    ("TD_FRONTEND_BOUND", ["TOPDOWN.FE_BOUND / TOPDOWN.SLOTS"]),
    ("TD_BAD_SPECULATION", ["TOPDOWN.BAD_SPEC / TOPDOWN.SLOTS"]),
    ("TD_RETIRING", ["TOPDOWN.RETIRING / TOPDOWN.SLOTS"]),
    ("TD_BACKEND_BOUND", ["TOPDOWN.BE_BOUND / TOPDOWN.SLOTS"]),
]
# Level 2 (section 2a ADL-P/SPR, 2b bytes 4-7): each byte over TOPDOWN.SLOTS like level 1,
# the sibling the rest of its level-1 parent (TMA's tree: Light = Retiring - Heavy, etc.).
TD_PERF_METRICS_L2 = [
    ("TD_FETCH_LATENCY", ["TOPDOWN.FETCH_LAT / TOPDOWN.SLOTS"]),
    ("TD_FETCH_BANDWIDTH", ["TD_FRONTEND_BOUND - TD_FETCH_LATENCY"]),
    ("TD_BRANCH_MISPREDICTS", ["TOPDOWN.BR_MISPREDICT / TOPDOWN.SLOTS"]),
    ("TD_MACHINE_CLEARS", ["TD_BAD_SPECULATION - TD_BRANCH_MISPREDICTS"]),
    ("TD_HEAVY_OPERATIONS", ["TOPDOWN.HEAVY_OPS / TOPDOWN.SLOTS"]),
    ("TD_LIGHT_OPERATIONS", ["TD_RETIRING - TD_HEAVY_OPERATIONS"]),
    ("TD_MEMORY_BOUND", ["TOPDOWN.MEM_BOUND / TOPDOWN.SLOTS"]),
    ("TD_CORE_BOUND", ["TD_BACKEND_BOUND - TD_MEMORY_BOUND"]),
]
# `-metrics topdown` prints the tree as TMA draws it: each level-1 node, then its children.
TD_TREE_INTEL = ["TD_FRONTEND_BOUND", "TD_FETCH_LATENCY", "TD_FETCH_BANDWIDTH",
                 "TD_BAD_SPECULATION", "TD_BRANCH_MISPREDICTS", "TD_MACHINE_CLEARS",
                 "TD_RETIRING", "TD_LIGHT_OPERATIONS", "TD_HEAVY_OPERATIONS",
                 "TD_BACKEND_BOUND", "TD_MEMORY_BOUND", "TD_CORE_BOUND"]
TD_SKL_NO_L2 = ("# no topdown level 2: METRICS-FACTS section 2a gives level-2 formulas for the PERF_METRICS cores"
                " and Gracemont only,\n# none for Sandy Bridge to Skylake-X, so none is shipped here")
TD_SKL = [
    ("SLOTS", ["issue_width * CPU_CLK_UNHALTED.THREAD"]),
    ("TD_FRONTEND_BOUND", ["IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS"]),
    ("TD_BAD_SPECULATION", ["(UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + issue_width * INT_MISC.RECOVERY_CYCLES) / SLOTS"]),
    ("TD_RETIRING", ["UOPS_RETIRED.RETIRE_SLOTS / SLOTS"]),
    ("TD_BACKEND_BOUND", ["1 - TD_FRONTEND_BOUND - (UOPS_ISSUED.ANY + issue_width * INT_MISC.RECOVERY_CYCLES) / SLOTS"]),
]
# The later E-cores (Crestmont, Skymont) name the programmable-counter forms .ALL_P (their
# event lists give TOPDOWN_*.ALL as an alias of .ALL_P or as fixed-counter only; the codemon
# group uses them as well); the first alternative is the one of section 2a.
TD_ATOM = [
    ("SLOTS", ["issue_width * CPU_CLK_UNHALTED.THREAD"]),
    ("TD_FRONTEND_BOUND", ["TOPDOWN_FE_BOUND.ALL / SLOTS", "TOPDOWN_FE_BOUND.ALL_P / SLOTS"]),
    ("TD_BAD_SPECULATION", ["TOPDOWN_BAD_SPECULATION.ALL / SLOTS", "TOPDOWN_BAD_SPECULATION.ALL_P / SLOTS"]),
    ("TD_RETIRING", ["TOPDOWN_RETIRING.ALL / SLOTS", "TOPDOWN_RETIRING.ALL_P / SLOTS", "UOPS_RETIRED.ALL / SLOTS"]),
    ("TD_BACKEND_BOUND", ["TOPDOWN_BE_BOUND.ALL / SLOTS", "TOPDOWN_BE_BOUND.ALL_P / SLOTS"]),
]
# No top-down formula (the group is written with `na` lines, configs/README.md "Metric files").
TD_NA_INTEL = ("METRICS-FACTS 2a has no top-down formula for this core "
               "(no IDQ_UOPS_NOT_DELIVERED.CORE or TOPDOWN_FE_BOUND.ALL in its configs)")
TD_NA_AMD = "METRICS-FACTS 2c gives top-down for Zen 2 to Zen 4 only; Zen 1 has no op-queue-empty event (0A9)"
TD_ZEN2 = [
    ("SLOTS", ["issue_width * CYCLES_NOT_IN_HALT"]),
    ("TD_FRONTEND_BOUND", ["UOPS_QUEUE_EMPTY / CYCLES_NOT_IN_HALT"]),
    ("TD_RETIRING", ["RETIRED_UOPS / SLOTS", "RETIRED_OPS / SLOTS"]),
    ("TD_BAD_SPECULATION", ["(UOPS_DISPATCHED_FROM_DECODER.DECODER_DISPATCHED + UOPS_DISPATCHED_FROM_DECODER.OPCACHE_DISPATCHED - RETIRED_UOPS) / SLOTS",
                            "(OPS_TYPE_DISPATCHED_FROM_DECODER.FP_DISP_IBS_MODE + OPS_TYPE_DISPATCHED_FROM_DECODER.INT_DISP_IBS_MODE - RETIRED_OPS) / SLOTS"]),
    ("TD_BACKEND_BOUND", ["1 - TD_FRONTEND_BOUND - TD_RETIRING - TD_BAD_SPECULATION"]),
]
# Gracemont level 2 (section 2a, E-core TMA column GRT): the three events it names, each over SLOTS.
TD_GRT_L2 = [
    ("TD_BRANCH_MISPREDICTS", ["TOPDOWN_BAD_SPECULATION.MISPREDICT / SLOTS"]),
    ("TD_MACHINE_CLEARS", ["TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS / SLOTS"]),
    ("TD_CORE_BOUND", ["TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS / SLOTS"]),
]
TD_TREE_GRT = ["TD_FRONTEND_BOUND", "TD_BAD_SPECULATION", "TD_BRANCH_MISPREDICTS", "TD_MACHINE_CLEARS",
               "TD_RETIRING", "TD_BACKEND_BOUND", "TD_CORE_BOUND"]
TD_ORDER = ["TD_FRONTEND_BOUND", "TD_BAD_SPECULATION", "TD_RETIRING", "TD_BACKEND_BOUND"]
TD_ZEN4 = [
    ("SLOTS", ["issue_width * CYCLES_NOT_IN_HALT", "issue_width * LS_NOT_HALTED_CYC"]),
    ("TD_FRONTEND_BOUND", ["DISPATCH_STALLS_1.FE_NO_OPS / SLOTS", "DE_NO_DISPATCH_PER_SLOT.NO_OPS_FROM_FRONTEND / SLOTS"]),
    ("TD_BAD_SPECULATION", ["(OPS_SOURCE_DISPATCHED_FROM_DECODER.DECODER + OPS_SOURCE_DISPATCHED_FROM_DECODER.OPCACHE + OPS_SOURCE_DISPATCHED_FROM_DECODER.LOOP_BUFFER - RETIRED_OPS) / SLOTS",
                            "(DE_SRC_OP_DISP.ALL - EX_RET_OPS) / SLOTS"]),
    ("TD_RETIRING", ["RETIRED_OPS / SLOTS", "EX_RET_OPS / SLOTS"]),
    ("TD_BACKEND_BOUND", ["DISPATCH_STALLS_1.BE_STALLS / SLOTS", "DE_NO_DISPATCH_PER_SLOT.BACKEND_STALLS / SLOTS"]),
    ("TD_SMT_CONTENTION", ["DISPATCH_STALLS_1.SMT_CONTENTION / SLOTS", "DE_NO_DISPATCH_PER_SLOT.SMT_CONTENTION / SLOTS"]),
]

# Zen 4 level 2 (section 2c, [LK] amdzen4/pipeline.json); Zen 5 where its configs name the events.
TD_ZEN4_L2 = [
    ("TD_FETCH_LATENCY", ["issue_width * DE_NO_DISPATCH_PER_SLOT.NO_OPS_FROM_FRONTEND.CMSK6 / SLOTS"]),
    ("TD_FETCH_BANDWIDTH", ["TD_FRONTEND_BOUND - TD_FETCH_LATENCY"]),
    ("TD_BRANCH_MISPREDICTS", ["TD_BAD_SPECULATION * {0} / ({0} + RESYNCS)".format(e)
                               for e in ("RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", "EX_RET_BRN_MISP")]),
    ("TD_PIPELINE_RESTARTS", ["TD_BAD_SPECULATION - TD_BRANCH_MISPREDICTS"]),
    ("TD_RETIRING_MICROCODE", ["TD_RETIRING * RETIRED_UCODE_OPS / RETIRED_OPS", "TD_RETIRING * EX_RET_UCODE_OPS / EX_RET_OPS"]),
    ("TD_RETIRING_FASTPATH", ["TD_RETIRING - TD_RETIRING_MICROCODE"]),
    ("TD_MEMORY_BOUND", ["TD_BACKEND_BOUND * CYCLES_NO_RETIRE.NOT_COMPLETE_MISSING_LOAD / CYCLES_NO_RETIRE.NOT_COMPLETE_LOAD_AND_ALU",
                         "TD_BACKEND_BOUND * EX_NO_RETIRE.LOAD_NOT_COMPLETE / EX_NO_RETIRE.NOT_COMPLETE"]),
    ("TD_CORE_BOUND", ["TD_BACKEND_BOUND - TD_MEMORY_BOUND"]),
]
TD_TREE_AMD = ["TD_FRONTEND_BOUND", "TD_FETCH_LATENCY", "TD_FETCH_BANDWIDTH",
               "TD_BAD_SPECULATION", "TD_BRANCH_MISPREDICTS", "TD_PIPELINE_RESTARTS",
               "TD_RETIRING", "TD_RETIRING_MICROCODE", "TD_RETIRING_FASTPATH",
               "TD_BACKEND_BOUND", "TD_MEMORY_BOUND", "TD_CORE_BOUND", "TD_SMT_CONTENTION"]

FP = "FP_ARITH_INST_RETIRED."
# Sapphire Rapids and later: FP16 FLOPs in FP_ARITH_INST_RETIRED2 (CFH), weighted as Intel's
# TMA Info_Core_FLOPc weighs them (half: scalar 1, complex scalar 2, 128/256/512-bit 8/16/32).
FP16_TERMS = [(1, "FP_ARITH_INST_RETIRED2.SCALAR_HALF"), (2, "FP_ARITH_INST_RETIRED2.COMPLEX_SCALAR_HALF"),
              (8, "FP_ARITH_INST_RETIRED2.128B_PACKED_HALF"), (16, "FP_ARITH_INST_RETIRED2.256B_PACKED_HALF"),
              (32, "FP_ARITH_INST_RETIRED2.512B_PACKED_HALF")]
FLOPS_INTEL = [
    ("FLOP", [(" + ".join(("{} * ".format(w) if w > 1 else "") + e for w, e in [(w, FP + u) for w, u in (
        (1, "SCALAR_DOUBLE"), (1, "SCALAR_SINGLE"), (2, "128B_PACKED_DOUBLE"), (4, "128B_PACKED_SINGLE"),
        (4, "256B_PACKED_DOUBLE"), (8, "256B_PACKED_SINGLE"), (8, "512B_PACKED_DOUBLE"), (16, "512B_PACKED_SINGLE"))]
        + FP16_TERMS), "# FLOP with the FP16 operations of FP_ARITH_INST_RETIRED2, as Intel's TMA counts them")]
     + [" + ".join(("{} * ".format(w) if w > 1 else "") + FP + u for w, u in terms) for terms in (
        [(1, "SCALAR_DOUBLE"), (1, "SCALAR_SINGLE"), (2, "128B_PACKED_DOUBLE"), (4, "128B_PACKED_SINGLE"),
         (4, "256B_PACKED_DOUBLE"), (8, "256B_PACKED_SINGLE"), (8, "512B_PACKED_DOUBLE"), (16, "512B_PACKED_SINGLE")],
        [(1, "SCALAR_DOUBLE"), (1, "SCALAR_SINGLE"), (2, "128B_PACKED_DOUBLE"), (4, "128B_PACKED_SINGLE"),
         (4, "256B_PACKED_DOUBLE"), (8, "256B_PACKED_SINGLE")])]
     + [(" + ".join(("{} * ".format(w) if w > 1 else "") + "FP_ARITH_OPS_RETIRED." + u for w, u in (
         (1, "SCALAR_DOUBLE"), (1, "SCALAR_SINGLE"), (2, "128B_PACKED_DOUBLE"), (4, "128B_PACKED_SINGLE"),
         (4, "256B_PACKED_DOUBLE"), (8, "256B_PACKED_SINGLE"))),
         "# FLOP: our mapping, not in METRICS-FACTS: Lion Cove's FP_ARITH_OPS_RETIRED (C7H, the same umasks) is\n"
         "# described as Skylake's FP_ARITH_INST_RETIRED of section 1a (computational SSE/AVX instructions\n"
         "# retired, one count per element, FMA twice); the lanes weighted the same way")]),
    ("FLOP_PER_CYCLE", ["FLOP / CPU_CLK_UNHALTED.THREAD"]),
    ("FP_PEAK_UTILIZATION", ["FLOP_PER_CYCLE / peak_flop_per_cycle"]),
]
FLOPS_AMD = [
    ("FLOP", ["RETIRED_SSE_AVX_FLOPS.ANY", "FP_RET_SSE_AVX_OPS.ALL"]),
    ("FLOP_PER_CYCLE", ["FLOP / " + c for c in AMD_CYC]),
    ("FP_PEAK_UTILIZATION", ["FLOP_PER_CYCLE / peak_flop_per_cycle"]),
]


def flop_na(f):
    """Why a core's configs give no FLOP count (the flops group is then written with `na` lines)."""
    if any(e.startswith("FP_COMP_OPS_EXE.") or e == "FP_COMP_OPS_EXE" for e in f.events):
        return ("%s count executed FP uops, speculative (overcount), not FLOPs retired: no FLOP formula (1a)"
                % ("FP_COMP_OPS_EXE/SIMD_FP_256" if any(e.startswith("SIMD_FP_256.") for e in f.events) else "FP_COMP_OPS_EXE"))
    if "FP_FLOPS_RETIRED.ALL" in f.events:
        return "METRICS-FACTS 1b has no FLOP event for the E-cores; FP_FLOPS_RETIRED.ALL here is unverified, not used"
    if f.vendor == "amd":
        return "section 1c gives the FLOP event (003H) for Zen 2 to Zen 4; Zen 1's RETIRED_SSE_AVX_OPERATIONS is not mapped"
    if f.prefix in CODEMON_E_PREFIXES:
        return "no FLOP-count event on the E-cores (section 1b)"
    return "no FLOP-count event (FP_ARITH_INST_RETIRED, section 1a) in this core's event configs"


# Codemon (section 3b with the roles of 3a, latency model 3c). A metric is
# (name, [alternatives]) or (name, [alternatives], reason): with a reason, a core
# whose configs fit no alternative gets `na NAME: reason` (configs/README.md
# "Metric files"), so the metric prints n/a with why instead of a guess. An
# alternative is an expression or (expression, note): the note becomes a comment.
#
# Intel P-cores: Skylake to Tiger Lake (CYCLE_ACTIVITY.STALLS_MEM_ANY) or Golden Cove
# and later (EXE_ACTIVITY.BOUND_ON_LOADS and MEMORY_ACTIVITY.STALLS_L1D_MISS, 3a/3b row 11).
CODEMON_P_PREFIXES = {
    "Skylake", "SkylakeX", "IceLake", "IceLakeX", "TigerLake", "RocketLake", "AlderLakeP",
    "SapphireRapids", "EmeraldRapids", "GraniteRapids", "MeteorLakeP_RedwoodCove",
    "ArrowLakeP_LionCove", "LunarLakeP_LionCove",
}
NO_L1D_STALLS = ("no CYCLE_ACTIVITY.STALLS_L1D_MISS or MEMORY_ACTIVITY.STALLS_L1D_MISS in this core's "
                 "event configs (section 3a)")
NO_FLOP = "no flops group for this core (the FLOP events of section 1a/1c are not in its event configs)"
CODEMON = [
    ("CM_B", ["UOPS_RETIRED.STALL_CYCLES", "UOPS_RETIRED.STALLS"]),
    ("CM_USEFUL_I", ["INST_RETIRED.ANY - INST_RETIRED.NOP"]),
    ("PROG_CPUI", ["CPU_CLK_UNHALTED.THREAD / CM_USEFUL_I"]),
    ("PROG_CPI", ["CPU_CLK_UNHALTED.THREAD / INST_RETIRED.ANY"]),
    ("PROG_UCPUI", ["(CPU_CLK_UNHALTED.THREAD - CM_B) / CM_USEFUL_I"]),
    ("PROG_UCPI", ["(CPU_CLK_UNHALTED.THREAD - CM_B) / INST_RETIRED.ANY"]),
    ("PROG_DELAY_RATIO", ["CM_B / CPU_CLK_UNHALTED.THREAD"]),
    ("FLUSH_RATIO", ["INT_MISC.RECOVERY_CYCLES / CM_B"]),
    ("L1D_FPU_RATIO", ["(CYCLE_ACTIVITY.STALLS_MEM_ANY - CYCLE_ACTIVITY.STALLS_L1D_MISS) / CM_B",
                       "(EXE_ACTIVITY.BOUND_ON_LOADS - MEMORY_ACTIVITY.STALLS_L1D_MISS) / CM_B"], NO_L1D_STALLS),
    ("EXE_RATIO", ["(CYCLE_ACTIVITY.STALLS_L1D_MISS + CYCLE_ACTIVITY.STALLS_TOTAL - CYCLE_ACTIVITY.STALLS_MEM_ANY) / CM_B",
                   "(MEMORY_ACTIVITY.STALLS_L1D_MISS + CYCLE_ACTIVITY.STALLS_TOTAL - EXE_ACTIVITY.BOUND_ON_LOADS) / CM_B"],
     NO_L1D_STALLS),
    ("OTHER_BE_RATIO", ["EXE_ACTIVITY.BOUND_ON_STORES / CM_B"]),
    ("FE_RATIO", ["IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE / CM_B"],
     "no IDQ 0-uop cycles event (IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE) in this core's event configs (section 3a)"),
    ("PROG_ACCESS_DELAY_RATIO", ["(CYCLE_ACTIVITY.STALLS_MEM_ANY + EXE_ACTIVITY.BOUND_ON_STORES) / CM_B",
                                 "(EXE_ACTIVITY.BOUND_ON_LOADS + EXE_ACTIVITY.BOUND_ON_STORES) / CM_B"]),
    ("CM_L2_MISS_RATIO", ["MEM_LOAD_RETIRED.L2_MISS / MEM_LOAD_RETIRED.L1_MISS"]),
    ("CM_L3_MISS_RATIO", ["LONGEST_LAT_CACHE.MISS / LONGEST_LAT_CACHE.REFERENCE",
                          ("MEM_LOAD_RETIRED.L3_MISS / MEM_LOAD_RETIRED.L2_MISS",
                           "# CM_L3_MISS_RATIO from retired loads (MEM_LOAD_RETIRED.L3_MISS / L2_MISS, section 3a): its event\n"
                           "# configs have no LONGEST_LAT_CACHE.REFERENCE (section 1a)")]),
    ("CM_LATENCY_BUBBLES", ["MEM_LOAD_RETIRED.L2_HIT * N1 + MEM_LOAD_RETIRED.L3_HIT * N2 + MEM_LOAD_RETIRED.L3_MISS * N3"
                            " + DTLB_LOAD_MISSES.WALK_COMPLETED * N4"]),
    ("CACHE_DELAY_RATIO", ["(MEM_LOAD_RETIRED.L2_HIT * N1 + MEM_LOAD_RETIRED.L3_HIT * N2) / CM_LATENCY_BUBBLES"]),
    ("MEM_DELAY_RATIO", ["MEM_LOAD_RETIRED.L3_MISS * N3 / CM_LATENCY_BUBBLES"]),
    ("TLB_DELAY_RATIO", ["DTLB_LOAD_MISSES.WALK_COMPLETED * N4 / CM_LATENCY_BUBBLES"]),
    ("FP_SPEED", ["FLOP / (RDTSC / tsc_hz)"], NO_FLOP),
    ("SYS_UTILIZE", ["FLOP / CPU_CLK_UNHALTED.THREAD / peak_flop_per_cycle"], NO_FLOP),
]
CODEMON_P_COMMENT = [
    "# codemon (section 3b, Codemon's indicators on x86; symbols of 3a): C cycles,",
    "# I instructions, N NOPs, B stall cycles (no uop retired), then its overlapping",
    "# parts (not a partition, unlike top-down). The latency model (3c) uses the",
    "# -calibrate penalties N1..N4: bubbles = H2*N1 + H3*N2 + M*N3 + W*N4."]

# Sandy Bridge to Broadwell: section 3a maps Codemon for Skylake and later. Where these
# cores' event lists have an event that Intel's perfmon describes as the one 3a names for
# Skylake (Ivy Bridge and Broadwell list the Skylake names as aliases of theirs), the
# Skylake alternatives above are used with it; each such stand-in is our mapping, not in
# METRICS-FACTS, and says so in the file. A metric with no such event is `na`.
CODEMON_PRE_SKL_PREFIXES = {"SandyBridge", "SandyBridgeEP", "IvyBridge", "IvyBridgeEP", "Haswell", "HaswellX",
                            "Broadwell", "BroadwellDE", "BroadwellX"}
OURS = "# our mapping, not in METRICS-FACTS: "
STAND_IN_NOTES = {
    "ldm": OURS + "CYCLE_ACTIVITY.STALLS_LDM_PENDING (A3/06 c6, \"execution stalls due to memory\n"
           "#   subsystem\") for Skylake's STALLS_MEM_ANY (perfmon lists STALLS_MEM_ANY as its alias on IVB/BDW)",
    "l1d": OURS + "CYCLE_ACTIVITY.STALLS_L1D_PENDING (\"execution stalls due to L1 data cache\n"
           "#   misses\") for Skylake's STALLS_L1D_MISS (its alias on IVB/BDW)",
    "noexec": OURS + "CYCLE_ACTIVITY.CYCLES_NO_EXECUTE (A3/04 c4, cycles with no execute for this\n"
              "#   thread) for Skylake's STALLS_TOTAL (its alias on IVB/BDW)",
    "d1": OURS + "MEM_LOAD_UOPS_RETIRED.* (D1H, retired load uops by data source) for Skylake's\n"
          "#   MEM_LOAD_RETIRED.* of the same umask (L1_MISS, L2_HIT, L2_MISS, L3_HIT, L3_MISS)",
    "llc": OURS + "MEM_LOAD_UOPS_RETIRED.LLC_HIT/LLC_MISS, where the list names the L3 \"LLC\"\n"
           "#   (Sandy/Ivy Bridge), for L3_HIT/L3_MISS: H3 and M of section 3c",
}
# Skylake name -> [(stand-in, notes)]
STAND_INS = {
    "CYCLE_ACTIVITY.STALLS_MEM_ANY": [("CYCLE_ACTIVITY.STALLS_LDM_PENDING", ["ldm"])],
    "CYCLE_ACTIVITY.STALLS_L1D_MISS": [("CYCLE_ACTIVITY.STALLS_L1D_PENDING", ["l1d"])],
    "CYCLE_ACTIVITY.STALLS_TOTAL": [("CYCLE_ACTIVITY.CYCLES_NO_EXECUTE", ["noexec"])],
    "MEM_LOAD_RETIRED.L1_MISS": [("MEM_LOAD_UOPS_RETIRED.L1_MISS", ["d1"])],
    "MEM_LOAD_RETIRED.L2_MISS": [("MEM_LOAD_UOPS_RETIRED.L2_MISS", ["d1"])],
    "MEM_LOAD_RETIRED.L2_HIT": [("MEM_LOAD_UOPS_RETIRED.L2_HIT", ["d1"])],
    "MEM_LOAD_RETIRED.L3_HIT": [("MEM_LOAD_UOPS_RETIRED.L3_HIT", ["d1"]), ("MEM_LOAD_UOPS_RETIRED.LLC_HIT", ["d1", "llc"])],
    "MEM_LOAD_RETIRED.L3_MISS": [("MEM_LOAD_UOPS_RETIRED.L3_MISS", ["d1"]), ("MEM_LOAD_UOPS_RETIRED.LLC_MISS", ["d1", "llc"])],
}
CODEMON_PRE_SKL_COMMENT = CODEMON_P_COMMENT + [
    "# Section 3a maps Codemon for Skylake and later P-cores; on this core the same names mean the",
    "# same (" + OURS[2:-2] + "): UOPS_RETIRED.STALL_CYCLES (C2/01 c1 inv here,",
    "# C2/02 on Skylake; both \"cycles without actually retired uops\"), INT_MISC.RECOVERY_CYCLES (0D/03",
    "# c1 here, 0D/01 on Skylake; both \"core cycles the allocator was stalled due to recovery from",
    "# earlier clear event\"), IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE (9C/01 c4 as on Skylake)."]


def stand_in_variants(expr):
    """expr with every Skylake name of STAND_INS replaced by each of its stand-ins, each with the
    notes of the stand-ins it uses; [] when expr names none of them."""
    names = [m.group(0) for m in IDENT.finditer(expr) if m.group(0) in STAND_INS]
    names = list(dict.fromkeys(names))
    if not names:
        return []
    out = []
    for choice in itertools.product(*[STAND_INS[n] for n in names]):
        e = IDENT.sub(lambda m: dict(zip(names, (c[0] for c in choice))).get(m.group(0), m.group(0)), expr)
        keys = dict.fromkeys(k for c in choice for k in c[1])
        out.append((e, "\n".join(STAND_IN_NOTES[k] for k in keys)))
    return out


def pre_skylake(metrics):
    """The Codemon list for Sandy Bridge to Broadwell: each metric's alternatives followed by
    their stand-in variants, without the Skylake-era reasons (a metric with no alternative gets
    the events it lacks)."""
    out = []
    for m in metrics:
        alts = list(m[1])
        for a in m[1]:
            alts += stand_in_variants(a[0] if isinstance(a, tuple) else a)
        out.append((m[0], alts))
    return out


# Cores section 3a does not map at all (Silvermont, Goldmont, Nehalem and older, Knights
# Landing, Zen 1): the group with Codemon's names, all `na` but the plain CPI (section 4).
CODEMON_NA = "section 3a maps no Codemon counters for this core (only Skylake and later P-cores, Gracemont, Zen 2-4)"
CODEMON_NA_REAL = [("PROG_CPI", ["CPU_CLK_UNHALTED.THREAD / INST_RETIRED.ANY"] + amd("{CYC} / {INS}"))]
CODEMON_NA_COMMENT = [
    "# codemon (section 3b): section 3a maps Codemon's counters for Skylake and later P-cores, Gracemont",
    "# and Zen 2 to Zen 4, not for this core, so its metrics are n/a with that reason; PROG_CPI is the",
    "# non-halted CPI of section 4."]

# Intel E-cores (section 3a Gracemont column, 1b, 3c): B = C2/00 c1 inv from the
# hand-written codemon_ecore.txt; the TOPDOWN_* slot counts / issue_width give cycles.
CODEMON_E_PREFIXES = {"AlderLakeE", "Tremont", "SnowRidgeX", "MeteorLakeE_Crestmont", "SierraForest",
                      "ArrowLakeE_Skymont", "LunarLakeE_Skymont"}
CODEMON_E_CONFIG = "codemon_ecore.txt"
NO_DRAM_HIT = "no MEM_LOAD_UOPS_RETIRED.DRAM_HIT (D1/80, the M of section 3c) in this core's event configs"
CODEMON_E = [
    ("CM_B", ["UOPS_RETIRED.STALL_CYCLES"]),
    ("PROG_CPUI", [("CPU_CLK_UNHALTED.THREAD / INST_RETIRED.ANY",
                    "# No NOP event on the E-cores (sections 1b, 3a): N = 0, so PROG_CPUI = PROG_CPI.")]),
    ("PROG_CPI", ["CPU_CLK_UNHALTED.THREAD / INST_RETIRED.ANY"]),
    ("PROG_UCPUI", ["(CPU_CLK_UNHALTED.THREAD - CM_B) / INST_RETIRED.ANY"]),
    ("PROG_UCPI", ["(CPU_CLK_UNHALTED.THREAD - CM_B) / INST_RETIRED.ANY"]),
    ("PROG_DELAY_RATIO", ["CM_B / CPU_CLK_UNHALTED.THREAD"]),
    ("FLUSH_RATIO", ["TOPDOWN_BAD_SPECULATION.ALL / issue_width / CM_B",
                     "TOPDOWN_BAD_SPECULATION.ALL_P / issue_width / CM_B"],
     "no TOPDOWN_BAD_SPECULATION.ALL in this core's event configs (section 3a)"),
    ("L1D_FPU_RATIO", ["LD_HEAD.L1_BOUND_AT_RET / CM_B"],
     "no LD_HEAD.L1_BOUND_AT_RET in this core's event configs (section 3a)"),
    ("EXE_RATIO", ["(MEM_BOUND_STALLS.LOAD + TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS / issue_width) / CM_B",
                   "(MEM_BOUND_STALLS_LOAD.ALL + TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS / issue_width) / CM_B"],
     "no MEM_BOUND_STALLS.LOAD or TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS in this core's event configs (section 3a)"),
    ("OTHER_BE_RATIO", ["MEM_SCHEDULER_BLOCK.ST_BUF / CM_B"],
     "no MEM_SCHEDULER_BLOCK.ST_BUF in this core's event configs (section 3a)"),
    ("FE_RATIO", ["TOPDOWN_FE_BOUND.ALL / issue_width / CM_B", "TOPDOWN_FE_BOUND.ALL_P / issue_width / CM_B"],
     "no TOPDOWN_FE_BOUND.ALL in this core's event configs (section 3a)"),
    ("PROG_ACCESS_DELAY_RATIO", [("(LD_HEAD.ANY_AT_RET + MEM_SCHEDULER_BLOCK.ST_BUF) / CM_B",
                                  "# PROG_ACCESS_DELAY_RATIO: loads blocking retirement (LD_HEAD.ANY_AT_RET, section 1b) plus\n"
                                  "# store-buffer blocks, as STALLS_MEM_ANY + BOUND_ON_STORES on the P-cores (3b row 11)")],
     "no LD_HEAD.ANY_AT_RET or MEM_SCHEDULER_BLOCK.ST_BUF in this core's event configs (section 1b)"),
    ("CM_L2_MISS_RATIO", ["MEM_LOAD_UOPS_RETIRED.L2_MISS / MEM_LOAD_UOPS_RETIRED.L1_MISS"]),
    ("CM_L3_MISS_RATIO", ["LONGEST_LAT_CACHE.MISS / LONGEST_LAT_CACHE.REFERENCE"]),
    ("CM_LATENCY_BUBBLES", ["MEM_LOAD_UOPS_RETIRED.L2_HIT * N1 + MEM_LOAD_UOPS_RETIRED.L3_HIT * N2 + MEM_LOAD_UOPS_RETIRED.DRAM_HIT * N3"
                            " + DTLB_LOAD_MISSES.WALK_COMPLETED * N4"],
     NO_DRAM_HIT),
    ("CACHE_DELAY_RATIO", ["(MEM_LOAD_UOPS_RETIRED.L2_HIT * N1 + MEM_LOAD_UOPS_RETIRED.L3_HIT * N2) / CM_LATENCY_BUBBLES"],
     NO_DRAM_HIT),
    ("MEM_DELAY_RATIO", ["MEM_LOAD_UOPS_RETIRED.DRAM_HIT * N3 / CM_LATENCY_BUBBLES"], NO_DRAM_HIT),
    ("TLB_DELAY_RATIO", ["DTLB_LOAD_MISSES.WALK_COMPLETED * N4 / CM_LATENCY_BUBBLES"],
     NO_DRAM_HIT),
    ("FP_SPEED", [], "no FLOP-count event on the E-cores (section 1b)"),
    ("SYS_UTILIZE", [], "no FLOP-count event on the E-cores (section 1b)"),
]
CODEMON_E_COMMENT = [
    "# codemon (section 3b; the Gracemont column of 3a, 1b; latency model 3c): C cycles,",
    "# I instructions, B = cycles with no uop retired (UOPS_RETIRED.ALL c1 inv, codemon_ecore.txt),",
    "# its overlapping parts from the E-core TOPDOWN_* slot counts / issue_width, MEM_BOUND_STALLS,",
    "# LD_HEAD and MEM_SCHEDULER_BLOCK; H2/H3/M/W = D1/02, D1/04, D1/80, 08/0E;",
    "# bubbles = H2*N1 + H3*N2 + M*N3 + W*N4 with -calibrate's penalties."]

# AMD (section 3a Zen 4 column with the Zen 2/3 fallbacks, 1c, latency model 3c).
CODEMON_AMD_CONFIG = {"Zen2": "codemon_zen2.txt", "Zen3": "codemon_zen2.txt", "Zen4": "codemon_zen4.txt"}
CODEMON_AMD_PREFIXES = {"Zen2", "Zen3", "Zen4", "Zen5"}
NO_D6 = "no ex_no_retire (0D6) event on Zen 2/3 (sections 1c, 3a)"
# H3: same-CCX cache (043/02) plus other CCX (043/14) where the umasks exist (section 3c);
# M: DRAM near and far (043/48).
CM_H3 = [ZEN2_FILLS[1]] + [f[1] + " + " + f[2] + " + " + f[4] for f in (ZEN3_FILLS, ZEN4_FILLS, ZEN5_FILLS)]
CM_M = [ZEN2_FILLS[2] + " + " + ZEN2_FILLS[4]] + [f[3] + " + " + f[5] for f in (ZEN3_FILLS, ZEN4_FILLS, ZEN5_FILLS)]
CODEMON_AMD = [
    ("CM_B", ["CYCLES_NO_RETIRE.ALL", "EX_NO_RETIRE.ALL", "RETIRED_OPS.NO_RETIRE_CYCLES"]),
    ("PROG_CPUI", [(e, "# No NOP event on AMD (section 3a): N = 0, so PROG_CPUI = PROG_CPI.") for e in amd("{CYC} / {INS}")]),
    ("PROG_CPI", amd("{CYC} / {INS}")),
    ("PROG_UCPUI", amd("({CYC} - CM_B) / {INS}")),
    ("PROG_UCPI", amd("({CYC} - CM_B) / {INS}")),
    ("PROG_DELAY_RATIO", amd("CM_B / {CYC}")),
    ("FLUSH_RATIO", [(e, "# FLUSH_RATIO: bad speculation x slots / width = TD_BAD_SPECULATION x cycles (section 3a)")
                     for e in amd("TD_BAD_SPECULATION * {CYC} / CM_B")],
     "no top-down bad speculation for this core (section 2c)"),
    ("L1D_FPU_RATIO", [], "no AMD event counts L1D-bound stall cycles (section 3a)"),
    ("EXE_RATIO", ["CYCLES_NO_RETIRE.NOT_COMPLETE_LOAD_AND_ALU / CM_B", "EX_NO_RETIRE.NOT_COMPLETE / CM_B"], NO_D6),
    ("OTHER_BE_RATIO", ["CYCLES_NO_RETIRE.OTHER / CM_B", "EX_NO_RETIRE.OTHER / CM_B"], NO_D6),
    ("FE_RATIO", ["DISPATCH_STALLS_1.FE_NO_OPS_CYCLES / CM_B",
                  ("DE_OP_QUEUE_EMPTY / CM_B", "# FE_RATIO: op queue empty (0A9), the Zen 2/3 choice of section 3a: 1A0/01 c6 assumes 6 slots"),
                  "UOPS_QUEUE_EMPTY / CM_B"]),
    ("PROG_ACCESS_DELAY_RATIO", ["CYCLES_NO_RETIRE.NOT_COMPLETE_MISSING_LOAD / CM_B", "EX_NO_RETIRE.LOAD_NOT_COMPLETE / CM_B"], NO_D6),
    ("CM_L2_MISS_RATIO", ["L2_MISS_RATIO"]),
    ("CM_L3_MISS_RATIO", ["L3_MISS_RATIO"]),
    ("CM_H3", CM_H3),
    ("CM_M", CM_M),
    ("CM_LATENCY_BUBBLES", [f[0] + " * N1 + CM_H3 * N2 + CM_M * N3 + DTLB_WALKS * N4" for f in FILLS]),
    ("CACHE_DELAY_RATIO", ["(%s * N1 + CM_H3 * N2) / CM_LATENCY_BUBBLES" % f[0] for f in FILLS]),
    ("MEM_DELAY_RATIO", ["CM_M * N3 / CM_LATENCY_BUBBLES"]),
    ("TLB_DELAY_RATIO", ["DTLB_WALKS * N4 / CM_LATENCY_BUBBLES"]),
    ("FP_SPEED", ["FLOP / (RDTSC / tsc_hz)"], NO_FLOP),
    ("SYS_UTILIZE", amd("FLOP / {CYC} / peak_flop_per_cycle"), NO_FLOP),
]
CODEMON_AMD_COMMENT = [
    "# codemon (section 3b; the Zen 4 column of 3a with its Zen 2/3 fallbacks, 1c): C cycles (076),",
    "# I instructions (0C0), B = cycles with nothing retired (Zen 4/5 ex_no_retire.all 0D6/1B, Zen 2/3",
    "# retired ops 0C1 c1 inv), its overlapping parts from 0D6 (not complete, other, load not complete);",
    "# latency model (3c) from demand L1D fills: H2 = 043/01, H3 = 043/02 (+ other CCX 043/14, weighted",
    "# N2 like the local L3), M = 043/48, W = 045/F0; bubbles = H2*N1 + H3*N2 + M*N3 + W*N4."]
HELPERS = {"SLOTS", "L1D_FILLS", "L2_ACCESSES", "DTLB_WALKS", "FLOP", "CM_B", "CM_USEFUL_I", "CM_LATENCY_BUBBLES",
           "CM_H3", "CM_M"}
# Helpers that are also printed (part of the group list).
PRINTED_HELPERS = {"FLOP"}

IDENT = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_][A-Za-z0-9_.]*")


# The Zen families' _all files write AMD's PPR names and note the source's (libpfm4's, or
# for Zen 5 our table's Linux names): the metric formulas, written with the source's names,
# use the PPR name of the same event (docs/configs.md, "AMD's PPR names").
PPR_ALIAS = re.compile(r"^# (\S+): AMD's PPR name \([^)]*\); (?:libpfm4|Linux) calls it (\S+)$")


def read_ppr_aliases(path):
    """The source's (libpfm4's or Linux's) name -> the PPR name the config writes for it."""
    out = {}
    with open(path) as f:
        for line in f:
            m = PPR_ALIAS.match(line.rstrip("\n"))
            if m:
                out[m.group(2)] = m.group(1)
    return out


def read_events(path):
    names = set()
    vendor = None
    with open(path) as f:
        for line in f:
            if line.startswith("# vendor:"):
                vendor = line.split(":", 1)[1].strip()
            line = line.split("#", 1)[0].split()
            if len(line) >= 2:
                names.add(line[1])
    return vendor, names


def prefixes():
    out = []
    with open(os.path.join(CONFIGS, "cpu_map.txt")) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            for p in w[3:5]:
                if p not in out and os.path.exists(os.path.join(CONFIGS, "cfg_%s_common.txt" % p)):
                    out.append(p)
    return out


class File:
    def __init__(self, prefix):
        self.prefix = prefix
        self.configs = ["cfg_%s_common.txt" % prefix]
        for suffix in ("_all.txt", "_all_core.txt"):  # the combined file when there is one
            if os.path.exists(os.path.join(CONFIGS, "cfg_" + prefix + suffix)):
                self.configs.append("cfg_" + prefix + suffix)
                break
        self.vendor, self.events = None, set()
        for c in self.configs:
            v, ev = read_events(os.path.join(CONFIGS, c))
            self.vendor = self.vendor or v
            self.events |= ev
        if self.vendor == "amd":  # as the Zen 2-4 files: the full list has every event
            self.configs = self.configs[1:]
        self.ppr = {}
        for c in self.configs:
            self.ppr.update(read_ppr_aliases(os.path.join(CONFIGS, c)))
        extra = []
        if prefix in PERF_METRICS_PREFIXES:
            extra.append(TOPDOWN_CONFIG)
        if prefix in PERF_METRICS_L2_PREFIXES:
            extra.append(TOPDOWN_CONFIG_L2)
        if prefix in AMD_L2_PREFIXES:
            extra.append(AMD_TOPDOWN_CONFIG_L2)
        for c in extra:
            self.configs.append(c)
            self.events |= read_events(os.path.join(CONFIGS, c))[1]
        self.fixed = INTEL_FIXED if self.vendor == "intel" else AMD_FIXED
        self.defined = {}  # metric name -> expression
        self.lines = []
        self.groups = {}

    def usable(self, expr):
        for m in IDENT.finditer(expr):
            name = m.group(0)
            tail = expr[m.end():].lstrip()
            if name in ("min", "max") and tail.startswith("("):
                continue
            if name in CONSTS or name in self.fixed or name in self.defined or name in self.events:
                continue
            if re.fullmatch(r"\d.*", name):
                continue
            return False
        return True

    def missing(self, expr):
        """The names of expr that are none of the known kinds (events this core's configs lack)."""
        out = []
        for m in IDENT.finditer(expr):
            name = m.group(0)
            if name in ("min", "max") and expr[m.end():].lstrip().startswith("("):
                continue
            if not self.usable(name) and name not in out:
                out.append(name)
        return out

    def renamed(self, expr):
        """expr with libpfm4's event names replaced by the PPR names the configs write."""
        if not self.ppr:
            return expr
        return IDENT.sub(lambda m: self.ppr.get(m.group(0), m.group(0)), expr)

    def missing_reason(self, metric, section):
        """`na` reason of a metric without an alternative: the events of its closest alternative."""
        alts = [self.renamed(a[0] if isinstance(a, tuple) else a) for a in metric[1]]
        lacks = min((self.missing(a) for a in reversed(alts)), key=len)  # a tie: the later (older) naming
        why = "no %s in this core's event configs (%s)" % (" or ".join(lacks), section)
        if len(why) > NA_REASON_MAX:
            why = "no %s (and more) in this core's event configs (%s)" % (lacks[0], section)
        return why

    def pick(self, metrics, notes=None, na=None, section=None, na_helpers=True):
        """[(name, expr)] of the metrics that have an alternative here; the notes of the
        chosen alternatives go to `notes`, (name, reason) of the rest that have a reason to `na`
        (with `section`, every metric without one gets the events it lacks as its reason;
        without `na_helpers`, a helper without an alternative and a reason is left out)."""
        out = []
        saved = dict(self.defined)
        for metric in metrics:
            name, alts = metric[0], metric[1]
            for alt in alts:
                e, note = alt if isinstance(alt, tuple) else (alt, None)
                e = self.renamed(e)
                if self.usable(e):
                    out.append((name, e))
                    self.defined[name] = e
                    if note and notes is not None:
                        notes.append(note)
                    break
            else:
                why = (metric[2] if len(metric) > 2 else self.missing_reason(metric, section)
                       if section and (na_helpers or name not in HELPERS) else None)
                if why and na is not None:
                    assert len(why) <= NA_REASON_MAX, why
                    na.append((name, why))
                    self.defined[name] = None
        self.defined = saved
        return out

    def emit(self, group, comment, metrics, need=None, extra=(), order=None, section=None, na_helpers=True):
        """Adds the group if every metric of `need` (default: all without an n/a reason) has
        an alternative; a metric with a reason and no alternative is written as `na`. With
        `section` (the METRICS-FACTS section of the events), the group is always written:
        a metric without an alternative is `na` with the events it lacks."""
        notes, na = [], []
        picked = self.pick(metrics, notes, na, section, na_helpers)
        have = {n for n, _ in picked}
        need = [] if section else [m[0] for m in metrics if len(m) < 3] if need is None else need
        if not all(n in have for n in need) or not (section or have - HELPERS):
            return False
        for name, e in picked:
            self.defined[name] = e
        for name, _ in na:
            self.defined[name] = None
        picked += self.pick(extra)
        for name, e in picked:
            self.defined[name] = e
        lines = {n: "%s = %s" % (n, e) for n, e in picked}
        lines.update({n: "na %s: %s" % (n, r) for n, r in na})
        names = [m[0] for m in list(metrics) + list(extra) if m[0] in lines]
        self.lines.append("")
        self.lines.extend(comment)
        for note in dict.fromkeys(line for note in notes for line in note.split("\n")):
            self.lines.append(note)
        self.lines.extend(lines[n] for n in names)
        members = [n for n in names if n not in HELPERS or n in PRINTED_HELPERS]
        if order:
            members = [n for n in order if n in members]
        self.lines.append("group %s: %s" % (group, " ".join(members)))
        self.groups[group] = members
        lacking = [n for n, _ in extra if n not in have and n not in self.defined]
        if lacking:
            self.lines.append("# level 2 without %s: their events are not in this core's configs" % " ".join(lacking))
        return True

    def emit_na(self, group, comment, names, why, real=()):
        """The group of a core that has no formula for it: every metric `na` with the reason
        (configs/README.md "Metric files"), but for the (name, [alternatives]) of `real`."""
        assert len(why) <= NA_REASON_MAX, why
        picked = dict(self.pick(real))
        self.lines.append("")
        self.lines.extend(comment)
        for n in names:
            self.lines.append("%s = %s" % (n, picked[n]) if n in picked else "na %s: %s" % (n, why))
            self.defined[n] = picked.get(n)
        self.lines.append("group %s: %s" % (group, " ".join(names)))
        self.groups[group] = list(names)
        return True

    def tma(self):
        """The translator of this prefix's TMA file, or None."""
        path = os.path.join(TMA_DIR, self.prefix + ".json")
        if self.vendor != "intel" or not os.path.exists(path):
            return None
        codes = tma_translate.read_codes(os.path.join(CONFIGS, c) for c in self.configs)
        return tma_translate.Translator(tma_translate.load(path), codes,
                                        self.prefix in PERF_METRICS_PREFIXES,
                                        self.prefix in PERF_METRICS_L2_PREFIXES)

    def emit_tma(self, t):
        """The topdown group from Intel's TMA file: level 1 (all four nodes, else False and
        nothing written), each node's level-2 children that translate, in TMA's order."""
        try:
            for n in tma_translate.LEVEL1:
                t.metric(n)
        except tma_translate.Untranslatable:
            return False
        tree, lacking = [], []
        for n in tma_translate.LEVEL1:
            tree.append(n)
            for m in t.tma["metrics"]:
                if m.get("ParentCategory") == n and m.get("Level") == 2:
                    try:
                        t.metric(m["MetricName"])
                        tree.append(m["MetricName"])
                    except tma_translate.Untranslatable as e:
                        lacking.append("%s (%s)" % (tma_translate.our_name(m["MetricName"]), e))
        tma = t.tma
        self.lines.append("")
        self.lines.append("# topdown levels 1 and 2 as Intel's TMA %s defines them: %s%s"
                          % (tma["tma_version"] or "(no version given)", tma["source"],
                             " version %s" % tma["version"] if tma["version"] else ""))
        self.lines.append("# (configs/tables/tma/%s.json), translated by tools/configgen/tma_translate.py:"
                          % self.prefix)
        self.lines.append("# SMT off (one thread per core)%s." % (
            "; PM_* = an IA32_PERF_METRICS field as a fraction of TOPDOWN.SLOTS"
            if any(n.startswith("PM_") for n in t.defs) else ""))
        for why in lacking:
            self.lines.append("# level 2 without %s" % why)
        for tma_ev, ours in sorted(t.substituted.items()):
            self.lines.append("# our mapping: %s (fixed counter only) read as %s, the same count on a"
                              " general-purpose counter" % (tma_ev, ours))
        members = [tma_translate.our_name(n) for n in tree]
        for name, e in t.defs.items():
            self.lines.append("%s = %s" % (name, e))
            self.defined[name] = e
        self.lines.append("group topdown: %s" % " ".join(members))
        self.groups["topdown"] = members
        return True

    def emit_tma_info(self, t):
        """TMA's Info metrics (DSB coverage, L1/L2/L3 misses per kilo-instruction) as group
        tma_info: each translated one, the others `na` with the reason."""
        lines, members = [], []
        before = set(t.defs)
        for n in tma_translate.INFO:
            ours = tma_translate.our_name(n)
            if not any(m["MetricName"] == n for m in t.tma["metrics"]):
                continue
            members.append(ours)
            try:
                t.metric(n)
            except tma_translate.Untranslatable as e:
                why = "not translatable from Intel's TMA file: %s" % e
                lines.append("na %s: %s" % (ours, why[:NA_REASON_MAX]))
        if not members:
            return
        new = [(name, e) for name, e in t.defs.items() if name not in before]
        for name, e in new:
            self.defined[name] = e
        lines = ["%s = %s" % (name, e) for name, e in new] + lines
        self.lines.append("")
        self.lines.append("# tma_info: Intel's TMA Info metrics (the same TMA file as topdown): DSB_COVERAGE,")
        self.lines.append("# L1MPKI / L2MPKI / L3MPKI (retired loads missing the level, per 1000 instructions)")
        self.lines.extend(lines)
        self.lines.append("group %s: %s" % (TMA_INFO_GROUP, " ".join(members)))
        self.groups[TMA_INFO_GROUP] = members

    def with_config(self, config, emit):
        """Runs emit() with the hand-written config's events too; keeps the config if it was used."""
        if not config:
            return emit()
        saved, added = set(self.events), read_events(os.path.join(CONFIGS, config))[1]
        self.events |= added
        self.configs.append(config)
        n = len(self.lines)
        if not emit() or not any(ev in line for line in self.lines[n:] for ev in added):
            self.configs.pop()
            self.events = saved
            return False
        return True

    def build(self):
        p, intel = self.prefix, self.vendor == "intel"
        if intel:
            self.emit("cpi", ["# cpi (section 4)"], CPI_INTEL)
            # Every metric of MEM_INTEL on every core, a formula or `na` with the events it lacks, so that
            # `-metrics memory` prints the same names everywhere (test_metric_configs.c checks it).
            self.pick(MEM_INTEL) and self.emit(
                "memory", ["# memory (sections 1a/1b, 3b rows 12-13, 3c): retired loads by where they hit"],
                MEM_INTEL, section="section 1a") or self.emit(
                "memory", ["# memory (sections 1a/1b, 3b rows 12-13, 3c): none of the retired-load events of section 1a",
                           "# is in this core's configs, so each metric is n/a with the events it lacks"],
                MEM_INTEL, section="section 1a")
            tma = self.tma()
            if tma is not None and self.emit_tma(tma):
                pass
            elif p in PERF_METRICS_L2_PREFIXES:
                self.emit("topdown", ["# topdown levels 1 and 2 from IA32_PERF_METRICS (sections 2a, 2b; configs/README.md",
                                      "# \"Top-down pseudo events\"): each field in slots, over TOPDOWN.SLOTS; a level-2",
                                      "# node without a byte of its own is the rest of its parent. Printed as TMA's tree."],
                          TD_PERF_METRICS + TD_PERF_METRICS_L2, order=TD_TREE_INTEL)
            elif p in PERF_METRICS_PREFIXES:
                why = ("section 2b lists the level-2 bytes for Golden Cove (ADL-P, SPR) only, not for Lion Cove"
                       if "LionCove" in p else "this core's IA32_PERF_METRICS has only the four level-1 bytes (section 2b)")
                self.emit("topdown", ["# topdown level 1 from IA32_PERF_METRICS (sections 2a, 2b; configs/README.md",
                                      "# \"Top-down pseudo events\"): each field in slots, over TOPDOWN.SLOTS",
                                      "# no level 2: " + why],
                          TD_PERF_METRICS)
            elif self.emit("topdown", ["# topdown level 1 without PERF_METRICS (section 2a; assumes SMT off: THREAD, not THREAD_ANY/2)",
                                       TD_SKL_NO_L2], TD_SKL):
                pass
            elif p == "AlderLakeE":
                self.emit("topdown", ["# topdown levels 1 and 2 of Gracemont (section 2a Gracemont, E-core TMA; section 1b):",
                                      "# level 2 as far as section 2a gives it (mispredicts, machine clears, core bound)"],
                          TD_ATOM, extra=TD_GRT_L2, order=TD_TREE_GRT)
            elif not self.emit("topdown", ["# topdown level 1 of the E-cores (section 2a Gracemont, E-core TMA; section 1b)"],
                               TD_ATOM):
                self.emit_na("topdown", ["# topdown: " + TD_NA_INTEL], TD_ORDER, TD_NA_INTEL)
            self.flops(["# flops (section 1a FP notes: one count per instruction, weighted by lanes; FMA counts twice)"],
                       FLOPS_INTEL)
            if p in CODEMON_P_PREFIXES:
                self.emit("codemon", CODEMON_P_COMMENT, CODEMON, need=None)
            elif p in CODEMON_E_PREFIXES:
                self.with_config(CODEMON_E_CONFIG, lambda: self.emit("codemon", CODEMON_E_COMMENT, CODEMON_E))
            elif p in CODEMON_PRE_SKL_PREFIXES:
                self.emit("codemon", CODEMON_PRE_SKL_COMMENT, pre_skylake(CODEMON), section="sections 3a, 3b")
        else:
            self.emit("cpi", ["# cpi (section 4)"], CPI_AMD)
            self.emit("memory", ["# memory (sections 1c, 3a, 3c): demand L1D fills by source, L2 status of data-cache reads"],
                      MEM_AMD, section="section 1c", na_helpers=False)
            if p in AMD_L2_PREFIXES and self.emit("topdown", [
                    "# topdown levels 1 and 2: pipeline utilization (section 2c; level 2 as [LK] amdzen4/pipeline.json:",
                    "# fetch latency from 1A0/01 with cmask 6, mispredicts vs pipeline restarts by 0C3 : 096, backend",
                    "# memory vs core by ex_no_retire D6/A2 : D6/02, retiring microcode by 1C2 : 0C1). Printed as a tree."]
                    + ([] if p == "Zen4" else ["# Zen 4's level-2 formulas, where this core's configs have the same events."]),
                    TD_ZEN4, extra=TD_ZEN4_L2, order=TD_TREE_AMD):
                pass
            elif not self.emit("topdown", ["# topdown level 1: pipeline utilization (section 2c)"], TD_ZEN4) and not self.emit(
                    "topdown", ["# topdown level 1: the approximation of section 2c (no per-slot dispatch events; indicative only)"],
                    TD_ZEN2, order=TD_ORDER):
                self.emit_na("topdown", ["# topdown: " + TD_NA_AMD], TD_ORDER, TD_NA_AMD)
            self.flops(["# flops (section 1c: event 003H counts FLOPs, no lane weighting, no SP/DP split;",
                        "# the image pairs it with the MergeEvent, docs/counters.md \"AMD merged counter pairs\")"], FLOPS_AMD)
            if p in CODEMON_AMD_PREFIXES:
                self.with_config(CODEMON_AMD_CONFIG.get(p), lambda: self.emit("codemon", CODEMON_AMD_COMMENT, CODEMON_AMD))
        if "codemon" not in self.groups:
            self.emit_na("codemon", CODEMON_NA_COMMENT, [m[0] for m in CODEMON if m[0] not in HELPERS], CODEMON_NA,
                         real=CODEMON_NA_REAL)
        if intel and tma is not None:
            self.emit_tma_info(tma)

    def flops(self, comment, metrics):
        """The flops group, or, where no FLOP count fits, the group with every metric `na` and why.
        The FP16 terms only where Intel's TMA file counts them (Info_Core_FLOPc: Sapphire and
        Emerald Rapids; not Granite Rapids, TMA 5.2), or where there is no TMA file."""
        path = os.path.join(TMA_DIR, self.prefix + ".json")
        if os.path.exists(path) and metrics is FLOPS_INTEL:
            flopc = [m for m in tma_translate.load(path)["metrics"] if m["MetricName"] == "Info_Core_FLOPc"]
            if flopc and "fp_arith_inst_retired2" not in flopc[0]["BaseFormula"]:
                metrics = [(FLOPS_INTEL[0][0], FLOPS_INTEL[0][1][1:])] + FLOPS_INTEL[1:]
        if self.pick(metrics[:1]):
            self.emit("flops", comment, metrics)
        else:
            why = flop_na(self)
            self.emit_na("flops", ["# flops: " + why], [m[0] for m in metrics], why)

    def text(self):
        self.build()
        uses = lambda s: any(s in l for l in self.lines)  # noqa: E731
        head = ["# Derived metrics: %s (format: configs/README.md \"Metric files\")." % FAMILY.get(self.prefix, self.prefix),
                "# Generated by tools/configgen/gen_metrics.py from the events of its configs; do not edit.",
                "# Regenerate: make metric-files. Groups: %s." % ", ".join(self.groups),
                "# Formulas and event codes: METRICS-FACTS.md sections %s" % (
                    "1a/1b (events), 2a/2b (top-down),\n# 3b/3c (Codemon, load latency), 4 (TSC and CPI), 5 (peak FLOP)."
                    if self.vendor == "intel" else
                    "1c (events), 2c (top-down),\n# 3a/3c (Codemon mapping), 4 (TSC and CPI), 5 (peak FLOP)."),
                "config " + " ".join(self.configs)]
        if uses("issue_width"):
            w = WIDTH.get(self.prefix)
            if w:
                head.append("const issue_width = %d" % w[0] + ("   " + w[1] if w[1] else ""))
            else:
                head.append(WIDTH_UNKNOWN)
        if uses("peak_flop_per_cycle"):
            v, why = PEAK.get(self.prefix, (None, PEAK_UNKNOWN))
            head.append(("const peak_flop_per_cycle = %d   %s" % (v, why)) if v is not None else why)
        assert list(self.groups)[:len(GROUPS)] == list(GROUPS), (self.prefix, list(self.groups))
        assert list(self.groups)[len(GROUPS):] in ([], [TMA_INFO_GROUP]), (self.prefix, list(self.groups))
        return "\n".join(head + self.lines) + "\n"


def generate():
    return {p + ".txt": File(p).text() for p in prefixes()}


def main(argv):
    if len(argv) > 1 and argv[1] == "--check":
        status = 0
        files = generate()
        mdir = os.path.join(CONFIGS, "metrics")
        for name, text in sorted(files.items()):
            path = os.path.join(mdir, name)
            old = open(path).read() if os.path.exists(path) else ""
            if old != text:
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), path, name + " (generated)"))
                status = 1
        for name in sorted(os.listdir(mdir)):
            if name.endswith(".txt") and not name.startswith("arch_") and name not in files:
                print("gen_metrics: configs/metrics/%s is no longer generated" % name)
                status = 1
        if status:
            print("gen_metrics: configs/metrics/ differs from the generator output; run 'make metric-files'")
        return status
    out = argv[1] if len(argv) > 1 else os.path.join(CONFIGS, "metrics")
    os.makedirs(out, exist_ok=True)
    for name, text in sorted(generate().items()):
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
