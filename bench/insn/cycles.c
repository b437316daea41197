/* A QEMU TCG plugin (qemu-system-arm, Thumb-2 M-profile) that counts instructions and
 * estimates cycles on a Cortex-M4 or a Cortex-M55 from the executed instruction stream:
 * each instruction gets a static cost from its class (the cores' technical reference manuals,
 * docs/cycles.md has the table and the model's limits) and each taken branch a pipeline refill.
 * Built by scripts/insn-count.sh against the QEMU source's qemu-plugin.h, like QEMU's insn.c.
 *
 *   -plugin libcycles.so,core=m4|m55[,refill=N][,syms=FILE][,blocks=FILE][,dump=1] -d plugin
 * prints "insns: N", "cycles: N" and "taken: N" (taken branches); syms=FILE writes "cycles insns
 * symbol" per function (the symbol of each translation block's first instruction); blocks=FILE
 * "address executions insns cycles taken symbol" per translation block; dump=1 prints the class
 * of every instruction translated.
 *
 * Static part, per translation block: the sum of its instructions' costs, with the
 * neighbour rules that only depend on the order of instructions (an M4 load or store single
 * right after another pipelines into one cycle; on the M55 a Helium memory instruction and a
 * Helium arithmetic one next to each other overlap their beats). Dynamic part, per executed
 * block: when the previous block ended in a branch and this one does not start at its
 * fall-through address, the branch was taken: add the refill penalty. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum Core { kM4, kM55 };
static enum Core core = kM4;
static int dump;
static const char* syms_path;
static const char* blocks_path;

/* The classes of the cost table (docs/cycles.md). */
enum Class {
  kAlu,      /* data processing, moves, compares, extends, bit fields, SIMD32 (SADD8, SEL…) */
  kIt,       /* IT */
  kMul,      /* MUL, SMULL, SMLAL, SMLAD, SMMUL, … (M4: one cycle, 32×32 → 64 included) */
  kMla,      /* MLA, MLS (M4: 2) */
  kDiv,      /* SDIV, UDIV */
  kLoad,     /* LDR{B,H,SB,SH}, LDREX, PLD */
  kStore,    /* STR{B,H}, STREX */
  kLoadPair, /* LDRD, STRD */
  kMulti,    /* LDM, STM, PUSH, POP: 1 + registers */
  kBranch,   /* B, BL, BX, BLX, CBZ, CBNZ, TBB, TBH (+ refill when taken, dynamic) */
  kFpAlu,    /* VADD, VSUB, VMUL, VABS, VNEG, VCMP, VCVT, VMOV, VMRS, VMSR, VSEL, VMAXNM… */
  kFpMac,    /* VMLA, VMLS, VFMA, VFMS, VNMLA, VNMLS */
  kFpDiv,    /* VDIV, VSQRT */
  kFpLoad,   /* VLDR, VSTR (scalar) */
  kFpMulti,  /* VLDM, VSTM, VPUSH, VPOP */
  kMveMem,   /* Helium loads and stores (contiguous, gather/scatter, VLD2/4, VST2/4) */
  kMveAlu,   /* every other Helium instruction (arithmetic, MACs, VPST/VPT, VCTP, lane moves) */
  kLob,      /* WLS, DLS, LE, LETP (low-overhead branches) */
  kClasses
};
static const char* const kClassName[kClasses] = {
    "alu",     "it",     "mul", "mla",    "div",    "load",          "store",     "load/store pair",
    "ldm/stm", "branch", "fp",  "fp mac", "fp div", "fp load/store", "vldm/vstm", "mve mem",
    "mve alu", "lob"};

typedef struct {
  uint64_t execs, taken; /* taken: executions that ended in a taken branch */
  uint32_t cycles, insns;
  uint64_t fallthrough; /* address after the last instruction */
  int ends_in_branch;
  const char* symbol;
  uint32_t class_count[kClasses];
} Block;

static uint64_t total_cycles, total_insns, taken_branches;
static const Block* previous;
static GMutex lock;
static GPtrArray* blocks;
static uint64_t class_seen[kClasses];

static int StartsWith(const char* s, const char* p) { return strncmp(s, p, strlen(p)) == 0; }

