/*
 * qemu_plugin_api.h — the part of QEMU's TCG plugin interface (API version 1,
 * as QEMU 7.2 offers it: qemu_info_t reports min 0, cur 1) that
 * tools/mica/mica_dbt_plugin.c uses. Debian packages no qemu-plugin.h, so
 * these declarations were written for this project from the function
 * names, argument lists and the version symbol that QEMU's "TCG Plugins"
 * documentation (docs/devel/tcg-plugins) describes for 7.2. QEMU resolves
 * the functions when it loads the plugin (they are exported by the
 * qemu-x86_64 binary itself), so the plugin links with no library.
 *
 * Contract in short:
 *  - the plugin exports `qemu_plugin_version` (the API version it was
 *    written for) and `qemu_plugin_install`, called once at load with the
 *    `-plugin FILE,key=value,...` arguments (argv holds "key=value");
 *  - a translation callback sees each translation block once, before it
 *    runs; per instruction of it the plugin may ask for a call before the
 *    instruction executes and for a call per memory access it makes;
 *  - handles (tb, insn, meminfo) are only valid inside the callback that
 *    received them;
 *  - atexit callbacks run when the emulated program exits.
 */
#ifndef QEMU_PLUGIN_API_H
#define QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MICA_QEMU_PLUGIN_API_VERSION 1
#define MICA_QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

/* What QEMU passes to qemu_plugin_install. */
typedef struct {
    const char *target_name;        /* "x86_64" */
    struct {
        int min;                    /* oldest API version this QEMU still loads */
        int cur;                    /* its own API version */
    } version;
    bool system_emulation;          /* false under qemu-x86_64 (user mode) */
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;

/* Opaque handles. */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
/* Packed description of one memory access (size, direction, ...). */
typedef uint32_t qemu_plugin_meminfo_t;

/* Whether a callback may read or write the guest's registers (we do neither). */
enum qemu_plugin_cb_flags {
    QEMU_PLUGIN_CB_NO_REGS,
    QEMU_PLUGIN_CB_R_REGS,
    QEMU_PLUGIN_CB_RW_REGS,
};

/* Which accesses a memory callback is called for. */
enum qemu_plugin_mem_rw {
    QEMU_PLUGIN_MEM_R = 1,
    QEMU_PLUGIN_MEM_W,
    QEMU_PLUGIN_MEM_RW,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);

/* Exported by the plugin. */
extern MICA_QEMU_PLUGIN_EXPORT int qemu_plugin_version;
MICA_QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                int argc, char **argv);

/* Provided by QEMU. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
/* Pointer to the instruction's bytes (valid during the translation callback). */
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void *userdata);
/* log2 of the access size in bytes. */
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
/* Text to QEMU's log (stderr). */
void qemu_plugin_outs(const char *string);

#endif
