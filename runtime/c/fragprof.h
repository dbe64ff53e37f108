/* fragprof.h: the interface between a C program and the fragprof runtime.
 *
 * Programs built by fragprof (fragprof count, fragprof cc, ...) may include this
 * header; it is on the include path of every fragprof build. Without fragprof the
 * macros compile to nothing.
 */
#ifndef FRAGPROF_H
#define FRAGPROF_H

#ifdef __FRAGPROF__
/* fragprof_dump writes the counts now (once per process), as at exit. */
void __fragprof_dump(int sig);
#define FRAGPROF_DUMP() __fragprof_dump(0)
#else
#define FRAGPROF_DUMP() ((void)0)
#endif

#endif
