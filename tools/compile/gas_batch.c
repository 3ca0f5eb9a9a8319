/*
 * gas_batch.c — one GNU as run per suite (see gas_batch.h).
 */
#define _GNU_SOURCE
#include "gas_batch.h"
#include "asm_statements.h"
#include "gas_source.h"
#include "asm_job.h"
#include "host_file.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Builds the as source for jobs[first..last); returns 0 or -1 (errors printed if report_errors). */
static int build_source(struct asm_job *jobs, size_t first, size_t last, char **src, size_t *len,
                        bool report_errors)
{
    int failed = 0;
    for (size_t i = first; i < last; i++) {
        char err[600], scope[32], tag[48];
        /* Every part starts in the mode nanoBench assembles in, whatever the last one set. */
        asm_text_append(src, len, ".section .text.nb%zu,\"ax\",@progbits\n.intel_syntax noprefix\n"
                             ".code64\n", i);
        snprintf(scope, sizeof(scope), "p%zu", i);
        snprintf(tag, sizeof(tag), "nb%zu.%d", i, (int)jobs[i].part);
        if (gas_source(jobs[i].text, scope, tag, src, len, err, sizeof(err)) != 0) {
            failed = -1;
            if (report_errors) {
                asm_job_print_location(&jobs[i]);
                fprintf(stderr, "%s %s\n", code_part_asm_option(jobs[i].part), err);
            }
        }
        asm_text_append(src, len, "# 1 \"nb-internal\"\n");
    }
    return failed;
}

/* Rewrites "nbJ.P:LINE: Error: text" as a message naming benchmark, option and statement. */
static void report_as_output(struct asm_job *jobs, size_t n_jobs, size_t first, size_t last,
                             const char *src_path, const char *output)
{
    size_t src_len = strlen(src_path);
    const char *next = output;
    char previous[1024] = ""; /* a repeat's copies give the same message: it is printed once */
    while (next && *next) {
        const char *eol = strchr(next, '\n');
        char line[1024];
        size_t len = asm_strip_scope_prefixes(next, eol ? (size_t)(eol - next) : strlen(next), line,
                                          sizeof(line));
        next = eol ? eol + 1 : NULL;
        if (len == 0 || strstr(line, ": Assembler messages:") || strcmp(line, previous) == 0)
            continue;
        snprintf(previous, sizeof(previous), "%s", line);
        size_t job;
        unsigned lineno;
        int part, consumed = 0;
        if (sscanf(line, "nb%zu.%d:%u: %n", &job, &part, &lineno, &consumed) == 3 && consumed &&
            job < n_jobs) {
            const char *text = line + consumed;
            const char *kind = "";
            if (strncmp(text, "Error: ", 7) == 0) {
                kind = "error: ";
                text += 7;
            } else if (strncmp(text, "Warning: ", 9) == 0) {
                kind = "warning: ";
                text += 9;
            }
            char statement[160];
            asm_statement(jobs[job].text, lineno, statement, sizeof(statement));
            asm_job_print_location(&jobs[job]);
            fprintf(stderr, "%s statement %u '%s': %s%s\n", code_part_asm_option(jobs[job].part),
                    lineno, statement, kind, text);
        } else if (last - first >= 1 && jobs[first].bench == jobs[last - 1].bench) {
            /* A message about the end of the source (an undefined 1f): the benchmark's. */
            const char *text = line;
            if (strncmp(text, src_path, src_len) == 0 && text[src_len] == ':')
                text += src_len + 1;
            while (*text == ' ')
                text++;
            asm_job_print_location(&jobs[first]);
            fprintf(stderr, "as: %s\n", text);
        } else {
            fprintf(stderr, "nanobench: as: %s\n", line);
        }
    }
}

/* Runs as; returns its exit status (or -1), with its messages in *output. */
static int run_as(const char *src_path, const char *obj_path, const char *err_path, char **output)
{
    char *const argv[] = { "as", "--64", "-o", (char *)obj_path, (char *)src_path, NULL };
    return asm_run_tool(argv, err_path, "binutils", output);
}

/* The object file as wrote: its section headers and names. */
struct object {
    const uint8_t *data;
    size_t len;
    const Elf64_Shdr *sh;
    size_t n_sh;
    const char *names;
    size_t names_len;
};

static bool in_file(const struct object *o, uint64_t off, uint64_t size)
{
    return off <= o->len && size <= o->len - off;
}

