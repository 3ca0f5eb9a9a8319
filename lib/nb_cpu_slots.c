/*
 * nb_cpu_slots.c — one slot per processor by APIC ID (see nb_cpu_slots.h).
 */
#include "nb_cpu_slots.h"

#include <stdbool.h>

enum { SLOT_FREE = 0, SLOT_CLAIMING = 1, SLOT_READY = 2 };

int nb_cpu_slot(struct nb_cpu_slots *t, uint32_t apic_id)
{
    for (int i = 0; i < NB_CPU_SLOTS; i++) {
        if (__atomic_load_n(&t->state[i], __ATOMIC_ACQUIRE) == SLOT_READY && t->apic_id[i] == apic_id)
            return i;
    }
    for (int i = 0; i < NB_CPU_SLOTS; i++) {
        uint32_t expected = SLOT_FREE;
        if (__atomic_compare_exchange_n(&t->state[i], &expected, SLOT_CLAIMING, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            t->apic_id[i] = apic_id;
            __atomic_store_n(&t->state[i], SLOT_READY, __ATOMIC_RELEASE);
            return i;
        }
    }
    return -1;
}