/* Registers in a {…} list ("{r4, r5, r6, lr}", "{d8, d9}", "{s16-s31}"): D registers count 2. */
static int ListRegisters(const char* ops) {
  const char* open = strchr(ops, '{');
  if (open == NULL) return 1;
  int n = 0;
  for (const char* p = open + 1; *p != '\0' && *p != '}';) {
    while (*p == ' ' || *p == ',') ++p;
    if (*p == '}' || *p == '\0') break;
    const int wide = *p == 'd' ? 2 : 1;
    int first = atoi(p + 1), last = first;
    while (*p != '\0' && *p != ',' && *p != '}' && *p != '-') ++p;
    if (*p == '-') {
      ++p;
      last = atoi(p + 1);
      while (*p != '\0' && *p != ',' && *p != '}') ++p;
    }
    n += wide * (last >= first ? last - first + 1 : 1);
  }
  return n > 0 ? n : 1;
}

/* Helium and the low-overhead-branch instructions from the encoding: Debian's capstone 4
 * predates Armv8.1-M, so it prints ".byte …" or guesses a NEON or coprocessor form.
 *   first halfword 111x 11xx, coprocessor field not 10/11 (VFP): Helium; 111x 1111 (the
 *   Advanced SIMD space, Helium on M-profile) is arithmetic, 111x 110x (LDC/STC space) a load
 *   or store, 111x 1110 (CDP/MCR space) arithmetic or a lane move
 *   F0xx E801: VCTP; F0xx E001 (DLS) or F0xx with second halfword 11x0 …1 (WLS, LE): LOB */
static enum Class EncodingClass(const uint8_t* b, size_t size) {
  if (size != 4) return kClasses;
  const uint16_t hw1 = (uint16_t)(b[0] | b[1] << 8), hw2 = (uint16_t)(b[2] | b[3] << 8);
  if ((hw1 >> 8) == 0xF0) {
    if (hw2 == 0xE801) return kMveAlu;
    if ((hw2 & 0xD001) == 0xC001) return kLob;
    return kClasses;
  }
  if ((hw1 & 0xEC00) != 0xEC00) return kClasses;
  const int op = (hw1 >> 8) & 0x3;
  if (op == 3) return kMveAlu;
  const int coproc = (hw2 >> 8) & 0xF;
  if (coproc == 0xA || coproc == 0xB) return kClasses; /* VFP: by mnemonic */
  return op == 2 ? kMveAlu : kMveMem;
}

static enum Class Classify(const char* text, const uint8_t* bytes, size_t size) {
  const enum Class by_encoding = EncodingClass(bytes, size);
  if (by_encoding != kClasses) return by_encoding;
  char m[32];
  size_t i = 0;
  while (text[i] != '\0' && text[i] != ' ' && text[i] != '.' && i + 1 < sizeof m) {
    m[i] = text[i];
    ++i;
  }
  m[i] = '\0';
  const char* ops = strchr(text, ' ');
  ops = ops != NULL ? ops : "";
  if (StartsWith(m, "it") && strspn(m + 2, "te") == strlen(m + 2) && strlen(m) <= 5) return kIt;
  if (strcmp(m, "wls") == 0 || strcmp(m, "dls") == 0 || strcmp(m, "le") == 0 ||
      strcmp(m, "letp") == 0 || strcmp(m, "dlstp") == 0 || strcmp(m, "wlstp") == 0)
    return kLob;
  if (m[0] == 'v') {
    if (StartsWith(m, "vldm") || StartsWith(m, "vstm") || StartsWith(m, "vpush") ||
        StartsWith(m, "vpop"))
      return kFpMulti;
    if (StartsWith(m, "vldr") || StartsWith(m, "vstr")) return kFpLoad;
    if (StartsWith(m, "vdiv") || StartsWith(m, "vsqrt")) return kFpDiv;
    if (StartsWith(m, "vmla") || StartsWith(m, "vmls") || StartsWith(m, "vfm") ||
        StartsWith(m, "vfnm") || StartsWith(m, "vnml"))
      return kFpMac;
    return kFpAlu;
  }
  if (StartsWith(m, "ldrd") || StartsWith(m, "strd")) return kLoadPair;
  if (StartsWith(m, "ldm") || StartsWith(m, "stm") || StartsWith(m, "push") || StartsWith(m, "pop"))
    return kMulti;
  if (StartsWith(m, "ldr") || StartsWith(m, "pld") || StartsWith(m, "ldaex") ||
      StartsWith(m, "lda"))
    return kLoad;
  if (StartsWith(m, "str") || StartsWith(m, "stl")) return kStore;
  if (strcmp(m, "b") == 0 ||
      (m[0] == 'b' && strlen(m) == 3 && strcmp(m, "bic") != 0 && strcmp(m, "bfi") != 0 &&
       strcmp(m, "bfc") != 0) ||
      strcmp(m, "bl") == 0 || strcmp(m, "bx") == 0 || strcmp(m, "blx") == 0 ||
      StartsWith(m, "cbz") || StartsWith(m, "cbnz") || StartsWith(m, "tbb") || StartsWith(m, "tbh"))
    return kBranch;
  if (strcmp(m, "sdiv") == 0 || strcmp(m, "udiv") == 0) return kDiv;
  if (strcmp(m, "mla") == 0 || strcmp(m, "mls") == 0) return kMla;
  if (StartsWith(m, "mul") || StartsWith(m, "smul") || StartsWith(m, "umul") ||
      StartsWith(m, "smla") || StartsWith(m, "umla") || StartsWith(m, "smls") ||
      StartsWith(m, "smua") || StartsWith(m, "smus") || StartsWith(m, "smmu") ||
      StartsWith(m, "smml") || StartsWith(m, "umaal") || StartsWith(m, "usad"))
    return kMul;
  (void)ops;
  return kAlu;
}

