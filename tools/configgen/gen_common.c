/*
 * gen_common — name patterns of the curated common event sets (see gen_common.h).
 *
 * Names are libpfm4's, which are mostly Intel's perfmon / AMD's PPR names; where a
 * libpfm4 table uses an older spelling (Skylake's CPU_CLK_THREAD_UNHALTED), both are
 * listed. A leading '!' removes names an earlier pattern admitted.
 */
#include "gen_common.h"

#include <fnmatch.h>
#include <stddef.h>

static const char *const intel_patterns[] = {
    /* core cycles and instructions on a general-purpose counter */
    "CPU_CLK_UNHALTED.THREAD_P",
    "CPU_CLK_THREAD_UNHALTED.THREAD_P",
    "CPU_CLK_UNHALTED.CORE_P",
    "UNHALTED_CORE_CYCLES",
    "INST_RETIRED.ANY_P",
    "INSTRUCTION_RETIRED",
    /* uops through the pipeline */
    "UOPS_ISSUED.ANY",
    "UOPS_ISSUED.STALL_CYCLES",
    "UOPS_EXECUTED.THREAD",
    "UOPS_EXECUTED.CORE",
    "UOPS_RETIRED.RETIRE_SLOTS",
    "UOPS_RETIRED.ALL",
    "UOPS_RETIRED.SLOTS",
    /* per-port dispatch, this thread only (the *_CORE variants set AnyThread) */
    "UOPS_DISPATCHED_PORT.PORT_*",
    "UOPS_DISPATCHED.PORT_*",
    "!*_CORE",
    /* loads and stores, where they hit */
    "MEM_INST_RETIRED.ALL_LOADS",
    "MEM_INST_RETIRED.ALL_STORES",
    "MEM_UOPS_RETIRED.ALL_LOADS",
    "MEM_UOPS_RETIRED.ALL_STORES",
    "MEM_LOAD_RETIRED.L[123]_HIT",
    "MEM_LOAD_RETIRED.L[123]_MISS",
    "MEM_LOAD_RETIRED.FB_HIT",
    "MEM_LOAD_RETIRED.HIT_LFB",
    "MEM_LOAD_UOPS_RETIRED.L[123]_HIT",
    "MEM_LOAD_UOPS_RETIRED.L[123]_MISS",
    "L1D.REPLACEMENT",
    "L2_RQSTS.ALL_DEMAND_REFERENCES",
    "L2_RQSTS.ALL_DEMAND_MISS",
    "LONGEST_LAT_CACHE.REFERENCE",
    "LONGEST_LAT_CACHE.REFERENCES",
    "LONGEST_LAT_CACHE.MISS",
    "ICACHE.ACCESSES",
    "ICACHE.MISSES",
    /* branches */
    "BR_INST_RETIRED.ALL_BRANCHES",
    "BR_INST_RETIRED.COND",
    "BR_INST_RETIRED.CONDITIONAL",
    "BR_MISP_RETIRED.ALL_BRANCHES",
    "BR_MISP_RETIRED.COND",
    "BR_MISP_RETIRED.CONDITIONAL",
    /* long-latency units and pipeline flushes */
    "ARITH.DIVIDER_ACTIVE",
    "ARITH.DIV_ACTIVE",
    "CYCLES_DIV_BUSY.ANY",
    "MACHINE_CLEARS.COUNT",
    "MACHINE_CLEARS.ANY",
    NULL,
};

static const char *const amd_patterns[] = {
    /* core cycles, instructions and ops (PPR "Core Performance Monitor Counters") */
    "CYCLES_NOT_IN_HALT",
    "RETIRED_INSTRUCTIONS",
    "RETIRED_UOPS",
    "RETIRED_OPS",
    /* ops dispatched: by source (decoder / op cache) and by FP vs integer pipes */
    "UOPS_DISPATCHED_FROM_DECODER.*",
    "OPS_SOURCE_DISPATCHED_FROM_DECODER.*",
    "OPS_TYPE_DISPATCHED_FROM_DECODER.*",
    "LS_DISPATCH.*",
    /* data cache fills by source (L2, another cache, DRAM), L2 hits and misses */
    "DATA_CACHE_REFILLS_FROM_SYSTEM.*",
    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.*",
    "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS.LS_RD_BLK_*",
    "INSTRUCTION_CACHE_REFILLS_FROM_L2",
    "INSTRUCTION_CACHE_REFILLS_FROM_SYSTEM",
    /* branches */
    "RETIRED_BRANCH_INSTRUCTIONS",
    "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
    "RETIRED_TAKEN_BRANCH_INSTRUCTIONS",
    "RETIRED_TAKEN_BRANCH_INSTRUCTIONS_MISPREDICTED",
    "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS",
    /* divider */
    "DIV_CYCLES_BUSY_COUNT",
    "DIV_OP_COUNT",
    /* the same under Linux's (PPR) names, for the event tables */
    "DE_SRC_OP_DISP.*",
    "DE_DIS_OPS_FROM_DECODER.*",
    "DE_NO_DISPATCH_PER_SLOT.*",
    "LS_DMND_FILLS_FROM_SYS.LOCAL_L2",
    "LS_DMND_FILLS_FROM_SYS.LOCAL_CCX",
    "LS_DMND_FILLS_FROM_SYS.DRAM_IO_ALL",
    "LS_L1_D_TLB_MISS.ALL",
    "EX_RET_COND",
    "EX_RET_BRN_TKN",
    "EX_RET_BRN_TKN_MISP",
    "EX_RET_UCODE_OPS",
    "EX_DIV_BUSY",
    "EX_DIV_COUNT",
    "IC_TAG_HIT_MISS.*",
    "OP_CACHE_HIT_MISS.*",
    "L2_CACHE_REQ_STAT.IC_DC_MISS_IN_L2",
    "L2_CACHE_REQ_STAT.IC_DC_HIT_IN_L2",
    NULL,
};

bool gen_common_wanted(enum gen_vendor vendor, const char *name)
{
    const char *const *p = vendor == GEN_VENDOR_AMD ? amd_patterns : intel_patterns;
    bool wanted = false;

    for (; *p; p++) {
        if ((*p)[0] == '!') {
            if (wanted && fnmatch(*p + 1, name, 0) == 0)
                wanted = false;
        } else if (!wanted && fnmatch(*p, name, 0) == 0) {
            wanted = true;
        }
    }
    return wanted;
}
