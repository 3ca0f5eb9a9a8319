/*
 * test_watchdog.c — the hang watchdog's local APIC programming on a fake
 * APIC: calibration against the firmware stall, what arming changes (LINT0/1
 * masked, TPR 0xE0, one-shot timer on vector 0xF0, divide by 128), EOI after
 * a fired timeout, and the firmware's settings restored exactly.
 */
#include "bench_codegen.h"
#include "host_platform.h"
#include "nb_test.h"
#include "watchdog.h"

#include <stdlib.h>
#include <string.h>

static uint32_t regs[0x400 / 4];
static bool eoi_written;
static uint64_t stalled_us;

static int fake_read(void *ctx, uint32_t reg, uint32_t *value)
{
    (void)ctx;
    /* The current count falls 100 ticks per microsecond stalled (100 MHz after /128). */
    if (reg == 0x390)
        *value = regs[0x380 / 4] - (uint32_t)(stalled_us * 100);
    else
        *value = regs[reg / 4];
    return NB_OK;
}

static int fake_write(void *ctx, uint32_t reg, uint32_t value)
{
    (void)ctx;
    if (reg == 0xB0)
        eoi_written = true;
    if (reg == 0x380)
        stalled_us = 0;
    regs[reg / 4] = value;
    return NB_OK;
}

static uint64_t fake_base(void *ctx)
{
    (void)ctx;
    return 0xFEE00000u;
}

static void fake_stall(void *ctx, uint32_t us)
{
    (void)ctx;
    stalled_us += us;
}

static void fake_apic(struct host_platform *h)
{
    host_platform_init(h);
    memset(regs, 0, sizeof(regs));
    eoi_written = false;
    stalled_us = 0;
    h->p.lapic_read = fake_read;
    h->p.lapic_write = fake_write;
    h->p.lapic_mmio_base = fake_base;
    h->p.stall_us = fake_stall;
    /* What a firmware might have: its own periodic timer, ExtINT on LINT0, NMI on LINT1. */
    regs[0x80 / 4] = 0x10;
    regs[0x320 / 4] = 0x20068;
    regs[0x350 / 4] = 0x700;
    regs[0x360 / 4] = 0x400;
    regs[0x3E0 / 4] = 0xB;
    regs[0x380 / 4] = 123456;
}

NB_TEST(watchdog_calibrates_arms_and_restores)
{
    struct host_platform h;
    fake_apic(&h);
    struct watchdog w;
    REQUIRE(watchdog_init(&w, &h.p));
    CHECK_EQ_U64(w.apic_hz, 100000000u);
    CHECK_EQ_U64(w.mmio_base, 0xFEE00000u);
    CHECK_EQ_U64(regs[0x320 / 4], 0x20068); /* calibration left the firmware's timer as it was */
    CHECK_EQ_U64(regs[0x380 / 4], 123456);

    watchdog_arm(&w, &h.p);
    CHECK_EQ_U64(regs[0x80 / 4], 0xE0);         /* only vectors 0xF0-0xFF */
    CHECK_EQ_U64(regs[0x320 / 4], 0xF0);        /* one-shot, unmasked, vector 0xF0 */
    CHECK_EQ_U64(regs[0x350 / 4], 0x10700);     /* LINT0 masked */
    CHECK_EQ_U64(regs[0x360 / 4], 0x10400);     /* LINT1 masked */
    CHECK_EQ_U64(regs[0x3E0 / 4], 0xA);         /* divide by 128 */
    CHECK_EQ_U64(regs[0x380 / 4], 0);           /* stopped until a run arms it */

    watchdog_disarm(&w, &h.p, true);
    CHECK(eoi_written);
    CHECK_EQ_U64(regs[0x80 / 4], 0x10);
    CHECK_EQ_U64(regs[0x320 / 4], 0x20068);
    CHECK_EQ_U64(regs[0x350 / 4], 0x700);
    CHECK_EQ_U64(regs[0x360 / 4], 0x400);
    CHECK_EQ_U64(regs[0x3E0 / 4], 0xB);
    CHECK_EQ_U64(regs[0x380 / 4], 123456);
    host_platform_free(&h);
}

NB_TEST(watchdog_ticks_from_tsc_time)
{
    struct watchdog w = { .available = true, .apic_hz = 100000000u };
    /* 10 s of a 3 GHz TSC at 100 MHz APIC ticks: 1e9 ticks. */
    CHECK_EQ_U64(watchdog_ticks(&w, 30000000000ull, 3000000000ull), 1000000000u);
    CHECK_EQ_U64(watchdog_ticks(&w, 3000000000000ull, 3000000000ull), 0xFFFFFFFFu); /* capped */
    CHECK_EQ_U64(watchdog_ticks(&w, 1, 3000000000ull), 1u);                     /* never 0 (stopped) */
}

NB_TEST(watchdog_needs_a_local_apic)
{
    struct host_platform h;
    host_platform_init(&h);
    struct watchdog w;
    CHECK(!watchdog_init(&w, &h.p)); /* the host fake has no local APIC */
    CHECK(!w.available);
    host_platform_free(&h);
}

/* The spurious vector is the firmware's (SVR bits 7:0), not an assumed 0xFF. */
NB_TEST(watchdog_takes_the_spurious_vector_from_the_svr)
{
    static const struct { uint32_t svr; uint8_t vector; } cases[] = {
        { 0x1EF, 0xEF }, { 0x1FF, 0xFF }, { 0x10F, 0xFF } /* an exception vector: unusable */,
        { 0x1F0, 0xFF } /* our timer's */,
    };
    for (size_t i = 0; i < NB_ARRAY_SIZE(cases); i++) {
        struct host_platform h;
        fake_apic(&h);
        regs[0xF0 / 4] = cases[i].svr;
        struct watchdog w;
        REQUIRE(watchdog_init(&w, &h.p));
        CHECK_EQ_INT(w.spurious_vector, cases[i].vector);
        host_platform_free(&h);
    }
    /* The generated IDT has its IRET gate there, and none at 0xFF. */
    static const uint8_t nop = 0x90;
    struct codegen_params p;
    memset(&p, 0, sizeof(p));
    p.part[PART_MAIN] = &nop;
    p.part_len[PART_MAIN] = 1;
    p.copies = 1;
    p.catch_faults = true;
    p.watchdog = true;
    p.spurious_vector = 0xEF;
    size_t cap = codegen_run_size(&p);
    uint8_t *buf = calloc(1, cap);
    struct codegen_layout layout;
    REQUIRE(codegen_emit_run(buf, cap, &p, &layout) != NULL);
    const struct codegen_data *data = (const struct codegen_data *)buf;
    CHECK(data->idt[IDT_GATE_SIZE * 0xEF + 5] & 0x80);  /* present */
    CHECK(!(data->idt[IDT_GATE_SIZE * 0xFF + 5] & 0x80));
    CHECK(data->idt[IDT_GATE_SIZE * 0xF0 + 5] & 0x80);  /* the timer's */
    free(buf);
}
