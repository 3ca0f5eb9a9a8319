#!/usr/bin/env python3
"""tools/lava_job.py — writes the LAVA job that tools/nanobench -lava_job asks for.

The job deploys the nanoBench-EFI disk image, boots it on a QEMU/OVMF device
(lava/devices/qemu-ovmf.yaml) and turns the image's serial output into LAVA
results with two "monitors" (LAVA's test action for devices without a shell):

  fingerprint  every numeric platform fact ("platform: cpu.family = 6") as a
               passing test case with that measurement;
  nanobench    every "lava:" line the image prints with -lava_results
               ("lava: add_chain.RDTSC pass 32.00 tsc_ticks/rep"): one test
               case per benchmark and event, "fail" for an error line or a
               failing -expect, "skip" for a value that is n/a here.

Two kinds of device (--device-type): "qemu" (lava/devices/qemu-ovmf.yaml:
the image is a QEMU drive) and a lab machine of any other device type,
which gets the image written to its boot medium by the device's "flasher"
commands (a USB-SD-mux and dd, say) and is powered on by "minimal" boot
(lava/devices/x86-uefi-usb.jinja2).

The patterns stop at the tab of the image's serial frame ("\t|0084 edc8")
and never need the firmware's escape codes, which come before the banner.
Static facts about the run (tool version, suite, benchmark count, the
image's SHA-256) go into the job's metadata.

usage: tools/lava_job.py --job FILE --image IMG [--url URL] [--device-type T]
                         --suite NAME --benchmarks N --version V --idle-seconds S
"""
import argparse
import hashlib
import json
import os
import sys

# The image's serial lines, as kernel/report/nb_report.c and platform_report.c print them.
FINGERPRINT_START = r"nanoBench-EFI [0-9]"
FINGERPRINT_END = r"(?=results: nanobench/results/)"  # a lookahead: the next monitor starts there
FINGERPRINT_PATTERN = r"platform: (?P<test_case_id>[a-z0-9_.]+) = (?P<measurement>-?[0-9]+)(?=[\t\r\n])"
RESULTS_START = r"results: nanobench/results/"
RESULTS_END = r"nanoBench-EFI done: "
RESULTS_PATTERN = (r"lava: (?P<test_case_id>[A-Za-z0-9_.-]+) (?P<result>pass|fail|skip)"
                   r"(?: (?P<measurement>-?[0-9][0-9.]*) (?P<units>[A-Za-z_/]+))?(?=[\t\r\n])")


def q(text):
    """A YAML scalar: JSON strings are valid YAML double-quoted strings."""
    return json.dumps(text)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def qemu_actions(url):
    """The image as QEMU's boot disk (lava/devices/qemu-ovmf.yaml)."""
    return [
        "- deploy:",
        "    to: tmpfs",
        "    timeout: {minutes: 5}",
        "    images:",
        "      nanobench:",
        "        url: " + q(url),
        "        image_arg: " + q("-drive if=none,id=disk0,format=raw,file={nanobench} "
                                 "-device virtio-blk-pci,drive=disk0,bootindex=1"),
        "- boot:",
        "    method: qemu",
        "    media: tmpfs",
        "    timeout: {minutes: 5}",
    ]


def lab_actions(url):
    """A lab machine: the device's flasher commands write the image ({NANOBENCH}) to its boot medium."""
    return [
        "- deploy:",
        "    to: flasher",
        "    timeout: {minutes: 10}",
        "    images:",
        "      nanobench:",
        "        url: " + q(url),
        "- boot:",
        "    method: minimal",
        "    timeout: {minutes: 10}",
    ]


def job_text(a):
    url = a.url or "file://" + os.path.realpath(a.image)
    # LAVA times each expect of a monitor with the connection timeout: the
    # longest a benchmark may stay silent (the host's --idle, docs/qemu.md).
    silent_min = max(2, (a.idle_seconds + 59) // 60)
    test_min = silent_min * max(1, a.benchmarks) + 5
    lines = [
        "# LAVA job written by tools/nanobench -lava_job (docs/lava.md).",
        "# Submit it with: lavacli jobs submit THIS_FILE, or run it with lava-run.",
        "device_type: " + a.device_type,
        "job_name: " + q("nanoBench-EFI " + a.suite),
        "priority: medium",
        "visibility: public",
        "timeouts:",
        "  job: {minutes: %d}" % (test_min + 10),
        "  action: {minutes: %d}" % (test_min + 5),
        "  connection: {minutes: %d}" % silent_min,
        "context:",
        "  arch: amd64",
        "metadata:",
        "  nanobench.version: " + q(a.version),
        "  nanobench.suite: " + q(a.suite),
        "  nanobench.benchmarks: " + q(str(a.benchmarks)),
        "  nanobench.image_sha256: " + q(sha256(a.image)),
        "actions:",
    ] + (qemu_actions(url) if a.device_type == "qemu" else lab_actions(url)) + [
        "- test:",
        "    timeout: {minutes: %d}" % test_min,
        "    monitors:",
        "    - name: fingerprint",
        "      start: " + q(FINGERPRINT_START),
        "      end: " + q(FINGERPRINT_END),
        "      pattern: " + q(FINGERPRINT_PATTERN),
        "    - name: nanobench",
        "      start: " + q(RESULTS_START),
        "      end: " + q(RESULTS_END),
        "      pattern: " + q(RESULTS_PATTERN),
        "",
    ]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--job", required=True)
    p.add_argument("--image", required=True)
    p.add_argument("--url")
    p.add_argument("--device-type", default="qemu")
    p.add_argument("--suite", required=True)
    p.add_argument("--benchmarks", type=int, required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--idle-seconds", type=int, required=True)
    a = p.parse_args()
    try:
        with open(a.job, "w") as f:
            f.write(job_text(a))
    except OSError as e:
        print("nanobench: -lava_job %s: %s" % (a.job, e.strerror), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
