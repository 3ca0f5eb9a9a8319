/*
 * test_cpu_slots.c — one slot per processor by APIC ID (lib/nb_cpu_slots.h),
 * what the MSR #GP guard of each processor is indexed by: the same ID finds
 * its slot again, different IDs never share one (also when they claim at the
 * same time), and a full table says so instead of sharing.
 */
#include "nb_cpu_slots.h"
#include "nb_test.h"

#include <pthread.h>
#include <string.h>

NB_TEST(cpu_slots_one_per_apic_id)
{
    static struct nb_cpu_slots t;
    memset(&t, 0, sizeof(t));
    CHECK_EQ_INT(nb_cpu_slot(&t, 0), 0);
    CHECK_EQ_INT(nb_cpu_slot(&t, 0x12345678u), 1); /* x2APIC IDs are 32 bits */
    CHECK_EQ_INT(nb_cpu_slot(&t, 1), 2);
    CHECK_EQ_INT(nb_cpu_slot(&t, 0x12345678u), 1);
    CHECK_EQ_INT(nb_cpu_slot(&t, 0), 0);
    for (uint32_t id = 100; id < 100 + NB_CPU_SLOTS - 3; id++)
        CHECK_EQ_INT(nb_cpu_slot(&t, id), (int)(id - 100 + 3));
    CHECK_EQ_INT(nb_cpu_slot(&t, 7), -1); /* full: no slot, never someone else's */
    CHECK_EQ_INT(nb_cpu_slot(&t, 1), 2);
}

#define THREADS 8
#define ROUNDS 2000

static struct nb_cpu_slots shared;
static int first_slot[THREADS];
static int moved[THREADS];

static void *claim(void *arg)
{
    int id = (int)(intptr_t)arg;
    first_slot[id] = nb_cpu_slot(&shared, 0x100u + (uint32_t)id);
    for (int r = 0; r < ROUNDS; r++)
        moved[id] += nb_cpu_slot(&shared, 0x100u + (uint32_t)id) != first_slot[id];
    return NULL;
}

NB_TEST(cpu_slots_claimed_at_once_never_shared)
{
    for (int round = 0; round < 20; round++) {
        memset(&shared, 0, sizeof(shared));
        memset(moved, 0, sizeof(moved));
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; i++)
            REQUIRE(pthread_create(&th[i], NULL, claim, (void *)(intptr_t)i) == 0);
        for (int i = 0; i < THREADS; i++)
            pthread_join(th[i], NULL);
        for (int i = 0; i < THREADS; i++) {
            CHECK(first_slot[i] >= 0 && first_slot[i] < THREADS);
            CHECK_EQ_INT(moved[i], 0);
            for (int j = 0; j < i; j++)
                CHECK(first_slot[i] != first_slot[j]);
        }
    }
}
