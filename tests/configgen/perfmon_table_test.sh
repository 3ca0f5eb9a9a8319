#!/usr/bin/env bash
# tests/configgen/perfmon_table_test.sh — tools/configgen/perfmon_table.py on small
# hand-made event lists in the vendors' JSON layouts (field names as in Intel perfmon
# and Linux tools/perf/pmu-events; values as the SDM / PPR give them), checked line by
# line. Run by make test.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/X/events"
cat > "$tmp/X/events/x_core.json" <<'JSON'
{"Header": {"Version": "7"}, "Events": [
 {"EventCode": "0x00", "UMask": "0x01", "EventName": "INST_RETIRED.ANY", "Counter": "Fixed counter 0",
  "CounterHTOff": "Fixed counter 0", "MSRIndex": "0", "MSRValue": "0", "CounterMask": "0", "Invert": "0",
  "AnyThread": "0", "EdgeDetect": "0", "TakenAlone": "0", "Deprecated": "0"},
 {"EventCode": "0x0E", "UMask": "0x01", "EventName": "UOPS_ISSUED.STALL_CYCLES", "Counter": "0,1,2,3",
  "CounterHTOff": "0,1,2,3,4,5,6,7", "MSRIndex": "0", "MSRValue": "0", "CounterMask": "1", "Invert": "1",
  "AnyThread": "0", "EdgeDetect": "0", "Deprecated": "0"},
 {"EventCode": "0x48", "UMask": "0x01", "EventName": "L1D_PEND_MISS.PENDING", "Counter": "2",
  "CounterHTOff": "2", "MSRIndex": "0", "MSRValue": "0", "CounterMask": "0", "Invert": "0",
  "AnyThread": "0", "EdgeDetect": "0", "Deprecated": "0"},
 {"EventCode": "0xB7, 0xBB", "UMask": "0x01", "EventName": "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE",
  "Counter": "0,1,2,3", "CounterHTOff": "0,1,2,3", "MSRIndex": "0x1a6,0x1a7", "MSRValue": "0x10001",
  "CounterMask": "0", "Invert": "0", "AnyThread": "0", "EdgeDetect": "0", "Offcore": "1", "Deprecated": "0"},
 {"EventCode": "0xC3", "UMask": "0x01", "EventName": "MACHINE_CLEARS.COUNT", "Counter": "0,1,2,3",
  "CounterHTOff": "0,1,2,3,4,5,6,7", "MSRIndex": "0", "MSRValue": "0", "CounterMask": "1", "Invert": "0",
  "AnyThread": "0", "EdgeDetect": "1", "Deprecated": "0"},
 {"EventCode": "0xA2", "UMask": "0x02", "UMaskExt": "0x01", "EventName": "X.EXT", "Counter": "0,1,2,3,4,5,6,7",
  "MSRIndex": "0x00", "MSRValue": "0x00", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0"},
 {"EventCode": "0xC0", "UMask": "0x00", "EventName": "OLD.EVENT", "Counter": "0,1,2,3",
  "MSRIndex": "0", "MSRValue": "0", "CounterMask": "0", "Invert": "0", "EdgeDetect": "0", "Deprecated": "1"}
]}
JSON
want="vendor intel
gp 8
00.01 INST_RETIRED.ANY fixed:0
0E.01.CMSK=1.INV UOPS_ISSUED.STALL_CYCLES 0-7
48.01 L1D_PEND_MISS.PENDING 2
B7.01.MSR_RSP0=0x10001 OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE 0-3 offcore
C3.01.CMSK=1.EDG MACHINE_CLEARS.COUNT 0-7
A2.02 X.EXT 0-7 skip:UMaskExt_(PERFEVTSEL[47:40])"
got=$(PERFMON_COMMIT=test tools/configgen/perfmon_table.py intel "$tmp" X/events/x_core.json | grep -v '^#')
status=0
if [ "$got" != "$want" ]; then
    echo "perfmon_table_test: intel output differs"; diff <(echo "$want") <(echo "$got"); status=1
fi
PERFMON_COMMIT=test tools/configgen/perfmon_table.py intel "$tmp" X/events/x_core.json |
    grep -q '^# 1 deprecated events left out$' || { echo "perfmon_table_test: deprecated count"; status=1; }

# --tma: the cmask/edge/invert variants the kept top-down metrics use, after their event;
# none for an encoding the list names (STALL_CYCLES:c1 is STALL_CYCLES), an event the
# list lacks, a non-encoding modifier, or a metric tma_table.py does not keep (level 3)
mkdir -p "$tmp/X/metrics"
cat > "$tmp/X/metrics/x_metrics.json" <<'JSON'
{"Header": {"Version": "1"}, "Metrics": [
 {"MetricName": "Heavy_Operations", "Category": "TMA", "Level": 2, "BaseFormula": "tma_helper",
  "Events": [{"Name": "L1D_PEND_MISS.PENDING:c1", "Alias": "a"}, {"Name": "TOPDOWN.SLOTS:perf_metrics", "Alias": "b"}]},
 {"MetricName": "Helper", "Category": "TMA", "Level": 3, "BaseFormula": "x",
  "Events": [{"Name": "L1D_PEND_MISS.PENDING:c2:e1", "Alias": "a"}, {"Name": "UOPS_ISSUED.STALL_CYCLES:c1", "Alias": "b"},
             {"Name": "NOT.LISTED:c1", "Alias": "c"}]},
 {"MetricName": "Deep", "Category": "TMA", "Level": 3, "BaseFormula": "y",
  "Events": [{"Name": "L1D_PEND_MISS.PENDING:c3", "Alias": "a"}]}
]}
JSON
want="vendor intel
gp 8
00.01 INST_RETIRED.ANY fixed:0
0E.01.CMSK=1.INV UOPS_ISSUED.STALL_CYCLES 0-7
48.01 L1D_PEND_MISS.PENDING 2
48.01.CMSK=1 L1D_PEND_MISS.PENDING.CMSK1 2 tma:L1D_PEND_MISS.PENDING:c1
48.01.CMSK=2.EDG L1D_PEND_MISS.PENDING.CMSK2.EDG 2 tma:L1D_PEND_MISS.PENDING:c2:e1
B7.01.MSR_RSP0=0x10001 OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE 0-3 offcore
C3.01.CMSK=1.EDG MACHINE_CLEARS.COUNT 0-7
A2.02 X.EXT 0-7 skip:UMaskExt_(PERFEVTSEL[47:40])"
out=$(PERFMON_COMMIT=test tools/configgen/perfmon_table.py intel "$tmp" X/events/x_core.json --tma X/metrics/x_metrics.json)
got=$(echo "$out" | grep -v '^#')
if [ "$got" != "$want" ]; then
    echo "perfmon_table_test: intel --tma output differs"; diff <(echo "$want") <(echo "$got"); status=1
fi
echo "$out" | grep -q '^# 2 variants (flag tma:) of events that the top-down formulas of intel/perfmon X/metrics/x_metrics.json use$' ||
    { echo "perfmon_table_test: --tma variant count"; status=1; }

cat > "$tmp/pipeline.json" <<'JSON'
[
 {"MetricName": "m", "MetricExpr": "a / b"},
 {"EventName": "ex_ret_instr", "EventCode": "0xc0"},
 {"EventName": "fp_ret_sse_avx_ops.all", "EventCode": "0x03", "UMask": "0x0f"},
 {"EventName": "de_no_dispatch_per_slot.backend_stalls", "EventCode": "0x1a0", "UMask": "0x1e"},
 {"EventName": "old_one", "EventCode": "0x0b", "UMask": "0x0c", "Deprecated": "1"}
]
JSON
want="vendor amd
gp 6
0C0.00 EX_RET_INSTR any
003.0F FP_RET_SSE_AVX_OPS.ALL any merge
1A0.1E DE_NO_DISPATCH_PER_SLOT.BACKEND_STALLS any"
got=$(tools/configgen/perfmon_table.py amd test amdzenX "$tmp/pipeline.json" | grep -v '^#')
if [ "$got" != "$want" ]; then
    echo "perfmon_table_test: amd output differs"; diff <(echo "$want") <(echo "$got"); status=1
fi
[ $status -eq 0 ] && echo "perfmon_table_test: intel (with and without --tma) and amd reductions as expected"
exit $status