/* Whether an instruction writes the PC (a branch by other means: pop {…, pc}, ldr pc, mov pc). */
static int WritesPc(enum Class c, const char* text) {
  const char* ops = strchr(text, ' ');
  if (ops == NULL) return 0;
  if (c == kMulti)
    return strstr(ops, "pc") != NULL && !StartsWith(text, "push") && !StartsWith(text, "stm");
  if (c == kLoad || c == kAlu) {
    while (*ops == ' ') ++ops;
    return StartsWith(ops, "pc,");
  }
  return 0;
}

/* Cost of one instruction given its neighbour before it (docs/cycles.md). */
static uint32_t Cost(enum Class c, enum Class before, int before_size, const char* text) {
  const int m4 = core == kM4;
  switch (c) {
    case kAlu:
      return 1;
    case kIt:
      return before_size == 2 ? 0 : 1; /* folded onto a 16-bit instruction */
    case kMul:
      return 1;
    case kMla:
      return m4 ? 2 : 1;
    case kDiv:
      return m4 ? 7 : 6;
    case kLoad:
    case kStore: { /* M4 TRM: 2, 1 when it pipelines behind a load or store single */
      const int pipelined = before == kLoad || before == kStore;
      return m4 ? (pipelined ? 1 : 2) : 1;
    }
    case kLoadPair:
      return m4 ? 3 : 1;
    case kMulti: {
      const int n = ListRegisters(text);
      return m4 ? 1 + n : 1 + (n + 1) / 2;
    }
    case kBranch:
      return 1;
    case kFpAlu:
      return 1;
    case kFpMac:
      return m4 ? 3 : 1;
    case kFpDiv:
      return 14;
    case kFpLoad:
      return m4 ? 2 : 1;
    case kFpMulti: {
      const int n = ListRegisters(text);
      return m4 ? 1 + n : 1 + (n + 1) / 2;
    }
    case kMveMem:
    case kMveAlu: {
      /* Dual-beat M55: a 128-bit instruction is two cycles; a memory and an arithmetic
       * instruction back to back overlap by one. */
      const int overlap =
          (c == kMveMem && before == kMveAlu) || (c == kMveAlu && before == kMveMem);
      return overlap ? 1 : 2;
    }
    case kLob:
      return 1;
    default:
      return 1;
  }
}

static uint32_t refill = 2;
static uint32_t Penalty(void) { return refill; } /* pipeline refill of a taken branch (P) */

/* The start address of each block is kept beside it: the taken test compares it with the
 * previous block's fall-through address. */
typedef struct {
  Block b;
  uint64_t start;
} Entry;

static void EntryExec(unsigned int cpu_index, void* udata) {
  (void)cpu_index;
  Entry* e = (Entry*)udata;
  g_mutex_lock(&lock);
  if (previous != NULL && previous->ends_in_branch && e->start != previous->fallthrough) {
    total_cycles += Penalty();
    taken_branches++;
    ((Block*)previous)->taken++;
  }
  e->b.execs++;
  total_cycles += e->b.cycles;
  total_insns += e->b.insns;
  previous = &e->b;
  g_mutex_unlock(&lock);
}

