/* rt_state.c: the state the runtime's roles share (layer 0: variables only; what
 * each means is in fp_internal.h). Their initial values keep them where they were:
 * the small zeroed ones in .bss, packed, the few that start non-zero in .data, the
 * long path on a page of its own (FP_BULK), which a run given a short path never
 * touches (docs/runtime.md, "What a millisecond run pays"). */
#define _GNU_SOURCE
#include "fp_internal.h"

struct fp_unit *__fragprof_units;
uint32_t __fragprof_nunits;
int __fragprof_main_returned;
char __fragprof_out_short[256], __fragprof_out_long[4096] FP_BULK;
char *__fragprof_out_path = __fragprof_out_short;
int __fragprof_out_fd = -1;
pid_t __fragprof_owner;
volatile sig_atomic_t __fragprof_dumped;
int __fragprof_forked;
uint32_t __fragprof_run_id;
int __fragprof_run_inherited;
int __fragprof_merge_children, __fragprof_trial_fd;
int __fragprof_cont_on;