static int open_object(struct object *o, const uint8_t *data, size_t len)
{
    o->data = data;
    o->len = len;
    if (len < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) != 0 ||
        data[EI_CLASS] != ELFCLASS64)
        return -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(o, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
        eh->e_shstrndx >= eh->e_shnum)
        return -1;
    o->sh = (const Elf64_Shdr *)(data + eh->e_shoff);
    o->n_sh = eh->e_shnum;
    const Elf64_Shdr *names = &o->sh[eh->e_shstrndx];
    if (!in_file(o, names->sh_offset, names->sh_size))
        return -1;
    o->names = (const char *)data + names->sh_offset;
    o->names_len = names->sh_size;
    return 0;
}

static const char *section_name(const struct object *o, size_t i)
{
    return o->sh[i].sh_name < o->names_len ? o->names + o->sh[i].sh_name : "";
}

/* The index of section `.text.nbJ`, or 0. */
static size_t part_section(const struct object *o, size_t job)
{
    char name[40];
    snprintf(name, sizeof(name), ".text.nb%zu", job);
    for (size_t i = 1; i < o->n_sh; i++)
        if (strcmp(section_name(o, i), name) == 0)
            return i;
    return 0;
}

/* The first statement of `text` that contains `name` as a word; 0 if none. */
static unsigned statement_naming(const char *text, const char *name)
{
    char buf[600];
    size_t n = strlen(name);
    unsigned statements = 1;
    for (const char *p = text; *p; p++)
        statements += *p == ';' || *p == '\n';
    for (unsigned k = 1; n && k <= statements; k++) {
        asm_statement(text, k, buf, sizeof(buf));
        for (const char *p = strstr(buf, name); p; p = strstr(p + 1, name)) {
            bool start = p == buf || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
            bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.');
            if (start && end)
                return k;
        }
    }
    return 0;
}

/* Checks the relocations of every part; returns how many parts have an unknown address. */
static int check_relocations(const struct object *o, struct asm_job *jobs, size_t first,
                             size_t last, const size_t *sections, bool report_errors,
                             bool report_warnings)
{
    int failed = 0;
    for (size_t r = 1; r < o->n_sh; r++) {
        const Elf64_Shdr *rs = &o->sh[r];
        if (rs->sh_type != SHT_RELA || rs->sh_link >= o->n_sh || rs->sh_entsize != sizeof(Elf64_Rela) ||
            !in_file(o, rs->sh_offset, rs->sh_size))
            continue;
        size_t job = last;
        for (size_t i = first; i < last; i++)
            if (sections[i - first] == rs->sh_info)
                job = i;
        if (job == last)
            continue;
        const Elf64_Shdr *symtab = &o->sh[rs->sh_link];
        const Elf64_Shdr *strtab = symtab->sh_link < o->n_sh ? &o->sh[symtab->sh_link] : NULL;
        if (!strtab || !in_file(o, symtab->sh_offset, symtab->sh_size) ||
            !in_file(o, strtab->sh_offset, strtab->sh_size))
            continue;
        const Elf64_Sym *syms = (const Elf64_Sym *)(o->data + symtab->sh_offset);
        size_t n_syms = symtab->sh_size / sizeof(Elf64_Sym);
        const Elf64_Rela *rel = (const Elf64_Rela *)(o->data + rs->sh_offset);
        bool bad = false, warned = false;
        for (size_t k = 0; k < rs->sh_size / sizeof(Elf64_Rela); k++) {
            size_t si = ELF64_R_SYM(rel[k].r_info);
            if (si >= n_syms)
                continue;
            const Elf64_Sym *sym = &syms[si];
            const char *raw = sym->st_name < strtab->sh_size
                                  ? (const char *)o->data + strtab->sh_offset + sym->st_name : "";
            char name[200];
            asm_strip_scope_prefixes(raw, strnlen(raw, 150), name, sizeof(name));
            unsigned stmt = statement_naming(jobs[job].text, name);
            char statement[160] = "";
            if (stmt)
                asm_statement(jobs[job].text, stmt, statement, sizeof(statement));
            /* Symbol 0 is no symbol: a branch to an absolute address ("jz 0x10"). */
            bool absolute = si == 0 || sym->st_shndx == SHN_ABS;
            if (!absolute && (sym->st_shndx == SHN_UNDEF || sym->st_shndx != sections[job - first])) {
                bad = true;
                if (!report_errors)
                    continue;
                asm_job_print_location(&jobs[job]);
                fprintf(stderr, "%s ", code_part_asm_option(jobs[job].part));
                if (stmt)
                    fprintf(stderr, "statement %u '%s': ", stmt, statement);
                if (sym->st_shndx == SHN_UNDEF)
                    fprintf(stderr, "'%s' is not defined in this part (each -asm* option is "
                                    "assembled alone, as in nanoBench)\n", name);
                else
                    fprintf(stderr, "refers to a label of another part (a local label 1f/1b "
                                    "without its 1: here?); each -asm* option is assembled "
                                    "alone, as in nanoBench\n");
            } else if (report_warnings && !warned && !bad) {
                warned = true;
                asm_job_print_location(&jobs[job]);
                fprintf(stderr, "%s ", code_part_asm_option(jobs[job].part));
                if (stmt)
                    fprintf(stderr, "statement %u '%s': ", stmt, statement);
                fprintf(stderr, "warning: the absolute address of %s%s is left as as wrote it "
                                "(the object's bytes, as nanoBench takes them); the code does not "
                                "run at that address\n", name[0] ? "" : "a place in ",
                        name[0] ? name : "the code");
            }
        }
        failed += bad;
    }
    return failed;
}

