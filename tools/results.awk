# tools/results.awk — prints a run's results the way nanoBench prints them,
# from a run report (run-NNNN.txt) or, line by line as it arrives, from the
# raw serial log of a boot (firmware output, terminal escapes, carriage
# returns and the image's line frames "\t|NNNN XXXX" are taken out; only
# framed lines are the image's own).
#
# Variables (awk -v):
#   mode=single|suite|selftest  single: the lines of the only benchmark,
#                      without its [name] header; suite: every benchmark as
#                      [name] + lines; selftest: only the image's check: and
#                      selftest: lines (tools/nanobench -selftest)
#   serial=1           the input is a raw serial log (keep framed lines only)
#   stream=1           print every line of the image as it arrives, nothing else
#   total=N            benchmarks in the suite, for the progress line
#   progress=1         a self-overwriting progress line on stderr
#   stop_cmd=CMD       run once the image says its results files are closed
#                      (-finish exit: the firmware would otherwise wait)
# A benchmark's lines are printed when it has finished (the next [name] or
# the end banner); a boot banner in the middle of a block means the machine
# reset while it ran: the resumed boot reports that benchmark again.
# Exit status: 0, 1 when a benchmark reported an error (selftest: when a
# check FAILED), 3 when there is no end banner (the run died).

function now(   t) { srand(); t = srand(); return t }
function out(line) { print line; fflush() }
function err(line) { print line > "/dev/stderr"; fflush("/dev/stderr") }
function clear_progress() {
    if (shown) { printf "\r\033[K" > "/dev/stderr"; fflush("/dev/stderr"); shown = 0 }
}
function show_progress(name,   elapsed, left) {
    # The estimate counts from the first benchmark: the boot before it is no guide.
    if (started == 1) first = now()
    elapsed = now() - start
    left = started > 1 ? int((now() - first) / (started - 1) * (total - started + 1) + 0.5) : -1
    printf("\r\033[K[%d/%d] %s, %d s%s", started, total, name, elapsed,
           (left >= 0 ? sprintf(", about %d s left", left) : "")) > "/dev/stderr"
    fflush("/dev/stderr")
    shown = 1
}
# Print the finished block held in blk[1..nblk].
function flush_block(   i, l) {
    if (!nblk || stream) { nblk = 0; return }  # stream: every line was printed as it came
    # A boot that resumed the run runs again what was not saved before the
    # reset: a benchmark already printed is not printed twice.
    if (blk[1] in printed) { nblk = 0; return }
    printed[blk[1]] = 1
    clear_progress()
    for (i = 1; i <= nblk; i++) {
        l = blk[i]
        if (mode == "selftest") {
            if (l ~ /^check: /) out(l)
            if (l ~ /^selftest: /) { out(l); summary = l }
            continue
        }
        if (l ~ /^\[[A-Za-z0-9_.-]+\]$/) { if (mode == "suite") out(l); continue }
        if (l ~ /^lava: /) continue  # -lava_results: for a LAVA job's monitor, not for people
        if (l ~ /^(pmu|processor|power|smi|frequency): /) { err(l); continue }
        # Once: a suite's errors belong under their [name] on stdout; a
        # single benchmark's stdout is its values only.
        if (l ~ /^error: /) { errors++; if (mode == "suite") out(l); else err(l); continue }
        if (l ~ /^warning: /) { err(l); continue }
        out(l)
    }
    nblk = 0
}

BEGIN { start = now() }

{
    line = $0
    if (serial) {
        gsub(/\033\[[0-9;?]*[A-Za-z]/, "", line)
        gsub(/\r/, "", line)
        if (line ~ /^nanoBench-EFI: results closed/) {
            if (stop_cmd != "" && !stopped) { stopped = 1; system(stop_cmd) }
            next
        }
        if (line !~ /\t\|[0-9][0-9][0-9][0-9] [0-9a-f][0-9a-f][0-9a-f][0-9a-f]$/) next
        sub(/\t\|[0-9][0-9][0-9][0-9] [0-9a-f][0-9a-f][0-9a-f][0-9a-f]$/, "", line)
    }
    if (stream) out(line)
}
line ~ /^nanoBench-EFI done:/ { flush_block(); done = 1; inside = 0; next }
line ~ /^nanoBench-EFI [0-9]/ { nblk = 0; inside = 0; next }  # a boot (maybe one that resumed the run)
line ~ /^pmu: none usable:/ {
    if (!stream && !(seen[line]++)) { clear_progress(); err("nanobench: " line) }
    next
}
line ~ /^\[[A-Za-z0-9_.-]+\]$/ {
    flush_block()
    inside = 1
    started++
    if (progress && !stream && total > 1) show_progress(substr(line, 2, length(line) - 2))
}
inside { blk[++nblk] = line }
END {
    if (!stream) flush_block()
    clear_progress()
    if (!done) { err("nanobench: the run ended early (no end banner in the report)"); exit 3 }
    if (mode == "selftest") exit summary ~ /^selftest: PASS [0-9]+\/[0-9]+, 0 failed/ ? 0 : 1
    exit errors ? 1 : 0
}