static void Translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  Entry* e = g_new0(Entry, 1);
  e->start = qemu_plugin_tb_vaddr(tb);
  enum Class before = kAlu;
  int before_size = 4;
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    const size_t size = qemu_plugin_insn_size(insn);
    char* text = qemu_plugin_insn_disas(insn);
    const enum Class c = Classify(text != NULL ? text : "", qemu_plugin_insn_data(insn), size);
    e->b.cycles += Cost(c, before, before_size, text != NULL ? text : "");
    e->b.insns++;
    e->b.class_count[c]++;
    if (i == 0) e->b.symbol = qemu_plugin_insn_symbol(insn);
    if (i + 1 == n) {
      e->b.fallthrough = qemu_plugin_insn_vaddr(insn) + size;
      e->b.ends_in_branch = c == kBranch || WritesPc(c, text != NULL ? text : "");
    }
    if (dump) {
      g_mutex_lock(&lock);
      class_seen[c]++;
      if (c == kAlu || c == kMveAlu || c == kMveMem) {
        const uint8_t* d = qemu_plugin_insn_data(insn);
        fprintf(stderr, "class %-10s %02x%02x %02x%02x  %s\n", kClassName[c], d[1], d[0],
                size > 2 ? d[3] : 0, size > 2 ? d[2] : 0, text != NULL ? text : "?");
      }
      g_mutex_unlock(&lock);
    }
    before = c;
    before_size = (int)size;
    g_free(text);
  }
  g_mutex_lock(&lock);
  g_ptr_array_add(blocks, e);
  g_mutex_unlock(&lock);
  qemu_plugin_register_vcpu_tb_exec_cb(tb, EntryExec, QEMU_PLUGIN_CB_NO_REGS, e);
}

typedef struct {
  uint64_t cycles, insns;
} Sum;

static void Exit(qemu_plugin_id_t id, void* p) {
  (void)id;
  (void)p;
  char line[160];
  snprintf(line, sizeof line, "insns: %" PRIu64 "\ncycles: %" PRIu64 "\ntaken: %" PRIu64 "\n",
           total_insns, total_cycles, taken_branches);
  qemu_plugin_outs(line);
  if (syms_path != NULL) {
    GHashTable* by_symbol = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    for (guint i = 0; i < blocks->len; ++i) {
      const Entry* e = g_ptr_array_index(blocks, i);
      const char* s = e->b.symbol != NULL ? e->b.symbol : "?";
      Sum* sum = g_hash_table_lookup(by_symbol, s);
      if (sum == NULL) {
        sum = g_new0(Sum, 1);
        g_hash_table_insert(by_symbol, (gpointer)s, sum);
      }
      sum->cycles += e->b.execs * e->b.cycles + e->b.taken * Penalty();
      sum->insns += e->b.execs * e->b.insns;
    }
    FILE* f = fopen(syms_path, "w");
    if (f != NULL) {
      GHashTableIter it;
      gpointer key, value;
      g_hash_table_iter_init(&it, by_symbol);
      while (g_hash_table_iter_next(&it, &key, &value)) {
        const Sum* sum = value;
        fprintf(f, "%" PRIu64 " %" PRIu64 " %s\n", sum->cycles, sum->insns, (const char*)key);
      }
      fclose(f);
    }
    g_hash_table_destroy(by_symbol);
  }
  if (blocks_path != NULL) {
    FILE* f = fopen(blocks_path, "w");
    for (guint i = 0; f != NULL && i < blocks->len; ++i) {
      const Entry* e = g_ptr_array_index(blocks, i);
      if (e->b.execs != 0)
        fprintf(f, "%" PRIx64 " %" PRIu64 " %u %u %" PRIu64 " %s\n", e->start, e->b.execs,
                e->b.insns, e->b.cycles, e->b.taken, e->b.symbol != NULL ? e->b.symbol : "?");
    }
    if (f != NULL) fclose(f);
  }
  if (dump)
    for (int c = 0; c < kClasses; ++c)
      fprintf(stderr, "seen %-16s %" PRIu64 "\n", kClassName[c], class_seen[c]);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strcmp(argv[i], "core=m4") == 0)
      core = kM4;
    else if (strcmp(argv[i], "core=m55") == 0)
      core = kM55;
    else if (strcmp(argv[i], "dump=1") == 0)
      dump = 1;
    else if (StartsWith(argv[i], "syms="))
      syms_path = argv[i] + 5;
    else if (StartsWith(argv[i], "blocks="))
      blocks_path = argv[i] + 7;
    else if (StartsWith(argv[i], "refill="))
      refill = (uint32_t)atoi(argv[i] + 7);
    else {
      fprintf(stderr,
              "cycles plugin: unknown option %s (core=m4|m55, refill=N, syms=FILE, blocks=FILE, "
              "dump=1)\n",
              argv[i]);
      return -1;
    }
  }
  blocks = g_ptr_array_new();
  qemu_plugin_register_vcpu_tb_trans_cb(id, Translate);
  qemu_plugin_register_atexit_cb(id, Exit, NULL);
  return 0;
}