/* Assembles jobs[first..last) in one as run; returns 0 on success. */
static int assemble_range(struct asm_job *jobs, size_t n_jobs, size_t first, size_t last,
                          const char *workdir, bool report_errors)
{
    char *src = NULL;
    size_t len = 0;
    if (build_source(jobs, first, last, &src, &len, report_errors) != 0) {
        free(src);
        return -1;
    }
    char *src_path = host_path_join(workdir, "suite.s");
    char *obj_path = host_path_join(workdir, "suite.o");
    char *err_path = host_path_join(workdir, "as.log");
    char *output = NULL;
    uint8_t *obj = NULL;
    size_t *sections = NULL;
    int rc = -1;
    if (host_write_file(src_path, src, len) != 0) {
        fprintf(stderr, "nanobench: cannot write %s: %s\n", src_path, strerror(errno));
        goto out;
    }
    int status = run_as(src_path, obj_path, err_path, &output);
    if (status != 0) {
        if (report_errors)
            report_as_output(jobs, n_jobs, first, last, src_path, output ? output : "as failed\n");
        goto out;
    }
    size_t obj_len;
    obj = (uint8_t *)host_read_file(obj_path, &obj_len);
    struct object o;
    if (!obj || open_object(&o, obj, obj_len) != 0) {
        fprintf(stderr, "nanobench: as produced no usable object in %s\n", obj_path);
        goto out;
    }
    sections = calloc(last - first, sizeof(*sections));
    for (size_t i = first; i < last; i++) {
        size_t s = part_section(&o, i);
        sections[i - first] = s;
        if (!s) { /* never silently empty code */
            if (report_errors) {
                asm_job_print_location(&jobs[i]);
                fprintf(stderr, "%s: as wrote no code section for it\n",
                        code_part_asm_option(jobs[i].part));
            }
            goto out;
        }
        if (s && o.sh[s].sh_type == SHT_PROGBITS && !in_file(&o, o.sh[s].sh_offset, o.sh[s].sh_size))
            goto out;
    }
    if (check_relocations(&o, jobs, first, last, sections, report_errors, false) != 0)
        goto out;
    /* Warnings only once the run is good (a failed run is assembled again, one benchmark at a time). */
    if (output)
        report_as_output(jobs, n_jobs, first, last, src_path, output);
    check_relocations(&o, jobs, first, last, sections, false, true);
    for (size_t i = first; i < last; i++) {
        size_t s = sections[i - first];
        jobs[i].len = s && o.sh[s].sh_type == SHT_PROGBITS ? (size_t)o.sh[s].sh_size : 0;
        jobs[i].bytes = malloc(jobs[i].len ? jobs[i].len : 1);
        if (jobs[i].len)
            memcpy(jobs[i].bytes, obj + o.sh[s].sh_offset, jobs[i].len);
    }
    rc = 0;
out:
    free(sections);
    free(obj);
    free(output);
    free(src);
    free(src_path);
    free(obj_path);
    free(err_path);
    return rc;
}

int gas_assemble(struct asm_job *jobs, size_t n, const char *workdir)
{
    return asm_assemble_batched(jobs, n, workdir, assemble_range);
}
